import { ChunkpadError } from "../core/errors.js";
import type { ParsedBlock, ParsedDocument } from "../core/types.js";

/**
 * Text that extraction mangled must not be indexed as if it were fine: a PDF whose fonts map
 * to symbols or to letters of unrelated scripts, a text file in EBCDIC, a rights-management
 * placeholder. Each check is a cheap statistic of the extracted text; the thresholds sit far
 * from what real text of any language gives, so a false alarm needs a very odd document.
 */

/** Too little text to judge. */
const MIN_JUDGED_CHARACTERS = 40;
const MAX_PRIVATE_USE_SHARE = 0.3;
const MAX_UNDECODABLE_SHARE = 0.1;
const MIN_WORD_CHARACTER_SHARE = 0.35;
/** A script counts as present from this share of the letters; three present scripts is garbage. */
const PRESENT_SCRIPT_SHARE = 0.12;
const MAX_PRESENT_SCRIPTS = 2;
const MIN_JUDGED_WORDS = 30;
const MAX_VOWELLESS_WORD_SHARE = 0.45;

/** Script families: Han, kana and hangul together, since CJK text mixes them. */
const SCRIPTS: ReadonlyArray<[string, RegExp]> = [
  ["Latin", /\p{Script=Latin}/u],
  ["Cyrillic", /\p{Script=Cyrillic}/u],
  ["Greek", /\p{Script=Greek}/u],
  ["Arabic", /\p{Script=Arabic}/u],
  ["Hebrew", /\p{Script=Hebrew}/u],
  ["CJK", /[\p{Script=Han}\p{Script=Hiragana}\p{Script=Katakana}\p{Script=Hangul}]/u],
  ["Devanagari", /\p{Script=Devanagari}/u],
  ["Thai", /\p{Script=Thai}/u],
];

/** What garbledReason counts of one character: bit flags, and its script family + 1 (0: not a letter) above them. */
const PRIVATE_USE = 1;
const UNDECODABLE = 2;
const WORD_CHARACTER = 4;
const SCRIPT_SHIFT = 3;
/** Set on every classified entry, so 0 means "not classified yet". */
const CLASSIFIED = 0x80;
const SCRIPT_NAMES = [...SCRIPTS.map(([name]) => name), "other"];

function classifyCharacter(character: string): number {
  let flags = CLASSIFIED;
  if (/\p{Co}/u.test(character)) flags |= PRIVATE_USE;
  else if (character === "\ufffd" || /\p{Cc}/u.test(character)) flags |= UNDECODABLE;
  if (/[\p{L}\p{N}]/u.test(character)) flags |= WORD_CHARACTER;
  if (!/\p{L}/u.test(character)) return flags;
  const script = SCRIPTS.findIndex(([, pattern]) => pattern.test(character));
  return flags | ((script === -1 ? SCRIPT_NAMES.length : script + 1) << SCRIPT_SHIFT);
}

/**
 * Each code point classified once per thread (1.1 MB): the regular expressions above, run per
 * character of every document, were most of a markdown file's quality check (≈ 2.5 ms a 4 KB
 * file; now ≈ 0.3).
 */
let characterClasses: Uint8Array | undefined;

/** Why the text is garbage, or undefined when it reads as text. */
export function garbledReason(text: string): string | undefined {
  // Table rules and dot leaders (a table of contents) are layout, not symbols.
  const characters = text.replace(/[\s|]+|-{3,}|(?:[.·…_]\s*){3,}/g, "");
  if (characters.length < MIN_JUDGED_CHARACTERS) return undefined;
  const classes = (characterClasses ??= new Uint8Array(0x110000));
  let total = 0;
  let privateUse = 0;
  let undecodable = 0;
  let wordCharacters = 0;
  const scriptCounts = new Array<number>(SCRIPT_NAMES.length + 1).fill(0);
  let letters = 0;
  for (let index = 0; index < characters.length; index++) {
    const point = characters.codePointAt(index) ?? 0;
    if (point > 0xffff) index++;
    total++;
    let flags = classes[point] ?? 0;
    if (flags === 0) classes[point] = flags = classifyCharacter(String.fromCodePoint(point));
    if (flags & PRIVATE_USE) privateUse++;
    if (flags & UNDECODABLE) undecodable++;
    if (flags & WORD_CHARACTER) wordCharacters++;
    const script = (flags & ~CLASSIFIED) >> SCRIPT_SHIFT;
    if (script > 0) {
      letters++;
      scriptCounts[script] = (scriptCounts[script] ?? 0) + 1;
    }
  }
  if (total < MIN_JUDGED_CHARACTERS) return undefined;
  if (privateUse / total > MAX_PRIVATE_USE_SHARE) return "its characters are private-use symbols (the fonts have no mapping to Unicode)";
  if (undecodable / total > MAX_UNDECODABLE_SHARE) return "it is full of undecodable bytes";
  if (wordCharacters / total < MIN_WORD_CHARACTER_SHARE) return "it is mostly symbols, not words";
  if (letters >= MIN_JUDGED_CHARACTERS) {
    const present = scriptCounts.filter((count) => count / letters >= PRESENT_SCRIPT_SHARE).length;
    if (present > MAX_PRESENT_SCRIPTS) return "its letters jump between unrelated scripts (the fonts map to the wrong characters)";
  }
  const words = text.toLowerCase().match(/(?<![\p{L}\p{N}])[a-z]{4,}(?![\p{L}\p{N}])/gu) ?? [];
  if (words.length >= MIN_JUDGED_WORDS) {
    const vowelless = words.filter((word) => !/[aeiouy]/.test(word)).length;
    if (vowelless / words.length > MAX_VOWELLESS_WORD_SHARE) return "its letters do not form words (the fonts map to the wrong letters)";
  }
  return undefined;
}

