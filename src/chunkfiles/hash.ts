import { createHash } from "node:crypto";

/** sha256 of the text's UTF-8 bytes, as lower-case hex: content hashes of chunks and chunk files. */
export function hashText(text: string): string {
  return createHash("sha256").update(text, "utf8").digest("hex");
}

/** sha256 of raw bytes, as lower-case hex. */
export function hashBytes(data: Uint8Array): string {
  return createHash("sha256").update(data).digest("hex");
}
