import cfb from "cfb";
import type { CFB$Container } from "cfb";

/** D0 CF 11 E0 A1 B1 1A E1: the signature of an OLE compound file. */
const OLE_SIGNATURE = [0xd0, 0xcf, 0x11, 0xe0, 0xa1, 0xb1, 0x1a, 0xe1];

export type OleContainer = CFB$Container;

export function hasOleSignature(data: Uint8Array): boolean {
  return data.length >= OLE_SIGNATURE.length && OLE_SIGNATURE.every((byte, index) => data[index] === byte);
}

/** The compound file, or undefined when the bytes are not one or are too damaged to read. */
export function readOle(data: Uint8Array): OleContainer | undefined {
  if (!hasOleSignature(data)) return undefined;
  try {
    return cfb.read(Buffer.from(data.buffer, data.byteOffset, data.byteLength), { type: "buffer" });
  } catch {
    return undefined;
  }
}

/** A stream at the root of the container ("WordDocument", "EncryptionInfo"), by case-insensitive name. */
export function readStream(container: OleContainer, name: string): Uint8Array | undefined {
  const entry = cfb.find(container, `/${name}`);
  if (!entry || entry.type !== 2 || !entry.content) return undefined;
  const content = entry.content;
  return content instanceof Uint8Array ? content.subarray(0, entry.size) : Uint8Array.from(content).subarray(0, entry.size);
}

/** Replaces a root stream's bytes (same name) and serializes the container again. */
export function writeOle(container: OleContainer, replacements: ReadonlyMap<string, Uint8Array>): Uint8Array {
  for (const [name, bytes] of replacements) {
    const entry = cfb.find(container, `/${name}`);
    if (!entry) continue;
    entry.content = Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
    entry.size = bytes.byteLength;
  }
  const written: unknown = cfb.write(container, { type: "buffer" });
  if (written instanceof Uint8Array) return written;
  return Uint8Array.from(written as number[]);
}
