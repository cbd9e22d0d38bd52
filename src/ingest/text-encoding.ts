import iconv from "iconv-lite";

/**
 * Turns the bytes of a text-like file into a string. Order of evidence: a byte order mark,
 * then a charset the file declares (HTML meta, XML declaration), then NUL-byte patterns of
 * BOM-less UTF-16, then strict UTF-8, and finally a guess among the legacy encodings browsers
 * fall back to (GBK, Big5, Shift_JIS, EUC-JP, EUC-KR, windows-1251, windows-1252), by which
 * one turns the bytes into the most common letters of its language (see sniffLegacyEncoding).
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

/** WHATWG labels iconv-lite does not know, or decodes more narrowly than browsers do. */
const LEGACY_LABELS: Record<string, string> = {
  gb2312: "gb18030", gbk: "gb18030", "x-gbk": "gb18030", chinese: "gb18030", csgb2312: "gb18030", "gb_2312-80": "gb18030", "iso-ir-58": "gb18030",
  "ks_c_5601-1987": "euc-kr", ksc5601: "euc-kr", "ks_c_5601-1989": "euc-kr", "windows-949": "euc-kr", cseuckr: "euc-kr",
  "x-sjis": "shift_jis", ms_kanji: "shift_jis", "windows-31j": "shift_jis", csshiftjis: "shift_jis", sjis: "shift_jis",
  "big5-hkscs": "big5hkscs", "cn-big5": "big5", "x-x-big5": "big5", csbig5: "big5",
};

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
  // Pairs that read as one printable ASCII character in either byte order.
  let asciiLittle = 0;
  let asciiBig = 0;
  const printable = (byte: number | undefined): boolean => byte !== undefined && (byte === 0x09 || byte === 0x0a || byte === 0x0d || (byte >= 0x20 && byte < 0x7f));
  for (let index = 0; index < length; index += 2) {
    if (data[index] === 0) evenNuls++;
    if (data[index + 1] === 0) oddNuls++;
    if (data[index + 1] === 0 && printable(data[index])) asciiLittle++;
    if (data[index] === 0 && printable(data[index + 1])) asciiBig++;
  }
  const pairs = length / 2;
  if (oddNuls >= pairs * 0.3 && evenNuls <= pairs * 0.05) return "utf-16le";
  if (evenNuls >= pairs * 0.3 && oddNuls <= pairs * 0.05) return "utf-16be";
  // Mostly CJK text has few ASCII characters, but their NULs still all fall on one side.
  if (oddNuls >= 2 && evenNuls === 0 && asciiLittle === oddNuls) return "utf-16le";
  if (evenNuls >= 2 && oddNuls === 0 && asciiBig === evenNuls) return "utf-16be";
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
  const legacy = sniffLegacyEncoding(data);
  return { text: legacy.text, encoding: legacy.encoding };
}

/** Bytes looked at to guess a legacy encoding. */
const LEGACY_SNIFF_BYTES = 64 * 1024;

/** The most frequent characters of each language, which a right guess produces often and a wrong one rarely. */
const COMMON_CHARACTERS: Record<string, string> = {
  gb18030: "的一是不了在人有我他这个们中来上大为和国地到以说时要就出会可也你对生能而子那得于着下自之年过发后作里用道行所然家种事成方多经么去法学如都同现当没动面起看定天分还进好小部其些主样理心。，、",
  big5: "的一是不了在人有我他這個們中來上大為和國地到以說時要就出會可也你對生能而子那得於著下自之年過發後作裡用道行所然家種事成方多經麼去法學如都同現當沒動面起看定天分還進好小部其些主樣理心。，、",
  shift_jis: "のにはをたがでてとしれさあいうかなっるすまもこらょンルスートイク日本人年大。、",
  "euc-jp": "のにはをたがでてとしれさあいうかなっるすまもこらょンルスートイク日本人年大。、",
  "euc-kr": "이다의는에을하고가한지서로기사리들으습니있도나를대수적시자정은국일여과해아것요했전어우까내상만와보게",
  "windows-1251": "оеаинтсрвлкмдп",
  "windows-1252": "éèàùâêîôûçëïüÿœæÉÈÀÇäöüßÄÖÜáíóúñÁÍÓÚÑãõÃÕåøÅØ",
};

/**
 * Guesses the legacy encoding of bytes that are not UTF-8, as browsers do when a page declares
 * nothing: each candidate decodes the bytes, and the one whose non-ASCII characters are most
 * often its language's common letters wins; undecodable sequences count against it. Runs of
 * bytes above 0x7f tell multi-byte and Cyrillic text (long runs) from Western text (an accent
 * here and there); windows-1252 wins ties and stays the answer when nothing fits better.
 */
export function sniffLegacyEncoding(data: Uint8Array): DecodedText {
  const sample = Buffer.from(data.buffer, data.byteOffset, Math.min(data.byteLength, LEGACY_SNIFF_BYTES));
  let runs = 0;
  let highBytes = 0;
  for (let index = 0; index < sample.length; index++) {
    if ((sample[index] ?? 0) < 0x80) continue;
    highBytes++;
    if (index === 0 || (sample[index - 1] ?? 0) < 0x80) runs++;
  }
  const meanRun = runs === 0 ? 0 : highBytes / runs;
  let best = { encoding: "windows-1252", score: 0 };
  for (const [encoding, common] of Object.entries(COMMON_CHARACTERS)) {
    const multiByte = encoding !== "windows-1252" && encoding !== "windows-1251";
    if (multiByte && meanRun < 1.8) continue;
    const decoded = iconv.decode(sample, encoding);
    let nonAscii = 0;
    let hits = 0;
    let bad = 0;
    for (const character of decoded) {
      if (character.charCodeAt(0) < 0x80) continue;
      nonAscii++;
      if (common.includes(character)) hits++;
      else if (character === "\ufffd" || /[\u0080-\u009f]/.test(character)) bad++;
    }
    if (nonAscii === 0) continue;
    // A Western text has short runs; read as Cyrillic it would be all letters, so runs decide.
    const runFit = encoding === "windows-1251" ? Math.min(1, meanRun / 3) : encoding === "windows-1252" ? Math.min(1, 2 / Math.max(1, meanRun)) : 1;
    const score = ((hits - 4 * bad) / nonAscii) * runFit;
    if (score > best.score) best = { encoding, score };
  }
  return { text: decodeWith(best.encoding, data), encoding: best.encoding };
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
  const legacy = LEGACY_LABELS[lower];
  if (legacy) return legacy;
  // A page saved from a browser may claim UTF-16 while its bytes are UTF-8; trust the bytes.
  if (lower.startsWith("utf-16") || lower.startsWith("utf16")) return "utf-8";
  return lower;
}
