import { ChunkpadError } from "../core/errors.js";
import type { ParsedDocument, ParseInput, Parser } from "../core/types.js";
import { decryptAgile } from "./office-crypto/agile.js";
import { readOle, readStream, type OleContainer } from "./office-crypto/ole.js";
import { decryptStandard } from "./office-crypto/standard.js";
import { isWordDocumentStream, wordEncryption } from "./office-crypto/word-binary.js";

/**
 * "agile" and "standard": an encrypted .docx/.xlsx/.pptx (ECMA-376) inside an OLE container.
 * "rc4": an encrypted Office 97-2003 binary file (.doc, .xls, .ppt), whatever its scheme
 * (RC4, RC4 CryptoAPI or XOR obfuscation).
 */
export type OfficeEncryption = "agile" | "standard" | "rc4";

/** Excel's FilePass record, which marks an encrypted workbook; BOF and EOF bound the globals. */
const XLS_FILEPASS = 0x002f;
const XLS_EOF = 0x000a;
const XLS_RECORDS_TO_SCAN = 1_000;
/** PowerPoint's CurrentUserAtom header token for an encrypted presentation. */
const PPT_ENCRYPTED_TOKEN = 0xf3d1c4df;

function encryptionInfoVersion(info: Uint8Array): OfficeEncryption | undefined {
  if (info.length < 8) return undefined;
  const data = new DataView(info.buffer, info.byteOffset, info.byteLength);
  const major = data.getUint16(0, true);
  const minor = data.getUint16(2, true);
  if (major === 4 && minor === 4) return "agile";
  if ((major === 2 || major === 3 || major === 4) && minor === 2) return "standard";
  return undefined;
}

function workbookIsEncrypted(workbook: Uint8Array): boolean {
  const data = new DataView(workbook.buffer, workbook.byteOffset, workbook.byteLength);
  let offset = 0;
  for (let record = 0; record < XLS_RECORDS_TO_SCAN && offset + 4 <= workbook.length; record++) {
    const type = data.getUint16(offset, true);
    if (type === XLS_FILEPASS) return true;
    if (type === XLS_EOF) return false;
    offset += 4 + data.getUint16(offset + 2, true);
  }
  return false;
}

function legacyIsEncrypted(container: OleContainer): boolean {
  const wordDocument = readStream(container, "WordDocument");
  if (wordDocument && isWordDocumentStream(wordDocument)) return wordEncryption(wordDocument) !== "none";
  const workbook = readStream(container, "Workbook") ?? readStream(container, "Book");
  if (workbook) return workbookIsEncrypted(workbook);
  const currentUser = readStream(container, "Current User");
  if (currentUser && currentUser.length >= 16) {
    return new DataView(currentUser.buffer, currentUser.byteOffset, currentUser.byteLength).getUint32(12, true) === PPT_ENCRYPTED_TOKEN;
  }
  return false;
}

/** Which encryption protects this Office file; null when it is not an encrypted OLE container. */
export function detectOfficeEncryption(data: Uint8Array): OfficeEncryption | null {
  const container = readOle(data);
  if (!container) return null;
  const info = readStream(container, "EncryptionInfo");
  if (info && readStream(container, "EncryptedPackage")) return encryptionInfoVersion(info) ?? "standard";
  return legacyIsEncrypted(container) ? "rc4" : null;
}

/**
 * Decrypts an encrypted .docx/.xlsx/.pptx to its package (zip) bytes. Throws PARSE_WRONG_PASSWORD
 * for a wrong password, PARSE_ENCRYPTED for an encryption it cannot open, PARSE_MALFORMED for
 * a damaged or non-OOXML container.
 */
export function decryptOoxml(data: Uint8Array, password: string): Uint8Array {
  const container = readOle(data);
  const info = container && readStream(container, "EncryptionInfo");
  const encryptedPackage = container && readStream(container, "EncryptedPackage");
  if (!info || !encryptedPackage) {
    throw new ChunkpadError("PARSE_MALFORMED", "this is not an encrypted Office Open XML file (no EncryptionInfo and EncryptedPackage streams)");
  }
  const kind = encryptionInfoVersion(info);
  if (kind === "agile") return decryptAgile(Buffer.from(info.subarray(8)).toString("utf8"), encryptedPackage, password);
  if (kind === "standard") return decryptStandard(info, encryptedPackage, password);
  throw new ChunkpadError("PARSE_ENCRYPTED", "the document uses an encryption Chunkpad cannot open (extensible or unknown); save it with standard AES encryption or without a password");
}

function isZip(data: Uint8Array): boolean {
  return data[0] === 0x50 && data[1] === 0x4b;
}

/**
 * Wraps a parser of a zip-based Office format: an encrypted file is decrypted with the user's
 * password and the package handed on; anything else passes through unchanged.
 */
export function withOfficeDecryption(parser: Parser): Parser {
  return {
    name: parser.name,
    extensions: parser.extensions,
    async parse(input: ParseInput): Promise<ParsedDocument> {
      const encryption = detectOfficeEncryption(input.data);
      if (encryption === null) return parser.parse(input);
      if (encryption === "rc4") {
        throw new ChunkpadError(
          "PARSE_MALFORMED",
          `${input.path} is an encrypted Office 97-2003 file (.doc, .xls or .ppt), not a ${parser.name} file; give it its real extension`,
        );
      }
      if (input.password === undefined || input.password === "") {
        throw new ChunkpadError("PARSE_ENCRYPTED", "encrypted: password required", { details: { encryption } });
      }
      const decrypted = decryptOoxml(input.data, input.password);
      if (!isZip(decrypted)) {
        throw new ChunkpadError("PARSE_MALFORMED", `${input.path} decrypted to something that is not an Office Open XML package; the file is damaged`);
      }
      return parser.parse({ ...input, data: decrypted });
    },
  };
}
