import { createRequire } from "node:module";
import type * as Cl100kModule from "gpt-tokenizer/encoding/cl100k_base";
import { segmentText } from "./segment.js";

/**
 * cl100k_base token counting. Documents may contain strings like "<|endoftext|>"; they are
 * counted as ordinary text (the tokenizer would otherwise throw on them).
 */
const AS_PLAIN_TEXT = { disallowedSpecial: new Set<string>() };

type Cl100k = typeof Cl100kModule;
let cl100k: Cl100k | undefined;

/**
 * The tokenizer's tables take about 0.1 s to load: loaded (synchronously, from the package's
 * CommonJS build) the first time a text is counted, so commands that never count tokens
 * (search, folders, --version) do not pay for it.
 */
function tokenizer(): Cl100k {
  return (cl100k ??= createRequire(import.meta.url)("gpt-tokenizer/encoding/cl100k_base") as Cl100k);
}

/**
 * Byte-pair merging is quadratic in the length of one pre-token, and a run of text with no
 * spaces (CJK, base64, a long rule of "=") is one pre-token: 32 kB takes seconds. Runs longer
 * than this are counted in slices of this size, which is exact up to about one token per
 * slice boundary. No chunk-sized text (about 2 kB) is affected.
 */
export const LONG_RUN_CHARS = 2000;
const LONG_RUN = new RegExp(`\\S{${LONG_RUN_CHARS + 1},}`, "g");

/**
 * gpt-tokenizer's own pre-token expression (a small module: importing it does not load the table).
 * A text's count is the sum of its pre-tokens' counts, each merged on its own, so a pre-token's
 * count can be remembered: prose repeats a few thousand words, and a `Map` of those answers
 * faster than the tokenizer's rank table of 100k strings (CPU and memory traffic per lookup).
 */
const PRETOKEN = (createRequire(import.meta.url)("gpt-tokenizer/encodingParams/constants") as { CL100K_TOKEN_SPLIT_REGEX: RegExp }).CL100K_TOKEN_SPLIT_REGEX;
/** Pre-tokens longer than this are counted by the tokenizer every time (rare: words run 2–12 characters). */
const REMEMBERED_PRETOKEN_MAX_CHARS = 24;
/** Past this many remembered pre-tokens the memory starts again (a few MB at most). */
const REMEMBERED_PRETOKENS_MAX = 100_000;
const pretokenCounts = new Map<string, number>();

function countPretoken(pretoken: string): number {
  if (pretoken.length > REMEMBERED_PRETOKEN_MAX_CHARS) return tokenizer().countTokens(pretoken, AS_PLAIN_TEXT);
  let count = pretokenCounts.get(pretoken);
  if (count === undefined) {
    count = tokenizer().countTokens(pretoken, AS_PLAIN_TEXT);
    if (pretokenCounts.size >= REMEMBERED_PRETOKENS_MAX) pretokenCounts.clear();
    pretokenCounts.set(pretoken, count);
  }
  return count;
}

function countExact(text: string): number {
  if (text.length === 0) return 0;
  const pretokens = text.match(PRETOKEN);
  if (pretokens === null) return 0;
  let total = 0;
  for (const pretoken of pretokens) total += countPretoken(pretoken);
  return total;
}

/** Cuts at most LONG_RUN_CHARS long, never between the halves of a surrogate pair. */
function countRun(run: string): number {
  let total = 0;
  let start = 0;
  while (start < run.length) {
    let end = Math.min(run.length, start + LONG_RUN_CHARS);
    const code = run.charCodeAt(end - 1);
    if (end < run.length && code >= 0xd800 && code <= 0xdbff) end--;
    total += countExact(run.slice(start, end));
    start = end;
  }
  return total;
}

/** Tokens of text in cl100k_base (the count used for chunk sizes). Linear in the text's length. */
export function countTokens(text: string): number {
  if (text.length <= LONG_RUN_CHARS) return countExact(text);
  let total = 0;
  let last = 0;
  for (const match of text.matchAll(LONG_RUN)) {
    total += countExact(text.slice(last, match.index)) + countRun(match[0]);
    last = match.index + match[0].length;
  }
  return total + countExact(text.slice(last));
}

/**
 * Counts of slices of one text, each exactly countTokens(prefix + text.slice(start, end)), from
 * one pass over the whole text (decision 093): the chunker counts each sentence and then each
 * packed chunk, overlap included, which was the text counted twice.
 *
 * Why it is exact: cl100k's pre-token expression has no look-behind, and it cannot carry a
 * pre-token across a *clean cut* — a space or tab after a character that is not whitespace, or a
 * character that is not whitespace after "\n" (no letter, digit or symbol run takes a following
 * space or tab; only a newline is taken by a symbol run before it; a whitespace run ending in
 * "\n" before such a character ends there as it would at the end of the text). So a text cut
 * there is pre-tokenized as its two parts are, and a slice's count is its head up to its first
 * clean cut, the whole text's pre-tokens between that cut and its last one, and its tail.
 */
export interface SliceCounter {
  count(start: number, end: number, prefix?: string): number;
}

/** How far from a slice's ends a clean cut is looked for; past this the slice is counted whole. */
const CLEAN_CUT_WINDOW_CHARS = 64;
/** The whole text is matched in windows of about this many characters. */
const PRETOKEN_WINDOW_CHARS = 65_536;
/** Shorter slices are counted whole: there is too little between their ends to save. */
const MIN_SLICED_CHARS = 32;
const WHITESPACE = /\s/u;

/**
 * Whether text may hold a run LONG_RUN matches, in one pass (the expression itself tries every
 * position). Only ASCII whitespace ends a run here, so other spaces can only make it say yes.
 */
