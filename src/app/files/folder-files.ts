import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { ChunkpadError } from "../../core/errors.js";

/**
 * Files in and around added folders, for a face that cannot touch the disk itself (the web app):
 * a document copied into an added folder, and the folders a folder picker shows.
 */

export interface FolderListing {
  /** The folder shown, through its links. */
  path: string;
  /** Its parent; null at the top of the disk. */
  parent: string | null;
  /** The folders inside it (never files, never hidden ones), by name. */
  folders: string[];
}

/** The folders inside `folderPath` (default: the user's home folder), for choosing one to add. */
export async function listFolderChoices(folderPath?: string): Promise<FolderListing> {
  const start = folderPath === undefined || folderPath === "" ? os.homedir() : path.resolve(folderPath);
  let real: string;
  let entries: fs.Dirent[];
  try {
    real = await fs.promises.realpath(start);
    entries = await fs.promises.readdir(real, { withFileTypes: true });
  } catch (error) {
    throw new ChunkpadError("NOT_FOUND", `Cannot open the folder ${start} (${(error as NodeJS.ErrnoException).code ?? "error"}). Pick another one.`);
  }
  const folders = entries.filter((entry) => entry.isDirectory() && !entry.name.startsWith(".")).map((entry) => entry.name).sort((a, b) => a.localeCompare(b));
  return { path: real, parent: path.dirname(real) === real ? null : path.dirname(real), folders };
}

export interface SavedDocument {
  folderId: string;
  relativePath: string;
  bytes: number;
}

/**
 * Copies one document into the top of an added folder; the next processing run reads it. `name`
 * must be a plain file name (the face checks what a name may hold); an existing file is never
 * overwritten.
 */
export async function saveDocument(folder: { id: string; rootPath: string }, name: string, bytes: Uint8Array): Promise<SavedDocument> {
  if (name === "" || name !== path.basename(name) || name === "." || name === ".." || name.startsWith(".")) {
    throw new ChunkpadError("INVALID_ARGUMENT", `${JSON.stringify(name)} is not a plain file name; rename the file and add it again.`);
  }
  const target = path.join(folder.rootPath, name);
  try {
    // "wx": an existing file is never overwritten.
    await fs.promises.writeFile(target, bytes, { flag: "wx" });
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === "EEXIST") throw new ChunkpadError("INVALID_ARGUMENT", `${name} already exists in ${folder.rootPath}; rename the file you upload, or replace it on disk.`);
    throw error;
  }
  return { folderId: folder.id, relativePath: name, bytes: bytes.byteLength };
}
