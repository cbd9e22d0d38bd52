import { hasCjk, spaceCjkWords } from "../core/cjk.js";
import { searchableText } from "../core/searchable-text.js";
import { lemmatize } from "./lemmatize.js";
import { isStopWord } from "./stop-words.js";

/**
 * Parses what a user types into a search box into clauses, the way TakeNote normalizes a
 * natural-language query (lower-case, fold Latin diacritics, lemmatize, drop stop words),
 * plus the syntax users expect from a search box: "quoted phrases" and -excluded words.
 *
 * Words are runs of letters, digits and combining marks; everything else (punctuation,
 * operators, emoji, control characters) separates words and is never passed on as syntax.
 * An apostrophe separates words too, as FTS5's tokenizer does, so "user's" gives "user" and
 * "s" (a stop word) and the query matches the text the index holds. (TakeNote deletes the
 * apostrophe instead, which makes "don't" search for "dont", a word no index contains.)
 */

/** Longest input read; anything after it is ignored (and `truncated` says so). */
export const MAX_QUERY_CHARS = 4_000;
/** Most words a query keeps across all clauses; later ones are ignored. */
export const MAX_QUERY_WORDS = 32;
/** Times a repeated loose word counts at most (BM25's query term frequency, bounded). */
export const MAX_WORD_REPEATS = 8;

export interface QueryClause {
  /** "term": one normalized word, searched by prefix when long enough; "phrase": exact words in order. */
  kind: "term" | "phrase";
  /** Lower-case words; one for a term. */
  words: string[];
  /**
   * A phrase read from one unquoted spelling (IL6, snake_case): it ranks the chunks holding it
   * first, but is not required as a quoted phrase is (the any-word list searches its words).
   */
  identifier?: true;
}

export interface ParsedQuery {
  /**
   * Clauses a result must match (joined with AND, or OR for the fallback). A word typed twice is
   * listed twice: it counts twice in the ranking (BM25's query term frequency).
   */
  include: QueryClause[];
  /** Clauses a result must not match (`-word`, `-"a phrase"`). */
  exclude: QueryClause[];
  /** True when the input was longer than MAX_QUERY_CHARS or had more than MAX_QUERY_WORDS words. */
  truncated: boolean;
  /** The text to embed for a search by meaning: the input without exclusions and quote marks. */
  meaning: string;
}

const WORD_PATTERN = /[\p{L}\p{N}\p{Co}][\p{L}\p{N}\p{M}\p{Co}]*/gu;
const EXCLUSION_START = /[\p{L}\p{Co}]/u;
const WHITESPACE = /\s/u;

/** Lower-case and strip diacritics from Latin letters only, as FTS5's remove_diacritics does. */
function foldCase(text: string): string {
  return text
    .toLowerCase()
    .normalize("NFD")
    .replace(/(\p{Script=Latin})\p{M}+/gu, "$1")
    .normalize("NFC");
}

const HANGUL = /\p{Script=Hangul}/u;
const HANGUL_RUN = /\p{Script=Hangul}+/gu;
/**
 * Where a typed token breaks into separate search words: anything but letters, digits, marks and
 * the joiners of one spelling (- _ . and the Unicode hyphens). An apostrophe breaks too ("user's"
 * is the word "user").
 */
/** A token that names a thing rather than joining words: an underscore, a digit beside a letter, a Greek letter, camelCase. */
const IDENTIFIER = /_|\p{L}[-.\u2010\u2011]?\p{N}|\p{N}[-.\u2010\u2011]?\p{L}|\p{Script=Greek}|[a-z][A-Z]|[A-Z]{2}[a-z]/u;
const TOKEN_BREAK = /[^\p{L}\p{N}\p{M}\p{Co}\-_.\u2010\u2011]+/u;
/**
 * Korean particles and question endings that attach to the word before them, longest first.
 * "서울에서" is searched as "서울" (by prefix, so "서울은" and "서울에서" both match): the index
 * holds the word with whatever particle the text gave it.
 */
