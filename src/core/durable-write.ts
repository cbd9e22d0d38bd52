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

/** fsync through the thread pool: the one step here that waits on the disk. */
function fsyncAsync(descriptor: number): Promise<void> {
  return new Promise((resolve, reject) => fs.fsync(descriptor, (error) => (error ? reject(error) : resolve())));
}

/**
 * syncDirectory without blocking the event loop: a directory fsync waits on the disk (1–2 s of a
 * 1,000-note first run's main thread on a busy disk), and the main thread has the database's
 * writes and the next files to do meanwhile. Its open and close are synchronous (microseconds).
 */
async function syncDirectoryAsync(directory: string): Promise<void> {
  let descriptor: number | undefined;
  try {
    descriptor = fs.openSync(directory, "r");
    await fsyncAsync(descriptor);
  } catch {
    // Windows cannot fsync a directory; the rename is still atomic there.
  } finally {
    if (descriptor !== undefined) fs.closeSync(descriptor);
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
 * The same as writeFileDurablySync, without waiting on the disk on the event loop. Returns the
 * new file's stat (size, modification time, inode and mode as it lands at `filePath`).
 *
 * Only the two fsyncs go through the thread pool. The other steps (mkdir, open, write of a
 * chunk file's few kB, fchmod, fstat, close, rename) are answered from the kernel's caches in
 * microseconds and are made synchronously: each through the pool cost 20–40 µs of CPU and two
 * thread wake-ups, and a first run writes a chunk file per source (decision 080).
 */
export async function writeFileDurably(filePath: string, text: string | Uint8Array, options: DurableWriteOptions = {}): Promise<fs.Stats> {
  const directory = path.dirname(filePath);
  fs.mkdirSync(directory, { recursive: true });
  const temporary = temporaryNameFor(filePath);
  let stats: fs.Stats;
  try {
    const descriptor = fs.openSync(temporary, "wx", options.mode ?? 0o666);
    try {
      fs.writeFileSync(descriptor, text, "utf8");
      await fsyncAsync(descriptor);
      if (options.mode !== undefined) fs.fchmodSync(descriptor, options.mode);
      stats = fs.fstatSync(descriptor);
    } finally {
      fs.closeSync(descriptor);
    }
    fs.renameSync(temporary, filePath);
  } catch (error) {
    fs.rmSync(temporary, { force: true });
    throw error;
  }
  await syncDirectoryAsync(directory);
  return stats;
}