/** Phrases of the placeholder a rights-managed (IRM/DRM) document shows to a reader without rights. */
const RIGHTS_PLACEHOLDER =
  /\b(?:permission (?:to (?:view|access) this (?:document|content) )?is (?:currently )?restricted|this (?:document|message|file) (?:has|is) restricted permission|information rights management|rights[- ]protected (?:document|message|content)|protected by (?:drm|digital rights management))\b/i;
/** A placeholder is short; a long document that mentions IRM is not one. */
const MAX_PLACEHOLDER_CHARACTERS = 3_000;

export function isRightsPlaceholder(text: string): boolean {
  return text.length <= MAX_PLACEHOLDER_CHARACTERS && RIGHTS_PLACEHOLDER.test(text);
}

/**
 * EBCDIC (mainframe) text: the space is 0x40 and letters sit above 0x80, so an EBCDIC file has
 * many 0x40 bytes, almost no 0x20 bytes and mostly high bytes.
 */
export function looksLikeEbcdic(data: Uint8Array): boolean {
  const length = Math.min(data.length, 8192);
  if (length < 64) return false;
  let at = 0;
  let space = 0;
  let high = 0;
  for (let index = 0; index < length; index++) {
    const byte = data[index] ?? 0;
    if (byte === 0x40) at++;
    else if (byte === 0x20) space++;
    else if (byte >= 0x80) high++;
  }
  return at / length > 0.08 && space / length < 0.01 && high / length > 0.4;
}

/** A block on a garbled page that reads as text on its own: few control or private-use characters, and words. */
function blockLooksClean(text: string): boolean {
  const characters = Array.from(text.replace(/\s+/g, ""));
  if (characters.length === 0) return false;
  const bad = characters.filter((character) => character === "\ufffd" || /[\p{Cc}\p{Co}]/u.test(character)).length;
  if (bad / characters.length > MAX_UNDECODABLE_SHARE) return false;
  return characters.length < MIN_JUDGED_CHARACTERS ? /\p{L}{2,}/u.test(text) : garbledReason(text) === undefined;
}

function garbled(message: string): ChunkpadError {
  return new ChunkpadError("PARSE_GARBLED", message);
}

/**
 * Checks a parsed document's text. Garbled pages of a paged document are dropped with a
 * warning; a document whose text is all garbage, or a rights-management placeholder, is
 * rejected with PARSE_GARBLED so it is reported, not indexed.
 */
export function checkTextQuality(document: ParsedDocument): ParsedDocument {
  const allText = document.blocks.map((block) => block.text).join("\n");
  if (isRightsPlaceholder(allText)) {
    throw garbled("the document is protected by rights management (IRM/DRM): only its placeholder text (\"permission is restricted\") is readable; open it with an account that has the rights and save an unprotected copy");
  }
  const paged = document.blocks.some((block) => block.page !== undefined);
  if (!paged) {
    const reason = garbledReason(allText);
    if (reason) throw garbled(`the extracted text is garbage: ${reason}; it was not indexed. Re-export the document (for a PDF, print it to PDF again or OCR it)`);
    return document;
  }
  const byPage = new Map<number, ParsedBlock[]>();
  for (const block of document.blocks) byPage.set(block.page ?? 0, [...(byPage.get(block.page ?? 0) ?? []), block]);
  const dropped = new Map<number, string>();
  for (const [page, blocks] of byPage) {
    const reason = garbledReason(blocks.map((block) => block.text).join("\n"));
    if (reason) dropped.set(page, reason);
  }
  if (dropped.size === 0) return document;
  // On a garbled page, blocks in a font that did map (often the headings) still count.
  const kept = document.blocks.filter((block) => !dropped.has(block.page ?? 0) || blockLooksClean(block.text));
  const [firstReason] = dropped.values();
  if (kept.every((block) => block.text.trim() === "")) {
    throw garbled(`the extracted text is garbage: ${firstReason ?? ""}; it was not indexed. Print the PDF to a new PDF or OCR it, then process it again`);
  }
  const pages = [...dropped.keys()].sort((a, b) => a - b);
  const listed = pages.length <= 5 ? pages.join(", ") : `${pages.slice(0, 5).join(", ")} and ${pages.length - 5} more`;
  const warning = `page${pages.length === 1 ? "" : "s"} ${listed}: the text is garbage (${firstReason ?? ""}); only its readable parts were indexed`;
  return { ...document, blocks: kept, warnings: [...document.warnings, warning] };
}
