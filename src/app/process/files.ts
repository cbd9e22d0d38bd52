import { createHash, randomUUID } from "node:crypto";
import fsSync from "node:fs";
import fs from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { withOpenFile } from "../../core/whole-file-read.js";

/**
 * sha256 of a file's bytes. A note is read in one synchronous call (withOpenFile), twice per parsed
 * file; a large file is streamed (little memory, the event loop never waits on its reads).
 */
export function hashFile(filePath: string): Promise<string> {
  const hash = createHash("sha256");
  return withOpenFile(
    filePath,
    (descriptor) => hash.update(fsSync.readFileSync(descriptor)).digest("hex"),
    async (descriptor) => {
      for await (const chunk of fsSync.createReadStream("", { fd: descriptor, autoClose: false })) hash.update(chunk as Buffer);
      return hash.digest("hex");
    },
  );
}

const READ_ONLY_CODES = new Set(["EROFS", "EACCES", "EPERM"]);

/**
 * True when Chunkpad may create files in `{folder}/_chunks`. Tried for real (create the folder,
 * create and delete a probe file) rather than read from permission bits: those say nothing for
 * root, a read-only mount or an immutable folder. Other errors (a full disk) count as writable,
 * so each file reports the real cause.
 */
export async function isFolderWritable(chunksRootPath: string): Promise<boolean> {
  const probe = path.join(chunksRootPath, `.chunkpad-probe-${process.pid}-${randomUUID().slice(0, 8)}`);
  try {
    // A linked _chunks/ is never written through; each file reports the link instead.
    if ((await fs.lstat(chunksRootPath).catch(() => undefined))?.isSymbolicLink()) return true;
    await fs.mkdir(chunksRootPath, { recursive: true });
    await (await fs.open(probe, "wx")).close();
    await fs.rm(probe, { force: true });
    return true;
  } catch (error) {
    return !READ_ONLY_CODES.has((error as NodeJS.ErrnoException).code ?? "");
  }
}

/** hashFile, or undefined when the file is gone. */
export async function hashFileIfPresent(filePath: string): Promise<string | undefined> {
  try {
    return await hashFile(filePath);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === "ENOENT") return undefined;
    throw error;
  }
}

/** A private copy of a source taken at one moment, for a file that changes faster than it can be parsed. */
export interface SourceSnapshot {
  /** The copy, with the source's file name (parsers choose by extension). */
  path: string;
  size: number;
  /** The source's modification time when the copy was taken: a later change shows as a new time. */
  mtimeMs: number;
  hash: string;
  remove: () => Promise<void>;
}

/** Copies a source into a private (0700) temporary folder; undefined when it is gone. */
export async function snapshotSource(filePath: string): Promise<SourceSnapshot | undefined> {
  const before = await fs.stat(filePath).catch(() => undefined);
  if (!before) return undefined;
  const directory = await fs.mkdtemp(path.join(os.tmpdir(), "chunkpad-snapshot-"));
  const remove = () => fs.rm(directory, { recursive: true, force: true });
  try {
    const copy = path.join(directory, path.basename(filePath));
    await fs.copyFile(filePath, copy);
    await fs.chmod(copy, 0o600);
    const stat = await fs.stat(copy);
    return { path: copy, size: stat.size, mtimeMs: before.mtimeMs, hash: await hashFile(copy), remove };
  } catch (error) {
    await remove();
    if ((error as NodeJS.ErrnoException).code === "ENOENT") return undefined;
    throw error;
  }
}