function mayHaveLongRun(text: string): boolean {
  let run = 0;
  for (let index = 0; index < text.length; index++) {
    const code = text.charCodeAt(index);
    if (code === 32 || (code >= 9 && code <= 13)) run = 0;
    else if (++run > LONG_RUN_CHARS) return true;
  }
  return false;
}

function isCleanCut(text: string, at: number): boolean {
  const before = text[at - 1];
  const after = text[at];
  if (before === undefined || after === undefined) return false;
  if (after === " " || after === "\t") return !WHITESPACE.test(before);
  return before === "\n" && !WHITESPACE.test(after);
}

export function createSliceCounter(text: string): SliceCounter {
  const whole = { count: (start: number, end: number, prefix = "") => countTokens(prefix + text.slice(start, end)) };
  // Runs past LONG_RUN_CHARS are counted in slices by countTokens, not by their pre-tokens.
  if (text.length < MIN_SLICED_CHARS || mayHaveLongRun(text)) return whole;
  // The whole text's pre-tokens: where each starts, and the tokens before it. Matched a window at
  // a time, each ending at a clean cut (so its pre-tokens are the whole text's): a long document's
  // pre-tokens are never all held as strings at once.
  const starts: number[] = [];
  const before: number[] = [];
  let at = 0;
  let total = 0;
  while (at < text.length) {
    let end = Math.min(text.length, at + PRETOKEN_WINDOW_CHARS);
    while (end < text.length && !isCleanCut(text, end)) end++;
    for (const pretoken of text.slice(at, end).match(PRETOKEN) ?? []) {
      starts.push(at);
      before.push(total);
      at += pretoken.length;
      total += countPretoken(pretoken);
    }
    if (at !== end) return whole;
  }
  starts.push(at);
  before.push(total);
  // The pre-tokens cover the text end to end; were one character left out, positions would be wrong.
  if (at !== text.length) return whole;
  /** Tokens of the text before a pre-token boundary; undefined if `at` is none (it always is at a clean cut). */
  const tokensBefore = (at: number): number | undefined => {
    let low = 0;
    let high = starts.length - 1;
    while (low <= high) {
      const middle = (low + high) >> 1;
      const start = starts[middle] as number;
      if (start === at) return before[middle];
      if (start < at) low = middle + 1;
      else high = middle - 1;
    }
    return undefined;
  };
  return {
    count(start, end, prefix = "") {
      if (end - start < MIN_SLICED_CHARS) return whole.count(start, end, prefix);
      const headLimit = Math.min(start + CLEAN_CUT_WINDOW_CHARS, end);
      let first = start + 1;
      while (first < headLimit && !isCleanCut(text, first)) first++;
      const tailLimit = Math.max(end - CLEAN_CUT_WINDOW_CHARS, first);
      let last = end - 1;
      while (last > tailLimit && !isCleanCut(text, last)) last--;
      if (first >= last || !isCleanCut(text, first) || !isCleanCut(text, last)) return whole.count(start, end, prefix);
      const between = (tokensBefore(last) ?? NaN) - (tokensBefore(first) ?? NaN);
      if (Number.isNaN(between)) return whole.count(start, end, prefix);
      return countTokens(prefix + text.slice(start, first)) + between + countTokens(text.slice(last, end));
    },
  };
}

export function encodeTokens(text: string): number[] {
  return tokenizer().encode(text, AS_PLAIN_TEXT);
}

export function decodeTokens(tokens: readonly number[]): string {
  return tokenizer().decode(tokens);
}

/** A piece of a larger text: [start, end) offsets into it and its own token count. */
export interface TextPiece {
  start: number;
  end: number;
  tokens: number;
}

// Made at first use: creating a segmenter loads ICU's break rules (≈ 12 ms), paid by every
// process that imports the chunker (a search, each parse worker) even when nothing is split.
let graphemeSegmenter: Intl.Segmenter | undefined;

/**
 * Splits text that has no better break (no spaces, no punctuation: a CJK run, a base64 blob,
 * a long URL) into pieces of at most maxTokens tokens each, cutting only between graphemes so
 * no character (or emoji sequence) is broken. Each piece is sized from the density of the
 * one before and shrunk when it comes out too large, so the work stays linear.
 */
export function splitAtTokenLimit(text: string, maxTokens: number): TextPiece[] {
  const limit = Math.max(1, Math.floor(maxTokens));
  if (text.length === 0) return [];
  if (text.length <= LONG_RUN_CHARS) {
    const tokens = countExact(text);
    if (tokens <= limit) return [{ start: 0, end: text.length, tokens }];
  }

  const boundaries: number[] = [];
  for (const { index } of segmentText((graphemeSegmenter ??= new Intl.Segmenter(undefined, { granularity: "grapheme" })), text)) boundaries.push(index);
  boundaries.push(text.length);
  const graphemeCount = boundaries.length - 1;

  const pieces: TextPiece[] = [];
  let first = 0;
  let size = limit; // graphemes; a first guess of one token each, corrected by measurement
  while (first < graphemeCount) {
    size = Math.max(1, Math.min(size, graphemeCount - first));
    const start = boundaries[first] ?? 0;
    const end = boundaries[first + size] ?? text.length;
    const tokens = countTokens(text.slice(start, end));
    if (tokens <= limit || size === 1) {
      pieces.push({ start, end, tokens });
      first += size;
      // Aim a little under the limit at this piece's density.
      size = tokens > 0 ? Math.floor((size * limit * 0.9) / tokens) : size * 2;
    } else {
      size = Math.floor((size * limit) / tokens) - 1;
    }
  }
  return pieces;
}
