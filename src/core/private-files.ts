import fs from "node:fs";

/**
 * Chunkpad's own state (databases, chat history, keys) is readable by the user alone: folders
 * 0700, files 0600, whatever the umask, and tightened again when an older version (or a backup
 * restore) left them looser. Windows has no such modes; its per-user profile folders do the job.
 */

export const PRIVATE_DIRECTORY_MODE = 0o700;
export const PRIVATE_FILE_MODE = 0o600;
const GROUP_AND_OTHER_BITS = 0o077;

const posix = process.platform !== "win32";

/** Creates the folder (and its parents) if needed, and makes it 0700. */
export function ensurePrivateDirectory(directory: string): void {
  fs.mkdirSync(directory, { recursive: true, mode: PRIVATE_DIRECTORY_MODE });
  tighten(directory, PRIVATE_DIRECTORY_MODE);
}

/**
 * Creates an empty file 0600 before anyone else (SQLite creates files 0644 and forces that mode
 * past the umask) and makes an existing one 0600. SQLite gives the -wal and -shm files the mode
 * of the database file, so they follow.
 */
export function ensurePrivateFile(filePath: string): void {
  fs.closeSync(fs.openSync(filePath, "a", PRIVATE_FILE_MODE));
  tighten(filePath, PRIVATE_FILE_MODE);
}

/** Makes an existing file 0600; a missing one is left missing. */
export function tightenIfPresent(filePath: string): void {
  try {
    tighten(filePath, PRIVATE_FILE_MODE);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== "ENOENT") throw error;
  }
}

function tighten(target: string, mode: number): void {
  if (!posix) return;
  // Never through a link: chmod would change the file it points to.
  const stats = fs.lstatSync(target);
  if (!stats.isSymbolicLink() && (stats.mode & GROUP_AND_OTHER_BITS) !== 0) fs.chmodSync(target, mode);
}
