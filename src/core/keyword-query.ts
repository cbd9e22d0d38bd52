/**
 * A keyword query in neutral form: what the search room understood from what the user typed,
 * before any backend turns it into its own full-text syntax (FTS5 MATCH, a PostgreSQL tsquery).
 */

/**
 * One searched word, lower-case and folded; `prefix` also matches longer words that start with
 * it when the index does not hold the word whole (a word still being typed, a fragment): a whole
 * word's inflections are the stemmer's job, and its longer neighbours ("cat" → "category") are noise.
 */
export interface KeywordTerm {
  word: string;
  prefix: boolean;
}

export interface KeywordQuery {
  /**
   * Loose words: every one must match ("all"), or at least one ("any", the fallback); with a
   * phrase, "any" makes the loose words optional (they only rank).
   */
  terms: KeywordTerm[];
  match: "all" | "any";
  /** Phrases (words in order) a hit must contain whatever `match` says. */
  phrases: string[][];
  /** Words or phrases a hit must not contain; exact words, never prefixes ("-cat" keeps "category"). */
  exclude: string[][];
}

/** What every hit must satisfy whatever the search mode (vector hits too): the quoted phrases and the exclusions. */
export interface TextConstraints {
  phrases: string[][];
  exclude: string[][];
}

/** A word or phrase as a quoted literal, inner quotes doubled: the tokenizer sees only words. */
export function quoteWords(words: readonly string[]): string {
  return `"${words.join(" ").replaceAll('"', '""')}"`;
}

/** One term in the search syntax: the word quoted, `*` after it for a prefix. */
export function formatKeywordTerm(term: KeywordTerm): string {
  return `${quoteWords([term.word])}${term.prefix ? "*" : ""}`;
}

/**
 * The query in Chunkpad's search syntax, as shown to users (`keyword query: "river"* AND "heron"`):
 * every word a quoted literal, `*` for a prefix, AND / OR / NOT, parentheses where NOT or a
 * loosened OR needs them. Null when nothing would be searched (no terms and no phrases).
 */
export function formatKeywordQuery(query: KeywordQuery): string | null {
  const terms = query.terms.map(formatKeywordTerm);
  const phrases = query.phrases.map(quoteWords);
  // A quoted phrase is a must even when the loose words are loosened to "any"; with a phrase, the
  // loose words are optional (the phrase is one of the alternatives), so a chunk holding the
  // phrase and none of the words is still found, ranked below one that holds both.
  const loose = terms.length > 0 && query.match === "any" && phrases.length > 0 ? [`(${[...terms, phrases[0]].join(" OR ")})`] : terms;
  const operator = phrases.length > 0 || query.match === "all" ? "AND" : "OR";
  const included = [...loose, ...phrases];
  if (included.length === 0) return null;
  let expression = included.join(` ${operator} `);
  if (query.exclude.length === 0) return expression;
  // NOT binds tighter than AND and OR: group the included part before excluding.
  if (included.length > 1) expression = `(${expression})`;
  return [expression, ...query.exclude.map(quoteWords)].join(" NOT ");
}
