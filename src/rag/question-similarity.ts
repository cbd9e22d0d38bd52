import type { ScoredChunk } from "../core/types.js";
import { shouldRefuse, type GuardrailDecision } from "./guardrail.js";
import { vectorSimilarity } from "../search/fuse.js";
import { lemmatize } from "../search/lemmatize.js";
import { searchableText } from "../core/searchable-text.js";
import { parseQuery, type QueryClause } from "../search/query-parse.js";

/**
 * How close a chunk is to the question, for the "I don't know" guardrail. The fused score
 * cannot serve: keyword scores are scaled to the best hit, so the best keyword hit always
 * scores 1.0 however poor it is. The guardrail needs an absolute measure instead
 * (docs/decisions/004-guardrail-similarity.md):
 * - vector: 1 - cosine distance;
 * - keyword: the fraction of the question's search terms (the words keyword search looks for,
 *   lemmatized, stop words dropped) that the chunk contains;
 * - hybrid: the larger of the two, since either is evidence the chunk is about the question;
 * - a pinned chunk counts as 1: the user chose that document.
 */

export type GuardrailSearchMode = "keyword" | "vector" | "hybrid";

/** Terms of this many characters or more match by prefix, as keyword search does ("forecast*"). */
const PREFIX_MIN_CHARS = 3;
const WORD_PATTERN = /[\p{L}\p{N}\p{Co}][\p{L}\p{N}\p{M}\p{Co}]*/gu;

/** Lower-case, Latin diacritics folded, split into words as keyword search splits them. */
function wordsOf(text: string): string[] {
  // Cut as the keyword index cuts it (IL6 → il 6, TNFα → tnf alpha), so phrases line up.
  const folded = searchableText(text)
    .toLowerCase()
    .normalize("NFD")
    .replace(/(\p{Script=Latin})\p{M}+/gu, "$1")
    .normalize("NFC");
  return folded.match(WORD_PATTERN) ?? [];
}

/**
 * What a word that only starts with the question's word counts for: keyword search matches it
 * ("capital" finds "capitalize"), but it is weaker evidence than the word itself, or `What is
 * the capital of Peru?` passes the guardrail at 100 % on a chunk about capitalization. Hangul
 * words count whole: particles attach to nouns (서울 → 서울에서).
 */
const PREFIX_MATCH_CREDIT = 0.5;

/** 1 for the word or one of its forms, PREFIX_MATCH_CREDIT for a longer word it starts, else 0. */
function termCredit(term: string, word: string): number {
  if (word === term || lemmatize(word) === term) return 1;
  const hangul = /\p{Script=Hangul}/u.test(term);
  if (Array.from(term).length >= (hangul ? 2 : PREFIX_MIN_CHARS) && word.startsWith(term)) return hangul ? 1 : PREFIX_MATCH_CREDIT;
  return 0;
}

/** The same word, or forms of one word ("e-mails" in a question, "e-mail" in the text). */
function sameWord(text: string, phrase: string): boolean {
  return text === phrase || lemmatize(text) === lemmatize(phrase);
}

function clauseCredit(clause: QueryClause, words: readonly string[]): number {
  if (clause.kind === "term") {
    const term = clause.words[0] ?? "";
    let best = 0;
    for (const word of words) {
      best = Math.max(best, termCredit(term, word));
      if (best === 1) break;
    }
    return best;
  }
  const phrase = clause.words;
  for (let start = 0; start + phrase.length <= words.length; start += 1) {
    if (phrase.every((word, offset) => sameWord(words[start + offset] ?? "", word))) return 1;
  }
  return 0;
}

/**
 * The share (0..1) of the question's search terms that occur in the text: 1 when the chunk
 * holds every word the question was searched by, 0 when it holds none (or the question has
 * no searchable word).
 */
export function keywordCoverage(question: string, text: string, weights?: readonly number[]): number {
  const clauses = parseQuery(question).include;
  if (clauses.length === 0) return 0;
  const words = wordsOf(text);
  // Each term counts by its rarity squared when weights are given (a common word proves little):
  // the share of the question's tf-idf vector the chunk holds, as a cosine weighs a shared word
  // idf × idf. Linear weights let a chunk holding the everyday words of a question but not its
  // one rare name pass (decision 047).
  const weightOf = (index: number) => (weights === undefined ? 1 : Math.max(0, weights[index] ?? 1) ** 2);
  const total = clauses.reduce((sum, _, index) => sum + weightOf(index), 0);
  if (total <= 0) return 0;
  const matched = clauses.reduce((sum, clause, index) => sum + clauseCredit(clause, words) * weightOf(index), 0);
  return matched / total;
}

/** The clauses keyword coverage weighs, in order: what `weights` must line up with. */
export function coverageClauses(question: string): QueryClause[] {
  return parseQuery(question).include;
}

/**
 * How rare a term is among `total` chunks, `matching` of which contain it (BM25's idf,
 * never negative): a word in every chunk weighs almost nothing, a word in one weighs most.
 */
export function rarity(matching: number, total: number): number {
  return Math.log(1 + (total - matching + 0.5) / (matching + 0.5));
}

export interface RefusalOptions {
  /** Per question clause (coverageClauses order): its rarity weight; absent = every term counts the same. */
  clauseWeights?: readonly number[];
  /** The floor for vector similarity; absent = the same floor as keyword coverage. */
  minVectorSimilarity?: number;
}

/**
 * The guardrail's measure for one search result (see the file comment), on the keyword floor's
 * scale: a vector similarity is scaled by minSimilarity / minVectorSimilarity, so a chunk passes
 * when its keyword coverage reaches the keyword floor or its vector similarity the vector floor.
 */
export function answerSimilarity(question: string, result: ScoredChunk, mode: GuardrailSearchMode, options: RefusalOptions & { minSimilarity?: number } = {}): number {
  if (result.pinned) return 1;
  const raw = result.distance === undefined ? 0 : vectorSimilarity(result.distance);
  const floor = options.minSimilarity ?? 1;
  const vector = options.minVectorSimilarity === undefined || options.minVectorSimilarity <= 0 ? raw : (raw * floor) / options.minVectorSimilarity;
  if (mode === "vector") return vector;
  const keyword = keywordCoverage(question, result.chunk.content, options.clauseWeights);
  return mode === "keyword" ? keyword : Math.max(vector, keyword);
}

/** shouldRefuse with the measure above, for a search that ran in `mode`. */
export function decideRefusal(question: string, results: readonly ScoredChunk[], mode: GuardrailSearchMode, minSimilarity: number, options: RefusalOptions = {}): GuardrailDecision {
  return shouldRefuse(results, { minSimilarity, similarityOf: (result) => answerSimilarity(question, result, mode, { ...options, minSimilarity }) });
}