const KOREAN_SUFFIXES = [
  "에서부터", "에서는", "에게서", "으로서", "으로써", "입니까", "입니다", "인가요", "이에요",
  "에서", "에게", "한테", "께서", "으로", "까지", "부터", "처럼", "보다", "마다", "이나", "이랑", "에는", "에도", "인가", "예요", "이다",
  "은", "는", "이", "가", "을", "를", "의", "에", "로", "와", "과", "도", "만",
];

/** A Hangul word without the particle attached to its end, when two syllables or more remain. */
function withoutParticle(word: string): string {
  for (const suffix of KOREAN_SUFFIXES) {
    if (word.endsWith(suffix) && Array.from(word).length - Array.from(suffix).length >= 2) return word.slice(0, -suffix.length);
  }
  return word;
}

/** A word as the keyword index holds it: CJK runs cut into their words (core/cjk.ts). */
function cjkPieces(word: string): string[] {
  return hasCjk(word) ? spaceCjkWords(word).split(/\s+/).filter(Boolean) : [word];
}

function wordsOf(text: string): string[] {
  return foldCase(text).match(WORD_PATTERN) ?? [];
}

interface Segment {
  text: string;
  quoted: boolean;
  negated: boolean;
}

/**
 * Splits the input into whitespace-separated segments and quoted phrases. Quotes pair up from
 * the start; an unpaired last one is a character like any other (a stray `"` in a pasted
 * sentence must not turn the rest of it into one phrase). A `-` before a letter or a quote
 * excludes; before a digit it is a minus sign ("-80 °C" searches for 80).
 */
function segmentsOf(raw: string): Segment[] {
  const segments: Segment[] = [];
  const quotes = raw.split('"').length - 1;
  const input = quotes % 2 === 1 ? `${raw.slice(0, raw.lastIndexOf('"'))} ${raw.slice(raw.lastIndexOf('"') + 1)}` : raw;
  let index = 0;
  while (index < input.length) {
    const character = input[index] ?? "";
    if (WHITESPACE.test(character)) {
      index += 1;
      continue;
    }
    let negated = false;
    const next = input[index + 1] ?? "";
    if (character === "-" && (next === '"' || EXCLUSION_START.test(next))) {
      negated = true;
      index += 1;
    }
    if (input[index] === '"') {
      // Quotes are paired (see above), so this one has its closing quote.
      const closing = input.indexOf('"', index + 1);
      const end = closing === -1 ? input.length : closing;
      segments.push({ text: input.slice(index + 1, end), quoted: true, negated });
      index = end + 1;
      continue;
    }
    let end = index;
    while (end < input.length && input[end] !== '"' && !WHITESPACE.test(input[end] ?? "")) end += 1;
    if (end === index) end += 1; // cannot happen (a '"' took the branch above); never loop forever
    segments.push({ text: input.slice(index, end), quoted: false, negated });
    index = end;
  }
  return segments;
}

