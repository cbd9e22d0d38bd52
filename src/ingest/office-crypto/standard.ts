import { createDecipheriv, createHash } from "node:crypto";
import { ChunkpadError } from "../../core/errors.js";

/** ECMA-376 Standard Encryption (MS-OFFCRYPTO 2.3.4.5-2.3.4.9): SHA-1 and AES-ECB. */
const SPIN_COUNT = 50_000;
const AES_ALGORITHMS: ReadonlyMap<number, number> = new Map([
  [0x660e, 128],
  [0x660f, 192],
  [0x6610, 256],
]);
const FLAG_AES = 0x20;

function damaged(what: string): ChunkpadError {
  return new ChunkpadError("PARSE_MALFORMED", `the document's encryption description is damaged (${what})`);
}

function sha1(...parts: Uint8Array[]): Buffer {
  const digest = createHash("sha1");
  for (const part of parts) digest.update(part);
  return digest.digest();
}

function aesEcb(key: Uint8Array, data: Uint8Array): Buffer {
  const whole = data.subarray(0, data.length - (data.length % 16));
  const decipher = createDecipheriv(`aes-${key.length * 8}-ecb`, key, null);
  decipher.setAutoPadding(false);
  return Buffer.concat([decipher.update(whole), decipher.final()]);
}

function deriveKey(password: string, salt: Uint8Array, keyBytes: number): Buffer {
  let current = sha1(salt, Buffer.from(password, "utf16le"));
  const iterator = Buffer.alloc(4);
  for (let round = 0; round < SPIN_COUNT; round++) {
    iterator.writeUInt32LE(round, 0);
    current = createHash("sha1").update(iterator).update(current).digest();
  }
  const final = sha1(current, Buffer.alloc(4));
  const derive = (fill: number) => {
    const buffer = Buffer.alloc(64, fill);
    for (let index = 0; index < final.length; index++) buffer[index] = (buffer[index] ?? 0) ^ (final[index] ?? 0);
    return sha1(buffer);
  };
  return Buffer.concat([derive(0x36), derive(0x5c)]).subarray(0, keyBytes);
}

/** Decrypts a Standard EncryptedPackage stream; `info` is the whole EncryptionInfo stream. */
export function decryptStandard(info: Uint8Array, encryptedPackage: Uint8Array, password: string): Uint8Array {
  const data = new DataView(info.buffer, info.byteOffset, info.byteLength);
  if (info.length < 12) throw damaged("too short");
  const headerBytes = data.getUint32(8, true);
  const header = 12;
  const verifier = header + headerBytes;
  if (headerBytes < 32 || verifier + 72 > info.length) throw damaged("header size");
  const flags = data.getUint32(header, true);
  const algorithm = data.getUint32(header + 8, true);
  const keyBits = data.getUint32(header + 16, true);
  const knownBits = algorithm === 0 && (flags & FLAG_AES) !== 0 ? 128 : AES_ALGORITHMS.get(algorithm);
  if (knownBits === undefined || (keyBits !== 0 && keyBits !== knownBits)) {
    throw new ChunkpadError("PARSE_ENCRYPTED", "the document uses an encryption algorithm Chunkpad cannot open; save it with AES encryption or without a password");
  }
  const saltBytes = data.getUint32(verifier, true);
  if (saltBytes !== 16) throw damaged(`salt size ${saltBytes}`);
  const salt = info.subarray(verifier + 4, verifier + 20);
  const encryptedVerifier = info.subarray(verifier + 20, verifier + 36);
  const encryptedVerifierHash = info.subarray(verifier + 40, verifier + 72);

  const key = deriveKey(password, salt, knownBits / 8);
  const expected = sha1(aesEcb(key, encryptedVerifier));
  if (!aesEcb(key, encryptedVerifierHash).subarray(0, expected.length).equals(expected)) {
    throw new ChunkpadError("PARSE_WRONG_PASSWORD", "the password given does not open this document; check it");
  }
  if (encryptedPackage.length < 8) throw damaged("the encrypted package is empty");
  const size = Number(new DataView(encryptedPackage.buffer, encryptedPackage.byteOffset, 8).getBigUint64(0, true));
  const plain = aesEcb(key, encryptedPackage.subarray(8));
  if (size > plain.length) throw damaged("the encrypted package is shorter than it says");
  return new Uint8Array(plain.buffer, plain.byteOffset, size);
}
