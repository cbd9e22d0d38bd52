import { stemmer } from "stemmer";
import { searchableText } from "../../core/searchable-text.js";
import type { KeywordQuery, KeywordTerm, TextConstraints } from "../../core/keyword-query.js";

/**
 * The keyword index's words, made in Node so that PostgreSQL indexes exactly what SQLite's FTS5
 * does (`porter unicode61 remove_diacritics 2` over `searchableText` (core/searchable-text.ts, as SQLite's search_text): CJK text cut into words,
 * Greek letters by name, a boundary between letters and digits): letters and
 * digits in runs, lower-case, diacritics removed, English words stemmed by Porter's algorithm.
 * No text-search configuration of the server is used, so every server (and PGlite) agrees.
 */

/** Longer runs are not words (base64, hashes); FTS5 keeps them, but they only bloat the index. */
const MAX_TOKEN_CHARS = 200;
/** tsvector positions stop at 16383. */
const MAX_POSITION = 16_383;
/** Title words count double in ranking (as FTS5's bm25 weights). */
export const TITLE_WEIGHT = 2;

/** The words of a text, in order. */
export function tokenize(text: string): string[] {
  const folded = searchableText(text).toLowerCase().normalize("NFD").replace(/\p{M}+/gu, "");
  const tokens: string[] = [];
  for (const run of folded.split(/[^\p{L}\p{N}\p{Co}]+/u)) {
    if (run === "" || run.length > MAX_TOKEN_CHARS) continue;
    tokens.push(/^[a-z]{3,}$/.test(run) ? stemmer(run) : run);
  }
  return tokens;
}

/** What the index keeps of one chunk: its tsvector (title words weighted A) and weighted word counts. */
export interface IndexedText {
  /** A tsvector literal: title positions first, then a gap, then the content's (no phrase spans the two). */
  vector: string;
  /** Word → title hits × TITLE_WEIGHT + content hits. */
  frequencies: Map<string, number>;
  /** Words in title and content (FTS5's row size for bm25). */
  length: number;
}

export function indexText(title: string, content: string): IndexedText {
  const titleTokens = tokenize(title);
  const contentTokens = tokenize(content);
  const positions = new Map<string, string[]>();
  const frequencies = new Map<string, number>();
  const add = (token: string, position: number, weight: "A" | "", count: number) => {
    const list = positions.get(token) ?? [];
    if (list.length < 256) list.push(`${Math.min(position, MAX_POSITION)}${weight}`);
    positions.set(token, list);
    frequencies.set(token, (frequencies.get(token) ?? 0) + count);
  };
  titleTokens.forEach((token, index) => add(token, index + 1, "A", TITLE_WEIGHT));
  const offset = titleTokens.length + 2;
  contentTokens.forEach((token, index) => add(token, offset + index, "", 1));
  const vector = [...positions].map(([token, list]) => `${lexeme(token)}:${list.join(",")}`).join(" ");
  return { vector, frequencies, length: titleTokens.length + contentTokens.length };
}

/** A lexeme quoted for tsvector and tsquery literals. */
function lexeme(token: string): string {
  return `'${token.replace(/\\/g, "\\\\").replace(/'/g, "''")}'`;
}

/** One searched word as the index holds it: its words (several make a phrase) and whether the last is a prefix. */
export interface CompiledTerm {
  tokens: string[];
  prefix: boolean;
}

export function compileTerm(term: KeywordTerm): CompiledTerm {
  return { tokens: tokenize(term.word), prefix: term.prefix };
}

function phraseQuery(tokens: readonly string[], prefix = false): string {
  return tokens.map((token, index) => `${lexeme(token)}${prefix && index === tokens.length - 1 ? ":*" : ""}`).join(" <-> ");
}

function wordsOf(words: readonly string[]): string[] {
  return words.flatMap((word) => tokenize(word));
}

/** The query as a tsquery literal, or null when it can match nothing (no searchable words). */
export function toTsquery(query: KeywordQuery): string | null {
  const terms = query.terms.map(compileTerm).filter((term) => term.tokens.length > 0);
  const phrases = query.phrases.map(wordsOf).filter((tokens) => tokens.length > 0);
  if (terms.length === 0 && phrases.length === 0) return null;
  const parts: string[] = [];
  if (terms.length > 0) parts.push(`(${terms.map((term) => `(${phraseQuery(term.tokens, term.prefix)})`).join(query.match === "all" ? " & " : " | ")})`);
  for (const phrase of phrases) parts.push(`(${phraseQuery(phrase)})`);
  for (const excluded of query.exclude.map(wordsOf).filter((tokens) => tokens.length > 0)) parts.push(`!(${phraseQuery(excluded)})`);
  return parts.join(" & ");
}

/** Text constraints of vector search as a tsquery literal, or null when there are none. */
export function constraintsTsquery(text: TextConstraints | undefined): string | null {
  if (text === undefined) return null;
  const parts: string[] = [];
  for (const phrase of text.phrases.map(wordsOf).filter((tokens) => tokens.length > 0)) parts.push(`(${phraseQuery(phrase)})`);
  for (const excluded of text.exclude.map(wordsOf).filter((tokens) => tokens.length > 0)) parts.push(`!(${phraseQuery(excluded)})`);
  // Exclusions alone are a query too: everything that is not excluded.
  return parts.length === 0 ? null : parts.join(" & ");
}

/**
 * The words whose statistics rank a query (FTS5 ranks each phrase of the query; here each word,
 * a phrase by its words): stems, with `prefix` for a prefix word.
 */
export function rankedWords(query: KeywordQuery): { word: string; prefix: boolean }[] {
  const ranked: { word: string; prefix: boolean }[] = [];
  for (const term of query.terms.map(compileTerm)) term.tokens.forEach((token, index) => ranked.push({ word: token, prefix: term.prefix && index === term.tokens.length - 1 }));
  for (const phrase of query.phrases) for (const token of wordsOf(phrase)) ranked.push({ word: token, prefix: false });
  return ranked;
}
