import fs from "node:fs/promises";
import { decodeText, detectBom, sniffUtf16 } from "./text-encoding.js";

/**
 * Content sniffing for files whose extension no parser claims (a Graphviz .dot, a .conf, a
 * README without an extension): text is read as text, anything else stays unsupported.
 */

/** Bytes looked at to decide. */
export const SNIFF_BYTES = 8192;
/** Above this share of control characters the "text" is really binary data. */
const MAX_CONTROL_CHARACTER_SHARE = 0.1;

/** True when decoded text holds too many control characters (or undecodable bytes) to be text. */
export function looksBinary(text: string): boolean {
  const sample = text.slice(0, SNIFF_BYTES);
  if (sample.length === 0) return false;
  let control = 0;
  for (const character of sample) {
    const code = character.codePointAt(0) ?? 0;
    if ((code < 0x20 && code !== 0x09 && code !== 0x0a && code !== 0x0c && code !== 0x0d) || code === 0xfffd) control++;
  }
  return control / sample.length > MAX_CONTROL_CHARACTER_SHARE;
}

/**
 * Whether the first bytes of a file are text: a BOM, or UTF-16 by its NUL pattern, or no NUL
 * byte at all (UTF-8 and the 8-bit encodings never hold one) and few control characters.
 */
export function looksLikeText(data: Uint8Array): boolean {
  const head = data.subarray(0, SNIFF_BYTES);
  if (head.length === 0) return false;
  if (!detectBom(head) && !sniffUtf16(head) && head.includes(0)) return false;
  // A multi-byte character cut at the sample's end must not count against it.
  const { text } = decodeText(head);
  return !looksBinary(text.replace(/\uFFFD{1,3}$/, ""));
}

/** Reads the first bytes of a file and sniffs them; unreadable files are not text. */
export async function isTextFile(filePath: string): Promise<boolean> {
  let handle;
  try {
    handle = await fs.open(filePath, "r");
    const buffer = new Uint8Array(SNIFF_BYTES);
    const { bytesRead } = await handle.read(buffer, 0, SNIFF_BYTES, 0);
    return looksLikeText(buffer.subarray(0, bytesRead));
  } catch {
    return false;
  } finally {
    await handle?.close();
  }
}
