import { createHash, randomUUID } from "node:crypto";
import { createReadStream } from "node:fs";
import fs from "node:fs/promises";
import path from "node:path";

/** sha256 of a file's bytes, streamed so large files use little memory. */
export async function hashFile(filePath: string): Promise<string> {
  const hash = createHash("sha256");
  for await (const chunk of createReadStream(filePath)) hash.update(chunk as Buffer);
  return hash.digest("hex");
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
