import { createDecipheriv, createHash } from "node:crypto";
import { ChunkpadError } from "../../core/errors.js";
import { attribute, childElements, firstChild, parseXml } from "../xml.js";

/** ECMA-376 Agile Encryption (MS-OFFCRYPTO 2.3.4.10-2.3.4.15). */
const SEGMENT_BYTES = 4096;
const BLOCK_KEY_VERIFIER_INPUT = Uint8Array.from([0xfe, 0xa7, 0xd2, 0x76, 0x3b, 0x4b, 0x9e, 0x79]);
const BLOCK_KEY_VERIFIER_VALUE = Uint8Array.from([0xd7, 0xaa, 0x0f, 0x6d, 0x30, 0x61, 0x34, 0x4e]);
const BLOCK_KEY_ENCRYPTED_KEY = Uint8Array.from([0x14, 0x6e, 0x0b, 0xe7, 0xab, 0xac, 0xd0, 0xd6]);
const PASSWORD_KEY_ENCRYPTOR = "http://schemas.microsoft.com/office/2006/keyEncryptor/password";
/** A password key encryptor spins its hash this many times at most; more is a hostile file. */
const MAX_SPIN_COUNT = 10_000_000;

interface CipherParameters {
  salt: Uint8Array;
  blockBytes: number;
  keyBits: number;
  hashAlgorithm: string;
  cipher: string;
}

interface PasswordEncryptor extends CipherParameters {
  spinCount: number;
  encryptedVerifierHashInput: Uint8Array;
  encryptedVerifierHashValue: Uint8Array;
  encryptedKeyValue: Uint8Array;
}

type Attributes = Record<string, string | undefined>;

function unsupported(what: string): ChunkpadError {
  return new ChunkpadError("PARSE_ENCRYPTED", `the document is encrypted with ${what}, which Chunkpad cannot open; save it with standard AES encryption or without a password`);
}

function damaged(what: string): ChunkpadError {
  return new ChunkpadError("PARSE_MALFORMED", `the document's encryption description is damaged (${what})`);
}

function base64(attributes: Attributes, name: string): Uint8Array {
  const value = attributes[name];
  if (value === undefined) throw damaged(`no ${name}`);
  return new Uint8Array(Buffer.from(value, "base64"));
}

function integer(attributes: Attributes, name: string): number {
  const value = Number(attributes[name]);
  if (!Number.isInteger(value) || value < 0) throw damaged(`bad ${name}`);
  return value;
}

function cipherParameters(attributes: Attributes): CipherParameters {
  const keyBits = integer(attributes, "keyBits");
  const algorithm = attributes.cipherAlgorithm ?? "";
  const chaining = attributes.cipherChaining ?? "";
  if (algorithm !== "AES" || ![128, 192, 256].includes(keyBits)) throw unsupported(`${algorithm} ${keyBits}-bit`);
  if (chaining !== "ChainingModeCBC") throw unsupported(`${algorithm} in ${chaining}`);
  const hashAlgorithm = (attributes.hashAlgorithm ?? "").toLowerCase().replace("-", "");
  if (!["sha1", "sha256", "sha384", "sha512", "md5"].includes(hashAlgorithm)) throw unsupported(`the ${attributes.hashAlgorithm ?? "unnamed"} hash`);
  return { salt: base64(attributes, "saltValue"), blockBytes: integer(attributes, "blockSize"), keyBits, hashAlgorithm, cipher: `aes-${keyBits}-cbc` };
}

function readDescriptor(xml: string): { keyData: CipherParameters; password: PasswordEncryptor } {
  const encryption = parseXml(xml, "encryption description");
  const keyData = firstChild(encryption, "keyData");
  if (encryption.local !== "encryption" || !keyData) throw damaged("no keyData");
  const keyEncryptors = firstChild(encryption, "keyEncryptors");
  const passwordEntry = keyEncryptors && childElements(keyEncryptors, "keyEncryptor").find((candidate) => attribute(candidate, "uri") === PASSWORD_KEY_ENCRYPTOR);
  const encryptor = passwordEntry && firstChild(passwordEntry, "encryptedKey")?.attributes;
  if (!encryptor) throw unsupported("a certificate instead of a password");
  const spinCount = integer(encryptor, "spinCount");
  if (spinCount > MAX_SPIN_COUNT) throw damaged(`spin count ${spinCount}`);
  return {
    keyData: cipherParameters(keyData.attributes),
    password: {
      ...cipherParameters(encryptor),
      spinCount,
      encryptedVerifierHashInput: base64(encryptor, "encryptedVerifierHashInput"),
      encryptedVerifierHashValue: base64(encryptor, "encryptedVerifierHashValue"),
      encryptedKeyValue: base64(encryptor, "encryptedKeyValue"),
    },
  };
}

