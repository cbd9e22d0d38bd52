import iconv from "iconv-lite";

/** RTF's default when a document names no code page (\ansi). */
export const DEFAULT_CODE_PAGE = 1252;

/** Windows font charsets (\fcharsetN) to code pages; 0 and 1 mean "the document's". */
const CHARSET_CODE_PAGES: ReadonlyMap<number, number> = new Map([
  [2, 1252], // Symbol: no real code page; Western keeps bullets readable
  [77, 10000],
  [128, 932],
  [129, 949],
  [130, 1361],
  [134, 936],
  [136, 950],
  [161, 1253],
  [162, 1254],
  [163, 1258],
  [177, 1255],
  [178, 1256],
  [186, 1257],
  [204, 1251],
  [222, 874],
  [238, 1250],
  [254, 437],
  [255, 850],
]);

/** Code pages whose characters may take two bytes, with their lead-byte ranges. */
const DOUBLE_BYTE_LEADS: ReadonlyMap<number, ReadonlyArray<readonly [number, number]>> = new Map([
  [932, [[0x81, 0x9f], [0xe0, 0xfc]]],
  [936, [[0x81, 0xfe]]],
  [949, [[0x81, 0xfe]]],
  [950, [[0x81, 0xfe]]],
]);

/** The code page a font's charset selects, or undefined when the document's applies. */
export function codePageForCharset(charset: number, documentCodePage: number): number | undefined {
  if (charset === 0) {
    // ANSI_CHARSET: strictly Western, but sloppy writers tag everything 0 and rely on
    // \ansicpg. Only a double-byte document's Latin fonts are surely Western.
    return isDoubleByte(documentCodePage) ? DEFAULT_CODE_PAGE : undefined;
  }
  return CHARSET_CODE_PAGES.get(charset);
}

export function isDoubleByte(codePage: number): boolean {
  return DOUBLE_BYTE_LEADS.has(codePage);
}

export function isLeadByte(codePage: number, byte: number): boolean {
  const ranges = DOUBLE_BYTE_LEADS.get(codePage);
  if (!ranges) return false;
  return ranges.some(([low, high]) => byte >= low && byte <= high);
}

/** Code pages whose iconv-lite name is not simply "windows-N" or "cpN". */
const NAMED_CODE_PAGES: ReadonlyMap<number, string> = new Map([
  [10000, "macintosh"],
  [10007, "maccyrillic"],
  [20866, "koi8-r"],
  [21866, "koi8-u"],
  [51932, "euc-jp"],
  [54936, "gb18030"],
  [65001, "utf8"],
]);

function encodingName(codePage: number): string | undefined {
  const named = NAMED_CODE_PAGES.get(codePage);
  const isoPart = codePage - 28590;
  const candidates = named
    ? [named]
    : isoPart >= 1 && isoPart <= 16
      ? [`iso-8859-${isoPart}`]
      : codePage >= 1250 && codePage <= 1258
        ? [`windows-${codePage}`]
        : [`cp${codePage}`, `windows-${codePage}`];
  return candidates.find((name) => iconv.encodingExists(name));
}

/** True when bytes in this code page can be decoded (otherwise Western is used). */
export function isKnownCodePage(codePage: number): boolean {
  return encodingName(codePage) !== undefined;
}

/** Decodes bytes written in a Windows code page; unknown code pages read as Western. */
export function decodeCodePage(bytes: Uint8Array, codePage: number): string {
  const name = encodingName(codePage) ?? `windows-${DEFAULT_CODE_PAGE}`;
  return iconv.decode(Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength), name);
}
