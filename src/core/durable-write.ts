import { randomUUID } from "node:crypto";
import fs from "node:fs";
import path from "node:path";

export interface DurableWriteOptions {
  /** File mode of the new file (the key file is 0o600). */
  mode?: number;
}

/**
 * A hidden temporary name in the target's directory. Short, since the target's own name may
 * already be near the file system's 255-byte limit.
 */
function temporaryNameFor(filePath: string): string {
  return path.join(path.dirname(filePath), `.chunkpad-${process.pid}-${randomUUID().slice(0, 12)}.tmp`);
}

/** fsync a directory so a rename inside it survives a crash; some platforms cannot open one. */
function syncDirectory(directory: string): void {
  let descriptor: number | undefined;
  try {
    descriptor = fs.openSync(directory, "r");
    fs.fsyncSync(descriptor);
  } catch {
    // Windows cannot fsync a directory; the rename is still atomic there.
  } finally {
    if (descriptor !== undefined) fs.closeSync(descriptor);
  }
}

/**
 * syncDirectory without blocking the event loop: a directory fsync waits on the disk (1–2 s of a
 * 1,000-note first run's main thread on a busy disk), and the main thread has the database's
 * writes and the next files to do meanwhile.
 */
async function syncDirectoryAsync(directory: string): Promise<void> {
  let handle: fs.promises.FileHandle | undefined;
  try {
    handle = await fs.promises.open(directory, "r");
    await handle.sync();
  } catch {
    // Windows cannot fsync a directory; the rename is still atomic there.
  } finally {
    await handle?.close().catch(() => undefined);
  }
}

/**
 * Writes text atomically and durably: to a temporary file in the same directory, flushed to
 * disk (fsync), then renamed over the target and the directory flushed, so neither a reader
 * nor a crash or power cut ever sees half a file or an empty one. The rename replaces a
 * symlink at the target rather than writing through it. Creates missing directories.
 */
export function writeFileDurablySync(filePath: string, text: string | Uint8Array, options: DurableWriteOptions = {}): void {
  const directory = path.dirname(filePath);
  fs.mkdirSync(directory, { recursive: true });
  const temporary = temporaryNameFor(filePath);
  try {
    const descriptor = fs.openSync(temporary, "wx", options.mode ?? 0o666);
    try {
      fs.writeFileSync(descriptor, text, "utf8");
      fs.fsyncSync(descriptor);
    } finally {
      fs.closeSync(descriptor);
    }
    if (options.mode !== undefined) fs.chmodSync(temporary, options.mode);
    fs.renameSync(temporary, filePath);
  } catch (error) {
    fs.rmSync(temporary, { force: true });
    throw error;
  }
  syncDirectory(directory);
}

/**
 * The same as writeFileDurablySync, without blocking the event loop. Returns the new file's stat
 * (size, modification time, inode and mode as it lands at `filePath`).
 */
export async function writeFileDurably(filePath: string, text: string | Uint8Array, options: DurableWriteOptions = {}): Promise<fs.Stats> {
  const directory = path.dirname(filePath);
  await fs.promises.mkdir(directory, { recursive: true });
  const temporary = temporaryNameFor(filePath);
  let stats: fs.Stats;
  try {
    const handle = await fs.promises.open(temporary, "wx", options.mode ?? 0o666);
    try {
      await handle.writeFile(text, "utf8");
      await handle.sync();
      if (options.mode !== undefined) await handle.chmod(options.mode);
      stats = await handle.stat();
    } finally {
      await handle.close();
    }
    await fs.promises.rename(temporary, filePath);
  } catch (error) {
    await fs.promises.rm(temporary, { force: true }).catch(() => undefined);
    throw error;
  }
  await syncDirectoryAsync(directory);
  return stats;
}
