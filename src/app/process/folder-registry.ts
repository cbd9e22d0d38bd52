import fs from "node:fs";
import path from "node:path";
import { writeFileDurably } from "../../core/durable-write.js";

/**
 * The added folders, also kept as plain JSON beside the database ({dataDir}/folders.json), so
 * `chunkpad reset --chunk-files` can find every `_chunks/` even when chunkpad.db is damaged.
 * The database stays the source of truth; this list is only read by reset.
 */

export interface RegisteredFolder {
  rootPath: string;
  chunksRootPath: string;
}

export function folderRegistryPath(dataDir: string): string {
  return path.join(dataDir, "folders.json");
}

export function readFolderRegistry(dataDir: string): RegisteredFolder[] {
  try {
    const parsed = JSON.parse(fs.readFileSync(folderRegistryPath(dataDir), "utf8")) as unknown;
    if (!Array.isArray(parsed)) return [];
    return parsed.filter(
      (item): item is RegisteredFolder => item !== null && typeof item === "object" && typeof item.rootPath === "string" && typeof item.chunksRootPath === "string",
    );
  } catch {
    // Missing or damaged: reset falls back on what the database still tells.
    return [];
  }
}

export async function recordFolder(dataDir: string, folder: RegisteredFolder): Promise<void> {
  const folders = readFolderRegistry(dataDir);
  if (folders.some((known) => known.rootPath === folder.rootPath && known.chunksRootPath === folder.chunksRootPath)) return;
  const others = folders.filter((known) => known.rootPath !== folder.rootPath);
  await writeFileDurably(folderRegistryPath(dataDir), `${JSON.stringify([...others, { rootPath: folder.rootPath, chunksRootPath: folder.chunksRootPath }], null, 2)}\n`);
}

export async function forgetFolder(dataDir: string, rootPath: string): Promise<void> {
  const folders = readFolderRegistry(dataDir);
  const remaining = folders.filter((known) => known.rootPath !== rootPath);
  if (remaining.length !== folders.length) await writeFileDurably(folderRegistryPath(dataDir), `${JSON.stringify(remaining, null, 2)}\n`);
}
