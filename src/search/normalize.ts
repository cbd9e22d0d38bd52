import { parseQuery } from "./query-parse.js";
import type { QueryClause } from "./query-parse.js";

/** Terms this long or longer are searched by prefix ("dog" → "dog"*), as TakeNote does. */
export const PREFIX_MIN_CHARS = 3;

export interface FtsQueryOptions {
  /** "AND" first; "OR" for the fallback when AND finds too little. */
  operator: "AND" | "OR";
}

/** An FTS5 string literal: double-quoted, inner quotes doubled. The tokenizer sees only words. */
export function ftsString(text: string): string {
  return `"${text.replaceAll('"', '""')}"`;
}

function renderClause(clause: QueryClause): string {
  if (clause.kind === "phrase") return ftsString(clause.words.join(" "));
  const word = clause.words[0] ?? "";
  return Array.from(word).length >= PREFIX_MIN_CHARS ? `${ftsString(word)}*` : ftsString(word);
}

/**
 * Turns what a user typed into an FTS5 MATCH expression: lower-case, lemmatized, stop words
 * dropped, prefix `*` on terms of 3+ characters, joined with AND (or OR). "Quoted phrases"
 * stay phrases and `-word` / `-"a phrase"` exclude with NOT.
 *
 * Every word is emitted as an FTS5 string literal, so no input (AND/OR/NOT/NEAR, `title:`,
 * parentheses, `^`, `*`, control characters, emoji) can produce an FTS5 syntax error.
 *
 * Returns null when nothing searchable remains: the input was empty, only punctuation, only
 * stop words (TakeNote searches nothing then, too), or only exclusions (FTS5 cannot express
 * "everything except"; the caller should show no results and ask for a word to search for).
 */
export function buildFtsQuery(input: string, options: FtsQueryOptions): string | null {
  const parsed = parseQuery(input);
  if (parsed.include.length === 0) return null;
  // A quoted phrase is a must even in the OR fallback: only the loose words are loosened.
  const terms = parsed.include.filter((clause) => clause.kind === "term").map(renderClause);
  const phrases = parsed.include.filter((clause) => clause.kind === "phrase").map(renderClause);
  const loose = terms.length > 1 && options.operator === "OR" && phrases.length > 0 ? [`(${terms.join(" OR ")})`] : terms;
  const operator = phrases.length > 0 ? "AND" : options.operator;
  const included = [...loose, ...phrases];
  let expression = included.join(` ${operator} `);
  if (parsed.exclude.length === 0) return expression;
  // NOT binds tighter than AND and OR in FTS5: group the included part before excluding.
  if (included.length > 1) expression = `(${expression})`;
  return [expression, ...parsed.exclude.map(renderExclusion)].join(" NOT ");
}

/** Exclusions are exact words, never prefixes: "-cat" must not drop "category". */
function renderExclusion(clause: QueryClause): string {
  return ftsString(clause.words.join(" "));
}

/**
 * What a result must satisfy whatever the search mode, as FTS5 expressions over the same
 * index (so the same folding and stemming as the keyword stage): `required` matches the
 * chunks that hold every quoted phrase, `excluded` the chunks that hold any `-word` or
 * `-"phrase"`. Null when the query has none.
 */
export interface FtsConstraints {
  required: string | null;
  excluded: string | null;
}

export function buildFtsConstraints(input: string): FtsConstraints {
  const parsed = parseQuery(input);
  const phrases = parsed.include.filter((clause) => clause.kind === "phrase").map(renderClause);
  const excluded = parsed.exclude.map(renderExclusion);
  return { required: phrases.length > 0 ? phrases.join(" AND ") : null, excluded: excluded.length > 0 ? excluded.join(" OR ") : null };
}
