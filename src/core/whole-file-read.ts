import fs from "node:fs";

/** Files up to this size are read with one synchronous call; larger ones through the thread pool. */
const ONE_READ_BYTES = 1024 * 1024;

/**
 * Opens a file and hands its descriptor to `small` when the file holds at most ONE_READ_BYTES,
 * else to `large`; closes it after. A note read from the kernel's cache takes microseconds in one
 * synchronous call, while open, stat, read and close through the thread pool cost ≈ 0.1 ms of CPU
 * a file (decisions 080, 098). A large file never holds up the event loop on its reads.
 */
export async function withOpenFile<Result>(filePath: string, small: (descriptor: number) => Result, large: (descriptor: number) => Promise<Result>): Promise<Result> {
  const descriptor = fs.openSync(filePath, "r");
  try {
    return fs.fstatSync(descriptor).size <= ONE_READ_BYTES ? small(descriptor) : await large(descriptor);
  } finally {
    fs.closeSync(descriptor);
  }
}

/** A file's bytes: read in one synchronous call when small (withOpenFile), else through the thread pool. */
export function readWholeFile(filePath: string): Promise<Buffer> {
  return withOpenFile(
    filePath,
    (descriptor) => fs.readFileSync(descriptor),
    (descriptor) => new Promise<Buffer>((resolve, reject) => fs.readFile(descriptor, (error, data) => (error ? reject(error) : resolve(data)))),
  );
}
