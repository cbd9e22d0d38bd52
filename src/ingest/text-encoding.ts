import iconv from "iconv-lite";

/**
 * Turns the bytes of a text-like file into a string. Order of evidence: a byte order mark,
 * then a charset the file declares (HTML meta, XML declaration), then NUL-byte patterns of
 * BOM-less UTF-16, then strict UTF-8, and finally windows-1252, the legacy 8-bit encoding
 * most old Western files use (every byte sequence decodes, so this never fails).
 */
export interface DecodedText {
  text: string;
  /** WHATWG-style label of the encoding used ("utf-8", "utf-16le", "windows-1252", ...). */
  encoding: string;
}

export interface DecodeTextOptions {
  /** A charset the document declares about itself; a BOM still wins over it. */
  declaredEncoding?: string;
}

/** Bytes looked at to recognise BOM-less UTF-16. */
const SNIFF_LENGTH_BYTES = 4096;

interface Bom {
  encoding: string;
  length: number;
}

export function detectBom(data: Uint8Array): Bom | undefined {
  const [b0, b1, b2, b3] = data;
  if (b0 === 0xef && b1 === 0xbb && b2 === 0xbf) return { encoding: "utf-8", length: 3 };
  // UTF-32LE's BOM starts like UTF-16LE's, so it is checked first.
  if (b0 === 0xff && b1 === 0xfe && b2 === 0x00 && b3 === 0x00) return { encoding: "utf-32le", length: 4 };
  if (b0 === 0x00 && b1 === 0x00 && b2 === 0xfe && b3 === 0xff) return { encoding: "utf-32be", length: 4 };
  if (b0 === 0xff && b1 === 0xfe) return { encoding: "utf-16le", length: 2 };
  if (b0 === 0xfe && b1 === 0xff) return { encoding: "utf-16be", length: 2 };
  return undefined;
}

/** "utf-16le" when most odd bytes are NUL (ASCII in UTF-16LE), "utf-16be" for the mirror case. */
export function sniffUtf16(data: Uint8Array): string | undefined {
  const length = Math.min(data.length, SNIFF_LENGTH_BYTES) & ~1;
  if (length < 2) return undefined;
  let evenNuls = 0;
  let oddNuls = 0;
  for (let index = 0; index < length; index += 2) {
    if (data[index] === 0) evenNuls++;
    if (data[index + 1] === 0) oddNuls++;
  }
  const pairs = length / 2;
  if (oddNuls >= pairs * 0.3 && evenNuls <= pairs * 0.05) return "utf-16le";
  if (evenNuls >= pairs * 0.3 && oddNuls <= pairs * 0.05) return "utf-16be";
  return undefined;
}

export function decodeText(data: Uint8Array, options: DecodeTextOptions = {}): DecodedText {
  const bom = detectBom(data);
  if (bom) return { text: decodeWith(bom.encoding, data.subarray(bom.length)), encoding: bom.encoding };

  const declared = normalizeLabel(options.declaredEncoding);
  const utf16 = sniffUtf16(data);
  if (utf16) return { text: decodeWith(utf16, data), encoding: utf16 };

  if (declared && declared !== "utf-8" && iconv.encodingExists(declared)) {
    return { text: decodeWith(declared, data), encoding: declared };
  }
  const utf8 = decodeStrictUtf8(data);
  if (utf8 !== undefined) return { text: utf8, encoding: "utf-8" };
  return { text: decodeWith("windows-1252", data), encoding: "windows-1252" };
}

function decodeStrictUtf8(data: Uint8Array): string | undefined {
  try {
    return new TextDecoder("utf-8", { fatal: true, ignoreBOM: true }).decode(data);
  } catch {
    return undefined;
  }
}

function decodeWith(encoding: string, data: Uint8Array): string {
  if (encoding === "utf-8") return new TextDecoder("utf-8", { ignoreBOM: true }).decode(data);
  return iconv.decode(Buffer.from(data.buffer, data.byteOffset, data.byteLength), encoding, { stripBOM: false });
}

/**
 * Maps a declared charset to the decoder to use. As browsers do (WHATWG Encoding), Latin-1 and
 * ASCII labels mean windows-1252, which is a superset of both.
 */
function normalizeLabel(label: string | undefined): string | undefined {
  if (!label) return undefined;
  const lower = label.trim().toLowerCase();
  if (lower === "") return undefined;
  if (["utf8", "utf-8", "unicode-1-1-utf-8"].includes(lower)) return "utf-8";
  if (["iso-8859-1", "iso8859-1", "latin1", "latin-1", "l1", "ascii", "us-ascii", "cp1252", "x-cp1252"].includes(lower)) {
    return "windows-1252";
  }
  // A page saved from a browser may claim UTF-16 while its bytes are UTF-8; trust the bytes.
  if (lower.startsWith("utf-16") || lower.startsWith("utf16")) return "utf-8";
  return lower;
}
