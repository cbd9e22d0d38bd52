import { spaceCjkWords } from "./cjk.js";

/**
 * Text as the keyword index reads it, and as a query's words are cut: the same function on both
 * sides, so a spelling found in one is found in the other (decisions 024 and 041).
 * - A Greek letter standing alone or beside Latin letters and digits becomes its name: TNFα,
 *   TNF-α and TNF-alpha meet, as do NF-κB and NF-kappaB. A run of Greek letters (Greek text) is
 *   left as it is.
 * - A letter next to a digit is a word boundary: IL6, IL-6 and "IL 6" meet; so do x86 and x-86.
 * - A camelCase or PascalCase word is its words, then itself (parseQuery → "parse query
 *   parseQuery", HTMLParser → "HTML Parser HTMLParser"): "parse query" finds it, and
 *   "javascript" still finds JavaScript. A Latin letter standing for a Greek one after an
 *   abbreviation in capitals is named too (NFkB → "NF kappa B NFkB", TNFa → "TNF alpha TNFa"),
 *   so NFkB, NF-κB and NF-kappaB meet. Decision 049.
 * - Chinese and Japanese runs are cut into words (core/cjk.ts).
 * - A Hangul word of three syllables or more becomes its overlapping syllable pairs (예산회의 →
 *   예산 산회 회의): Korean glues particles to nouns and writes compounds with or without a space,
 *   so a query's word is found inside a longer one (a query word of three syllables or more is a
 *   phrase of its pairs, search/query-parse.ts). Decision 048.
 * Changing this changes what the index holds: a migration must rebuild it (and
 * SEARCH_TEXT_VERSION must change, for a store that rebuilds by version).
 */

/** Changes whenever searchableText gives different words for the same text. */
export const SEARCH_TEXT_VERSION = 2;

const GREEK_NAMES: Record<string, string> = {
  α: "alpha", β: "beta", γ: "gamma", δ: "delta", ε: "epsilon", ζ: "zeta", η: "eta", θ: "theta",
  ι: "iota", κ: "kappa", λ: "lambda", μ: "mu", ν: "nu", ξ: "xi", ο: "omicron", π: "pi", ρ: "rho",
  σ: "sigma", ς: "sigma", τ: "tau", υ: "upsilon", φ: "phi", χ: "chi", ψ: "psi", ω: "omega",
};

const GREEK = /\p{Script=Greek}/u;
const LONE_GREEK = /(?<!\p{Script=Greek})\p{Script=Greek}(?!\p{Script=Greek})/gu;
/** A letter beside a digit: cheap to look for, where LETTER_DIGIT's look-behinds are tried at every position. */
const LETTER_BESIDE_DIGIT = /\p{L}\p{N}|\p{N}\p{L}/u;
const LETTER_DIGIT = /(?<=\p{L})(?=\p{N})|(?<=\p{N})(?=\p{L})/gu;
const HANGUL_LONG_WORD = /\p{Script=Hangul}{3,}/gu;

/** Latin letters that stand for Greek ones in biomedical names (NFkB, TNFa, IFNg, PKCd, IKKb). */
const GREEK_STAND_INS: Record<string, string> = { a: "alpha", b: "beta", g: "gamma", d: "delta", k: "kappa" };
/** Text that may hold a camelCase word or a stand-in: a capital after a lower-case letter, or a lower-case letter after two capitals. */
const MIXED_CASE = /[a-z][A-Z]|[A-Z]{2}[a-z]/;
/**
 * A word of ASCII letters only (a word with other letters, "façadeBuilder", is left whole) that
 * holds MIXED_CASE: the only words identifierWords changes, so the others are not visited.
 */
const MIXED_CASE_WORD = /(?<!\p{L})(?=[A-Za-z]*(?:[a-z][A-Z]|[A-Z]{2}[a-z]))[A-Za-z]{2,}(?!\p{L})/gu;
const GREEK_STAND_IN = /(?<=[A-Z]{2})[abgdk](?=[A-Z]|$)/g;
/** parse|Query; HTML|Parser (a capital followed by two lower-case letters starts a word: "URLs" stays whole). */
const CASE_BOUNDARY = /(?<=[a-z])(?=[A-Z])|(?<=[A-Z])(?=[A-Z][a-z]{2})/g;

/** A camelCase word as its words followed by itself; any other word as it is. */
function identifierWords(word: string): string {
  if (!MIXED_CASE.test(word)) return word;
  const parts = word
    .replace(GREEK_STAND_IN, (letter) => ` ${GREEK_STAND_INS[letter] ?? letter} `)
    .replace(CASE_BOUNDARY, " ")
    .trim()
    .split(/\s+/);
  return parts.length < 2 ? word : `${parts.join(" ")} ${word}`;
}

/** A run of Hangul syllables as its overlapping pairs ("예산회의" → "예산 산회 회의"); shorter runs as they are. */
function hangulPairs(run: string): string {
  const syllables = Array.from(run);
  if (syllables.length < 3) return run;
  return syllables.slice(1).map((syllable, index) => `${syllables[index]}${syllable}`).join(" ");
}

/**
 * Each step runs only where a quick test finds something for it to change (decision 093: the
 * keyword index calls this for every chunk written, and the steps' look-behinds visited every
 * position and every word of a chunk that had a digit or one mixed-case word).
 */
export function searchableText(text: string): string {
  let result = text;
  if (GREEK.test(result)) {
    result = result.replace(LONE_GREEK, (letter) => {
      const name = GREEK_NAMES[letter.toLowerCase()];
      return name === undefined ? letter : ` ${name} `;
    });
  }
  if (LETTER_BESIDE_DIGIT.test(result)) result = result.replace(LETTER_DIGIT, " ");
  if (MIXED_CASE.test(result)) result = result.replace(MIXED_CASE_WORD, (word) => identifierWords(word));
  result = result.replace(HANGUL_LONG_WORD, (run) => ` ${hangulPairs(run)} `);
  return spaceCjkWords(result);
}