export function parseQuery(input: string): ParsedQuery {
  // NFKC folds compatibility forms (full-width "ＧＩＲＡＦＦＥ", ligatures) into what the index holds.
  const text = input.normalize("NFKC");
  let truncated = text.length > MAX_QUERY_CHARS;
  const segments = segmentsOf(text.slice(0, MAX_QUERY_CHARS));
  const include: QueryClause[] = [];
  const exclude: QueryClause[] = [];
  const seen = new Map<string, number>();
  let wordCount = 0;

  const add = (target: QueryClause[], clause: QueryClause): void => {
    const key = `${target === include ? "+" : "-"}${clause.kind}:${clause.words.join(" ")}`;
    const times = seen.get(key) ?? 0;
    if (times > 0) {
      // A loose word typed again counts again (BM25's query term frequency), up to a bound and
      // without counting towards the cap; a repeated phrase or exclusion adds nothing.
      if (target === include && clause.kind === "term" && times < MAX_WORD_REPEATS) {
        seen.set(key, times + 1);
        target.push(clause);
      }
      return;
    }
    if (wordCount + clause.words.length > MAX_QUERY_WORDS) {
      truncated = true;
      // A long phrase (a whole quoted paragraph) keeps the words that fit, rather than vanishing.
      const room = MAX_QUERY_WORDS - wordCount;
      if (clause.kind === "phrase" && room > 0) add(target, { kind: "phrase", words: clause.words.slice(0, room) });
      return;
    }
    seen.set(key, 1);
    wordCount += clause.words.length;
    target.push(clause);
  };

  for (const segment of segments) {
    const words = wordsOf(searchableText(segment.text));
    if (words.length === 0) continue;
    if (segment.negated) {
      // Excluded words are taken as typed (no lemma, no prefix, stop words kept): the user
      // named exactly what to leave out. Porter stemming still covers plurals.
      const pieces = words.flatMap(cjkPieces);
      add(exclude, pieces.length === 1 ? { kind: "term", words: pieces } : { kind: "phrase", words: pieces });
    } else if (segment.quoted) {
      add(include, { kind: "phrase", words: words.flatMap(cjkPieces) });
    } else {
      for (const token of segment.text.split(TOKEN_BREAK)) {
        // A Korean word loses its particle before it is cut into syllable pairs as the index cuts it.
        const hangul = HANGUL.test(token);
        const tokenWords = wordsOf(searchableText(hangul ? token.replace(HANGUL_RUN, (run) => withoutParticle(run)) : token));
        // An identifier or a symbol's spelling (snake_case, IL-6, IL6, TNFα): its words in order,
        // as the index cut the same spelling (core/searchable-text.ts). A phrase no chunk holds is
        // searched as its words (app/search/keyword-stage.ts). A plain hyphenated word ("on-line",
        // "computer-based") stays loose words: required as a phrase, it narrowed natural-language
        // queries (CISI nDCG@10 0.40 → 0.34).
        // A Korean word of three syllables or more is a phrase of its pairs (core/searchable-text.ts).
        if (tokenWords.length > 1 && (IDENTIFIER.test(token) || hangul) && !hasCjk(token)) {
          add(include, { kind: "phrase", words: tokenWords, identifier: true });
          continue;
        }
        addLooseWords(tokenWords);
      }
    }
  }
  return { include, exclude, truncated, meaning: meaningOf(segments, input) };

  function addLooseWords(words: readonly string[]): void {
    for (const word of words) {
      // A CJK run is cut into words as the index cut it; each is a search word of its own
      // (a question typed as one run need not appear verbatim). Quote it for a phrase.
      if (hasCjk(word)) {
        for (const piece of cjkPieces(word)) add(include, { kind: "term", words: [piece] });
        continue;
      }
      if (HANGUL.test(word)) {
        add(include, { kind: "term", words: [word] });
        continue;
      }
      const lemma = lemmatize(word);
      if (isStopWord(word) || isStopWord(lemma)) continue;
      add(include, { kind: "term", words: [lemma] });
    }
  }
}

/**
 * The words of a phrase as loose search words (lemmas, stop words dropped), for a phrase that
 * no chunk holds: its words still rank what they match.
 */
export function looseWords(phrase: readonly string[]): string[] {
  return phrase.flatMap((word) => {
    if (hasCjk(word)) return [word];
    const lemma = lemmatize(word);
    return isStopWord(word) || isStopWord(lemma) ? [] : [lemma];
  });
}

/**
 * The text to embed for a search by meaning: the query without its `-word` and `-"phrase"`
 * exclusions (embedding "river -heron" would pull the query vector towards herons) and without
 * the quote marks. The input itself when nothing else is left.
 */
function meaningOf(segments: readonly Segment[], input: string): string {
  const kept = segments
    .filter((segment) => !segment.negated)
    .map((segment) => segment.text.trim())
    .filter((text) => text !== "");
  return kept.length > 0 ? kept.join(" ") : input;
}

export function meaningText(input: string): string {
  return parseQuery(input).meaning;
}
