import { ChunkpadError } from "../../core/errors.js";
import { readStream, writeOle, type OleContainer } from "./ole.js";
import { cryptoApiRc4Keys, legacyRc4Keys, rc4Stream, verifyRc4Password, type BlockKeys } from "./rc4.js";

/** Word 97-2003 File Information Block (MS-DOC 2.5.2): the fields encryption touches. */
const FIB_IDENTIFIER = 0xa5ec;
const FIB_FLAGS_OFFSET = 0x0a;
const FIB_KEY_OFFSET = 0x0e;
/** FibBase stays in clear text; everything after it is encrypted. */
const FIB_BASE_BYTES = 0x44;
const FLAG_ENCRYPTED = 0x0100;
const FLAG_TABLE_ONE = 0x0200;
const FLAG_OBFUSCATED = 0x8000;

export type WordEncryption = "none" | "rc4" | "xor";

function view(bytes: Uint8Array): DataView {
  return new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
}

/** How a Word 97-2003 WordDocument stream is protected, judged from its FIB flags. */
export function wordEncryption(wordDocument: Uint8Array): WordEncryption {
  if (wordDocument.length < FIB_BASE_BYTES) return "none";
  const flags = view(wordDocument).getUint16(FIB_FLAGS_OFFSET, true);
  if ((flags & FLAG_ENCRYPTED) === 0) return "none";
  return (flags & FLAG_OBFUSCATED) !== 0 ? "xor" : "rc4";
}

export function isWordDocumentStream(wordDocument: Uint8Array): boolean {
  return wordDocument.length >= FIB_BASE_BYTES && view(wordDocument).getUint16(0, true) === FIB_IDENTIFIER;
}

interface Rc4Header {
  keys: BlockKeys;
  verified: boolean;
}

function readRc4Header(table: Uint8Array, password: string): Rc4Header {
  if (table.length < 52) throw new ChunkpadError("PARSE_MALFORMED", "the document's encryption header is cut short; the file is damaged");
  const data = view(table);
  const major = data.getUint16(0, true);
  const minor = data.getUint16(2, true);
  if (major === 1 && minor === 1) {
    const keys = legacyRc4Keys(password, table.subarray(4, 20));
    return { keys, verified: verifyRc4Password(keys, "md5", table.subarray(20, 36), table.subarray(36, 52)) };
  }
  if ((major === 2 || major === 3 || major === 4) && minor === 2) {
    const headerBytes = data.getUint32(8, true);
    const header = 12;
    const verifier = header + headerBytes;
    if (verifier + 60 > table.length) throw new ChunkpadError("PARSE_MALFORMED", "the document's encryption header is cut short; the file is damaged");
    const keyBits = data.getUint32(header + 16, true);
    const salt = table.subarray(verifier + 4, verifier + 20);
    const keys = cryptoApiRc4Keys(password, salt, keyBits);
    return { keys, verified: verifyRc4Password(keys, "sha1", table.subarray(verifier + 20, verifier + 36), table.subarray(verifier + 40, verifier + 60)) };
  }
  throw new ChunkpadError("PARSE_ENCRYPTED", `the document uses an encryption Chunkpad cannot open (version ${major}.${minor}); save it without a password and run again`);
}

/**
 * Decrypts an RC4 or RC4 CryptoAPI encrypted Word 97-2003 document (MS-DOC 2.2.6.2) and
 * returns an unencrypted compound file, as Word would save it without a password.
 */
export function decryptWordBinary(container: OleContainer, password: string): Uint8Array {
  const wordDocument = readStream(container, "WordDocument");
  if (!wordDocument || !isWordDocumentStream(wordDocument)) throw new ChunkpadError("PARSE_MALFORMED", "this is not a Word 97-2003 document");
  const encryption = wordEncryption(wordDocument);
  if (encryption === "xor") {
    throw new ChunkpadError("PARSE_ENCRYPTED", "the document is protected with Word's old XOR obfuscation, which Chunkpad cannot open; save it without a password and run again");
  }
  if (encryption === "none") return writeOle(container, new Map());
  const tableName = (view(wordDocument).getUint16(FIB_FLAGS_OFFSET, true) & FLAG_TABLE_ONE) !== 0 ? "1Table" : "0Table";
  const table = readStream(container, tableName);
  if (!table) throw new ChunkpadError("PARSE_MALFORMED", `the document has no ${tableName} stream; the file is damaged`);
  const { keys, verified } = readRc4Header(table, password);
  if (!verified) throw new ChunkpadError("PARSE_WRONG_PASSWORD", "the password given does not open this document; check it");

  const plainWordDocument = rc4Stream(keys, wordDocument);
  plainWordDocument.set(wordDocument.subarray(0, FIB_BASE_BYTES));
  const fib = view(plainWordDocument);
  fib.setUint16(FIB_FLAGS_OFFSET, fib.getUint16(FIB_FLAGS_OFFSET, true) & ~(FLAG_ENCRYPTED | FLAG_OBFUSCATED), true);
  fib.setUint32(FIB_KEY_OFFSET, 0, true);

  const replacements = new Map<string, Uint8Array>([
    ["WordDocument", plainWordDocument],
    [tableName, rc4Stream(keys, table)],
  ]);
  const dataStream = readStream(container, "Data");
  if (dataStream) replacements.set("Data", rc4Stream(keys, dataStream));
  return writeOle(container, replacements);
}
