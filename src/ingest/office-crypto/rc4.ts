import { createHash } from "node:crypto";

/** Office 97-2003 encryption re-keys RC4 for every 512-byte block of a stream. */
export const RC4_BLOCK_BYTES = 512;

/** RC4 in plain JavaScript: OpenSSL 3 keeps it in the legacy provider, which Node does not load. */
export function rc4(key: Uint8Array, data: Uint8Array): Uint8Array {
  const state = new Uint8Array(256);
  for (let index = 0; index < 256; index++) state[index] = index;
  let j = 0;
  for (let index = 0; index < 256; index++) {
    const value = state[index] ?? 0;
    j = (j + value + (key[index % key.length] ?? 0)) & 0xff;
    state[index] = state[j] ?? 0;
    state[j] = value;
  }
  const output = new Uint8Array(data.length);
  let i = 0;
  j = 0;
  for (let index = 0; index < data.length; index++) {
    i = (i + 1) & 0xff;
    const a = state[i] ?? 0;
    j = (j + a) & 0xff;
    const b = state[j] ?? 0;
    state[i] = b;
    state[j] = a;
    output[index] = (data[index] ?? 0) ^ (state[(a + b) & 0xff] ?? 0);
  }
  return output;
}

function digest(algorithm: string, ...parts: Uint8Array[]): Uint8Array {
  const hash = createHash(algorithm);
  for (const part of parts) hash.update(part);
  return new Uint8Array(hash.digest());
}

function uint32(value: number): Uint8Array {
  const bytes = new Uint8Array(4);
  new DataView(bytes.buffer).setUint32(0, value, true);
  return bytes;
}

function utf16(password: string): Uint8Array {
  return new Uint8Array(Buffer.from(password, "utf16le"));
}

/** A function from block number to that block's RC4 key. */
export type BlockKeys = (block: number) => Uint8Array;

/** Office 97/2000 RC4 (MS-OFFCRYPTO 2.3.6.2): MD5 of the password, salted, 40 bits used. */
export function legacyRc4Keys(password: string, salt: Uint8Array): BlockKeys {
  const truncated = digest("md5", utf16(password)).subarray(0, 5);
  const intermediate = new Uint8Array(21 * 16);
  for (let copy = 0; copy < 16; copy++) {
    intermediate.set(truncated, copy * 21);
    intermediate.set(salt.subarray(0, 16), copy * 21 + 5);
  }
  const base = digest("md5", intermediate).subarray(0, 5);
  return (block) => digest("md5", base, uint32(block)).subarray(0, 16);
}

/** RC4 CryptoAPI (MS-OFFCRYPTO 2.3.5.2): SHA-1 of salt and password; 40-bit keys padded to 128. */
export function cryptoApiRc4Keys(password: string, salt: Uint8Array, keyBits: number): BlockKeys {
  const base = digest("sha1", salt, utf16(password));
  const bits = keyBits === 0 ? 40 : keyBits;
  return (block) => {
    const hash = digest("sha1", base, uint32(block));
    if (bits === 40) {
      const key = new Uint8Array(16);
      key.set(hash.subarray(0, 5));
      return key;
    }
    return hash.subarray(0, bits / 8);
  };
}

/** True when the verifier decrypts to a value whose hash is the stored verifier hash. */
export function verifyRc4Password(keys: BlockKeys, algorithm: "md5" | "sha1", encryptedVerifier: Uint8Array, encryptedVerifierHash: Uint8Array): boolean {
  const joined = new Uint8Array(encryptedVerifier.length + encryptedVerifierHash.length);
  joined.set(encryptedVerifier);
  joined.set(encryptedVerifierHash, encryptedVerifier.length);
  const plain = rc4(keys(0), joined);
  const verifier = plain.subarray(0, encryptedVerifier.length);
  const expected = plain.subarray(encryptedVerifier.length);
  const actual = digest(algorithm, verifier);
  return actual.length <= expected.length && actual.every((byte, index) => byte === expected[index]);
}

/** Decrypts (or encrypts: RC4 is symmetric) a whole stream, block by block from offset 0. */
export function rc4Stream(keys: BlockKeys, data: Uint8Array): Uint8Array {
  const output = new Uint8Array(data.length);
  for (let offset = 0, block = 0; offset < data.length; offset += RC4_BLOCK_BYTES, block++) {
    output.set(rc4(keys(block), data.subarray(offset, offset + RC4_BLOCK_BYTES)), offset);
  }
  return output;
}
