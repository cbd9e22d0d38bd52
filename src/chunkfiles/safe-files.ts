import { closeSync, constants, lstatSync, openSync, readFileSync, statSync, type Stats } from "node:fs";
import fs from "node:fs/promises";
import path from "node:path";
import { writeFileDurably } from "../core/durable-write.js";
import { ChunkpadError } from "../core/errors.js";

/**
 * Reading, writing and deleting chunk files without ever following a symbolic link inside the
 * chunks root. A `_chunks/x.md` linking to ~/.aws/credentials would otherwise be indexed and
 * sent to an LLM; a linked subfolder would let a rewrite or a cleanup touch files elsewhere.
 * Such entries are refused with CHUNK_FILE_LINK, which the run reports for that file only.
 */

function linkError(chunksRootPath: string, linkPath: string): ChunkpadError {
  const shown = path.join(path.basename(chunksRootPath), path.relative(chunksRootPath, linkPath)).split(path.sep).join("/");
  return new ChunkpadError(
    "CHUNK_FILE_LINK",
    `${shown} is a symbolic link; Chunkpad never follows links in its chunk folder, so it neither reads nor writes through it. Replace the link with a real file or folder.`,
  );
}

/** Throws CHUNK_FILE_LINK when the chunks root or any existing entry between it and `filePath` is a symlink. */
export async function assertNoLinks(chunksRootPath: string, filePath: string): Promise<void> {
  await lstatChunkFileSafely(chunksRootPath, filePath);
}

/**
 * The chunk file's own lstat (undefined when it does not exist), after the same checks as
 * assertNoLinks: CHUNK_FILE_LINK when it, the chunks root or a folder between them is a link.
 * `checkedFolders` (one run's): folders already found not to be links are not looked at again.
 * Only for deciding that a file is unchanged: reading and writing always check the whole path.
 */
export async function lstatChunkFileSafely(chunksRootPath: string, filePath: string, checkedFolders?: Set<string>): Promise<Stats | undefined> {
  const root = path.resolve(chunksRootPath);
  const relative = path.relative(root, path.resolve(filePath));
  if (relative.startsWith("..") || path.isAbsolute(relative)) {
    throw new ChunkpadError("INTERNAL", `${filePath} is outside the chunk folder ${root}`);
  }
  let current = root;
  let stats: Stats | undefined;
  const segments = ["", ...relative.split(path.sep).filter(Boolean)];
  for (const [position, segment] of segments.entries()) {
    current = segment ? path.join(current, segment) : current;
    const last = position === segments.length - 1;
    if (!last && checkedFolders?.has(current)) continue;
    // Synchronous: an lstat answered from the kernel's cache takes microseconds, while one through
    // the thread pool costs 17–28 µs of CPU, and a first run makes about ten per file.
    stats = lstatSync(current, { throwIfNoEntry: false });
    if (stats === undefined) return undefined; // nothing further exists to follow
    if (stats.isSymbolicLink()) throw linkError(root, current);
    if (!last && stats.isDirectory()) checkedFolders?.add(current);
  }
  return stats;
}

/** The chunk file's text, or undefined when there is none; never through a link. */
export async function readChunkFileSafely(chunksRootPath: string, filePath: string): Promise<string | undefined> {
  // No file, no open: a failed open makes an error object (≈ 20 µs), and a first run looks once per file (decision 083).
  if ((await lstatChunkFileSafely(chunksRootPath, filePath)) === undefined) return undefined;
  let descriptor: number;
  try {
    // O_NOFOLLOW closes the gap between the check above and the open, where the platform has it.
    // Synchronous, as the link check: a chunk file of a few kB is read from the kernel's cache in
    // microseconds, against 20–40 µs of CPU per step through the thread pool (decision 080).
    descriptor = openSync(filePath, constants.O_RDONLY | (constants.O_NOFOLLOW ?? 0));
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === "ENOENT") return undefined;
    if (code === "ELOOP") throw linkError(chunksRootPath, filePath);
    throw error;
  }
  try {
    return readFileSync(descriptor, "utf8");
  } finally {
    closeSync(descriptor);
  }
}

