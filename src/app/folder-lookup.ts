import fs from "node:fs";
import path from "node:path";
import { ChunkpadError } from "../core/errors.js";
import type { MainStore } from "../store/index.js";
import type { StoredFolder } from "../store/index.js";
import type { NextStep } from "../core/next-step.js";

/**
 * The added folder a user named: by the path it was added with (resolved against `cwd`, through
 * symlinks), or by its id when `byId` is set. A folder that is gone from disk is still found by
 * the path it was added with.
 */
export async function findAddedFolder(store: MainStore, spec: string, { cwd = process.cwd(), byId = true }: { cwd?: string; byId?: boolean } = {}): Promise<StoredFolder | null> {
  checkFolderSpec(spec);
  const absolute = path.resolve(cwd, spec);
  let real = absolute;
  try {
    real = fs.realpathSync(absolute);
  } catch {
    // Gone from disk: the path it was added with still names it.
  }
  return await store.getFolderByPath(real) ?? await store.getFolderByPath(absolute) ?? (byId ? await store.getFolder(spec) : null);
}

/** FOLDER_NOT_INDEXED for a folder the user named but never added; `hint` adds a command-specific way out. */
export function folderNotAdded(spec: string, orAll?: "sync" | "embed" | "export" | "watch"): ChunkpadError {
  const nextSteps: NextStep[] = [{ action: "add-folder", folder: spec }, { action: "list-folders" }];
  if (orAll) nextSteps.push({ action: "all-folders", verb: orAll });
  return new ChunkpadError("FOLDER_NOT_INDEXED", `${spec} has not been added yet.`, { nextSteps });
}

/**
 * Refuses an empty folder name: path.resolve("") is the current folder, so a variable that
 * expanded to nothing ("chunkpad add $DOCS") would otherwise index wherever the user stands.
 */
export function checkFolderSpec(spec: string): void {
  if (spec.trim() === "") {
    throw new ChunkpadError("INVALID_ARGUMENT", 'No folder given (the folder name is empty). Give the folder of documents, e.g. ~/Documents/reports, or "." for the current folder.');
  }
}
