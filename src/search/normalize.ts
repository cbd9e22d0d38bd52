import type { KeywordQuery, KeywordTerm, TextConstraints } from "../core/keyword-query.js";
import { looseWords, parseQuery } from "./query-parse.js";
import type { ParsedQuery, QueryClause } from "./query-parse.js";

/** Terms this long or longer are searched by prefix ("dog" → "dog"*), as TakeNote does. */
export const PREFIX_MIN_CHARS = 3;

/**
 * Turns what a user typed into a neutral keyword query (core/keyword-query.ts): lower-case,
 * lemmatized, stop words dropped, prefix matching on terms of 3+ characters, every term
 * required ("all") or any one ("any", the fallback). "Quoted phrases" stay phrases and
 * `-word` / `-"a phrase"` exclude. The store compiles it to its own syntax; no input can
 * become full-text syntax (AND/OR/NOT/NEAR, `title:`, `^`, `*` are only ever words).
 *
 * Returns null when nothing searchable remains: the input was empty, only punctuation, only
 * stop words (TakeNote searches nothing then, too), or only exclusions (a full-text index
 * cannot express "everything except"; the caller shows no results and asks for a word).
 */
export function buildKeywordQuery(input: string, { match }: { match: KeywordQuery["match"] }): KeywordQuery | null {
  return keywordQueryOf(parseQuery(input), { match });
}

/**
 * The keyword query of a parsed query (search parses once and hands the parsed form to every
 * stage). `relaxed` lists phrases (words joined by a space) that no chunk holds: each becomes its
 * words, searched as loose words, so a quoted phrase that matches nothing still ranks what its
 * words match rather than emptying the results.
 */
export function keywordQueryOf(parsed: ParsedQuery, { match, relaxed }: { match: KeywordQuery["match"]; relaxed?: ReadonlySet<string> }): KeywordQuery | null {
  if (parsed.include.length === 0) return null;
  const terms: KeywordTerm[] = [];
  const phrases: string[][] = [];
  for (const clause of parsed.include) {
    if (clause.kind === "term") terms.push(toTerm(clause));
    // An identifier's phrase is required among the chunks holding every word; the any-word list searches its words.
    else if (relaxed?.has(clause.words.join(" ")) || (clause.identifier && match === "any")) terms.push(...looseWords(clause.words).map((word) => toTerm({ kind: "term", words: [word] })));
    else phrases.push(clause.words);
  }
  if (terms.length === 0 && phrases.length === 0) return null;
  return { terms, match, phrases, exclude: parsed.exclude.map((clause) => clause.words) };
}

/** The quoted phrases of a parsed query (what a result must hold), each as its words; identifiers' phrases only rank. */
export function phrasesOf(parsed: ParsedQuery): string[][] {
  return parsed.include.filter((clause) => clause.kind === "phrase" && !clause.identifier).map((clause) => clause.words);
}

function toTerm(clause: QueryClause): KeywordTerm {
  const word = clause.words[0] ?? "";
  // Korean attaches particles to the word ("서울에서"): a two-syllable word already deserves a prefix.
  const minimum = /\p{Script=Hangul}/u.test(word) ? 2 : PREFIX_MIN_CHARS;
  return { word, prefix: Array.from(word).length >= minimum };
}

/**
 * What a result must satisfy whatever the search mode, over the same index (so the same folding
 * and stemming as the keyword stage): every quoted phrase, and none of the `-word` or `-"phrase"`.
 */
export function buildTextConstraints(input: string): TextConstraints {
  return textConstraintsOf(parseQuery(input));
}

/** The text constraints of a parsed query; phrases in `relaxed` (that no chunk holds) are not required. */
export function textConstraintsOf(parsed: ParsedQuery, relaxed?: ReadonlySet<string>): TextConstraints {
  return { phrases: phrasesOf(parsed).filter((words) => !relaxed?.has(words.join(" "))), exclude: parsed.exclude.map((clause) => clause.words) };
}