function hash(algorithm: string, ...parts: Uint8Array[]): Buffer {
  const digest = createHash(algorithm);
  for (const part of parts) digest.update(part);
  return digest.digest();
}

/** Truncates, or pads with 0x36 as the spec says, to the wanted length. */
function fit(bytes: Uint8Array, length: number): Buffer {
  const fitted = Buffer.alloc(length, 0x36);
  fitted.set(bytes.subarray(0, length));
  return fitted;
}

function decrypt(cipher: string, key: Uint8Array, iv: Uint8Array, data: Uint8Array): Buffer {
  const whole = data.subarray(0, data.length - (data.length % 16));
  const decipher = createDecipheriv(cipher, key, iv);
  decipher.setAutoPadding(false);
  return Buffer.concat([decipher.update(whole), decipher.final()]);
}

function passwordHash(encryptor: PasswordEncryptor, password: string): Buffer {
  let current = hash(encryptor.hashAlgorithm, encryptor.salt, Buffer.from(password, "utf16le"));
  const iterator = Buffer.alloc(4);
  for (let round = 0; round < encryptor.spinCount; round++) {
    iterator.writeUInt32LE(round, 0);
    current = createHash(encryptor.hashAlgorithm).update(iterator).update(current).digest();
  }
  return current;
}

/** Decrypts an Agile EncryptedPackage stream to the package (zip) bytes. */
export function decryptAgile(descriptorXml: string, encryptedPackage: Uint8Array, password: string): Uint8Array {
  const { keyData, password: encryptor } = readDescriptor(descriptorXml);
  const base = passwordHash(encryptor, password);
  const keyFor = (blockKey: Uint8Array) => fit(hash(encryptor.hashAlgorithm, base, blockKey), encryptor.keyBits / 8);
  const iv = fit(encryptor.salt, encryptor.blockBytes);

  const verifierInput = decrypt(encryptor.cipher, keyFor(BLOCK_KEY_VERIFIER_INPUT), iv, encryptor.encryptedVerifierHashInput).subarray(0, encryptor.salt.length);
  const verifierHash = decrypt(encryptor.cipher, keyFor(BLOCK_KEY_VERIFIER_VALUE), iv, encryptor.encryptedVerifierHashValue);
  const expected = hash(encryptor.hashAlgorithm, verifierInput);
  if (!verifierHash.subarray(0, expected.length).equals(expected)) {
    throw new ChunkpadError("PARSE_WRONG_PASSWORD", "the password given does not open this document; check it");
  }
  const key = decrypt(encryptor.cipher, keyFor(BLOCK_KEY_ENCRYPTED_KEY), iv, encryptor.encryptedKeyValue).subarray(0, keyData.keyBits / 8);

  if (encryptedPackage.length < 8) throw damaged("the encrypted package is empty");
  const size = Number(new DataView(encryptedPackage.buffer, encryptedPackage.byteOffset, 8).getBigUint64(0, true));
  const body = encryptedPackage.subarray(8);
  if (size > body.length) throw damaged("the encrypted package is shorter than it says");
  const output = new Uint8Array(body.length);
  const segmentIndex = Buffer.alloc(4);
  for (let offset = 0, segment = 0; offset < body.length; offset += SEGMENT_BYTES, segment++) {
    segmentIndex.writeUInt32LE(segment, 0);
    const segmentIv = fit(hash(keyData.hashAlgorithm, keyData.salt, segmentIndex), keyData.blockBytes);
    output.set(decrypt(keyData.cipher, key, segmentIv, body.subarray(offset, offset + SEGMENT_BYTES)), offset);
  }
  return output.subarray(0, size);
}
