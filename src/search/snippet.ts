import { looseWords, parseQuery, type ParsedQuery } from "./query-parse.js";

/** Characters of chunk text shown under a search result. */
export const SNIPPET_LENGTH_CHARS = 220;
/** Characters kept before the first matched word, so the match reads in context. */
const SNIPPET_LEAD_CHARS = 60;

/**
 * The words to look for in a snippet: what the keyword search matched (normalized, lemmatized,
 * stop words dropped). Excluded words (`-word`) are not shown.
 */
export function snippetWords(query: string | ParsedQuery): string[] {
  const parsed = typeof query === "string" ? parseQuery(query) : query;
  // A phrase's own words too: a phrase no chunk holds is searched as its words. A Korean word
  // searched as its syllable pairs (예산 산회 회의) is looked for as the word it spells (예산회의).
  return [
    ...new Set(
      parsed.include.flatMap((clause) => (clause.kind === "phrase" ? [...hangulWord(clause.words), clause.words.join(" "), ...looseWords(clause.words)] : clause.words)),
    ),
  ];
}

const HANGUL_PAIR = /^\p{Script=Hangul}{2}$/u;

/** The Hangul word whose overlapping syllable pairs these are, if they are (core/searchable-text.ts). */
function hangulWord(pairs: readonly string[]): string[] {
  const chained = pairs.every((pair, index) => HANGUL_PAIR.test(pair) && (index === 0 || Array.from(pairs[index - 1] ?? "")[1] === Array.from(pair)[0]));
  return chained && pairs.length > 1 ? [pairs.map((pair, index) => (index === 0 ? pair : Array.from(pair)[1])).join("")] : [];
}

/**
 * A short window of the chunk's text around the first place a query word starts a word, or
 * the chunk's start when no word is found (a vector hit need not share a word with the query).
 * Whitespace is collapsed; "…" marks text cut at either end. Pure.
 */
export function makeSnippet(content: string, words: readonly string[], lengthChars = SNIPPET_LENGTH_CHARS): string {
  const text = content.replace(/\s+/g, " ").trim();
  if (text.length <= lengthChars) return text;

  const match = firstMatchIndex(foldForMatching(text), words);
  let start = match === null ? 0 : Math.max(0, match - SNIPPET_LEAD_CHARS);
  if (start > 0) {
    // Start at a word boundary rather than mid-word, unless the match itself is that close.
    const space = text.indexOf(" ", start);
    if (space !== -1 && match !== null && space < match) start = space + 1;
  }
  let end = Math.min(text.length, start + lengthChars);
  if (end < text.length) {
    const space = text.lastIndexOf(" ", end);
    if (space > start + lengthChars / 2) end = space;
  }
  return `${start > 0 ? "…" : ""}${text.slice(start, end).trim()}${end < text.length ? "…" : ""}`;
}

/** Where the first of the words starts a word in the (folded) text, or null. */
function firstMatchIndex(folded: string, words: readonly string[]): number | null {
  return wordsPattern(words)?.exec(folded)?.index ?? null;
}

/**
 * Any of the words at the start of a word (a Korean one anywhere), as one pattern (its first match is the earliest of
 * any word's), made once for a search's results; null when no word is left after folding.
 */
const patterns = new Map<string, RegExp | null>();
function wordsPattern(words: readonly string[]): RegExp | null {
  const key = words.join("\u0000");
  let pattern = patterns.get(key);
  if (pattern === undefined) {
    const wanted = words.map((word) => foldForMatching(word.trim())).filter((word) => word !== "");
    // Korean words are indexed as syllable pairs, so one may be found inside a longer word (회의 in 예산회의).
    const alternatives = wanted.map((word) => (/^\p{Script=Hangul}/u.test(word) ? escapeRegExp(word) : `(?<![\\p{L}\\p{N}])${escapeRegExp(word)}`));
    pattern = wanted.length === 0 ? null : new RegExp(`(?:${alternatives.join("|")})`, "u");
    if (patterns.size >= 256) patterns.clear();
    patterns.set(key, pattern);
  }
  return pattern;
}

/**
 * Lower-case with Latin diacritics removed (the query parser folds them the same way), one
 * UTF-16 unit for one, so indexes in the folded text are indexes in the original.
 */
function foldForMatching(text: string): string {
  // Plain ASCII (most text) folds by lower-casing alone: no per-character normalization.
  if (isAscii(text)) return text.toLowerCase();
  let folded = "";
  for (const character of text) {
    if (character.charCodeAt(0) < 0x80) {
      folded += character.toLowerCase();
      continue;
    }
    const lower = character.toLowerCase();
    const bare = lower.normalize("NFD").replace(/\p{M}+/gu, "");
    folded += bare.length === character.length ? bare : lower.length === character.length ? lower : character;
  }
  return folded;
}

function isAscii(text: string): boolean {
  for (let index = 0; index < text.length; index++) if (text.charCodeAt(index) >= 0x80) return false;
  return true;
}

function escapeRegExp(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");
}