/**
 * Whose permissions a chunk file may have at most: its source document's (a chunk file holds the
 * same words, so a 0600 document gives a 0600 chunk file), or an explicit mode (an archive's).
 */
export type ChunkFileAccess = { sourcePath: string } | { mode: number };

/** The usual permission bits for a new file here (0666 less the umask). */
function defaultFileMode(): number {
  return 0o666 & ~process.umask();
}

/** The file's stat, or undefined when it cannot be had. Synchronous: a stat from the kernel's cache (decision 080). */
function statOrUndefined(filePath: string): Stats | undefined {
  try {
    return statSync(filePath, { throwIfNoEntry: false });
  } catch {
    return undefined;
  }
}

/** The mode a chunk file gets: the usual one, with no permission its source (or the given mode) lacks. */
export async function chunkFileModeFor(access: ChunkFileAccess): Promise<number> {
  if ("mode" in access) return defaultFileMode() & access.mode;
  const stats = statOrUndefined(access.sourcePath);
  // Without its source to compare with, only the user may read it.
  return defaultFileMode() & (stats ? stats.mode : 0o600);
}

/**
 * Writes a chunk file atomically and durably, refusing when a link is on the way, with no wider
 * permissions than `access` allows. Returns the written file's stat (taken before it was renamed
 * into place, so a later edit shows as a different one).
 */
export async function writeChunkFileSafely(chunksRootPath: string, filePath: string, text: string | Uint8Array, access: ChunkFileAccess): Promise<Stats> {
  await assertNoLinks(chunksRootPath, filePath);
  return writeFileDurably(filePath, text, { mode: await chunkFileModeFor(access) });
}

/** Takes from an existing chunk file any permission its source lacks (a document made private later). */
export async function narrowChunkFileMode(chunksRootPath: string, filePath: string, access: ChunkFileAccess): Promise<void> {
  await assertNoLinks(chunksRootPath, filePath);
  const allowed = await chunkFileModeFor(access);
  let handle;
  try {
    handle = await fs.open(filePath, constants.O_RDONLY | (constants.O_NOFOLLOW ?? 0));
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === "ENOENT") return;
    if ((error as NodeJS.ErrnoException).code === "ELOOP") throw linkError(chunksRootPath, filePath);
    throw error;
  }
  try {
    const mode = (await handle.stat()).mode & 0o777;
    if ((mode & ~allowed) !== 0) await handle.chmod(mode & allowed);
  } finally {
    await handle.close();
  }
}

/** Deletes a chunk file (and the folders it leaves empty), refusing when a link is on the way. */
export async function removeChunkFileSafely(chunksRootPath: string, filePath: string): Promise<boolean> {
  await assertNoLinks(chunksRootPath, filePath);
  return removeChunkFileIn(chunksRootPath, filePath);
}

/**
 * Deletes a chunk file and then the directories inside _chunks/ it leaves empty (never
 * _chunks/ itself; undefined: prune nothing). Returns false when there was no such file.
 */
async function removeChunkFileIn(chunksRootPath: string | undefined, filePath: string): Promise<boolean> {
  try {
    await fs.unlink(filePath);
  } catch (error) {
    if ((error as NodeJS.ErrnoException | null)?.code === "ENOENT") return false;
    throw error;
  }
  if (chunksRootPath === undefined) return true;
  const chunksRoot = path.resolve(chunksRootPath);
  let directory = path.dirname(path.resolve(filePath));
  while (directory !== chunksRoot && directory.startsWith(chunksRoot + path.sep)) {
    try {
      await fs.rmdir(directory);
    } catch {
      break; // not empty (or not ours to remove): stop pruning
    }
    directory = path.dirname(directory);
  }
  return true;
}
