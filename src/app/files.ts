import { createHash, randomBytes } from "node:crypto";
import { createReadStream } from "node:fs";
import fs from "node:fs/promises";
import path from "node:path";

/** sha256 of a file's bytes, streamed so large files use little memory. */
export async function hashFile(filePath: string): Promise<string> {
  const hash = createHash("sha256");
  for await (const chunk of createReadStream(filePath)) hash.update(chunk as Buffer);
  return hash.digest("hex");
}

/** Writes through a temporary file in the same folder and renames, so a crash never leaves half a file. */
export async function writeFileAtomic(filePath: string, text: string): Promise<void> {
  await fs.mkdir(path.dirname(filePath), { recursive: true });
  // A short name: the target's own name may already be near the file system's 255-byte limit.
  const temporary = path.join(path.dirname(filePath), `.chunkpad-${process.pid}-${randomBytes(6).toString("hex")}.tmp`);
  try {
    await fs.writeFile(temporary, text, "utf8");
    await fs.rename(temporary, filePath);
  } catch (error) {
    await fs.rm(temporary, { force: true }).catch(() => undefined);
    throw error;
  }
}
