import type { ChunkRef, ChunkScores } from "../core/types.js";

/**
 * Fusion of the vector and keyword result lists into one ranking, then the filters and the
 * pinned documents. Pure: the app runs the two searches, calls these in order
 * (fuse → applyFilters → limitResults → mergePinned) and attaches the ChunkRecords.
 * Every row keeps each stage's raw numbers for `--explain`.
 */

export interface VectorHit {
  ref: ChunkRef;
  /** Cosine distance from the query vector (0 identical .. 2 opposite). */
  distance: number;
  /**
   * False for a chunk the vector stage did not return, whose stored vector was compared with the
   * query afterwards so that fusion sees its real similarity (default true).
   */
  found?: boolean;
}

export interface KeywordHit {
  ref: ChunkRef;
  /** Keyword relevance (bm25, title counts double): higher is better, above 0 for any match. */
  score: number;
  /**
   * False for a chunk that holds only some of the query's words. The keyword ranking lists every
   * chunk holding all of them first, then the rest, so the first results never depend on how
   * many were asked for (default true).
   */
  allWords?: boolean;
  /**
   * False when the chunk has no vector, so the vector stage could never find it. Hybrid fusion
   * then scores its vector side as if the vector stage had ranked it where the keyword stage
   * did, rather than as a miss (which would cap it at the keyword weight, 30 %).
   */
  hasVector?: boolean;
}

export interface FusedResult extends ChunkScores {
  ref: ChunkRef;
}

export interface WeightedFusionOptions {
  vectorWeight?: number;
  keywordWeight?: number;
}

export interface RrfFusionOptions {
  /** The RRF constant k in 1 / (k + rank). */
  k?: number;
}

export interface FilterOptions {
  /** Drop results whose fused score is below this (default 0.1). */
  minScore?: number;
  /** Drop results the vector stage saw farther than this cosine distance. */
  maxDistance?: number;
}

export const DEFAULT_VECTOR_WEIGHT = 0.7;
export const DEFAULT_KEYWORD_WEIGHT = 0.3;
export const DEFAULT_RRF_K = 60;
export const DEFAULT_MIN_SCORE = 0.1;
export const PINNED_SCORE = 1;

/** Vector similarity shown to users: 1 - cosine distance, clamped to 0..1. */
export function vectorSimilarity(distance: number): number {
  if (!Number.isFinite(distance)) return 0;
  return Math.min(1, Math.max(0, 1 - distance));
}

/**
 * A keyword score normalized per query: divided by the best hit's, so the best hit scores 1 and
 * the others keep their proportion to it. Unlike min-max, a single hit scores 1 (not 0/0) and the
 * weakest of several still scores above 0: it did match. If no hit has a positive score (FTS5
 * clamps IDF for words in most documents), all matched equally well and all score 1.
 */
export function normalizeKeywordScore(score: number, bestScore: number): number {
  const best = Math.max(0, bestScore);
  if (best === 0) return 1;
  return Math.min(1, Math.max(0, score) / best);
}

interface Ranked<T> {
  hit: T;
  rank: number;
}

/** Sorted best first (stable), the first occurrence of each ref kept, ranks 1-based. */
function rankHits<T extends { ref: ChunkRef }>(hits: readonly T[], compare: (a: T, b: T) => number): Map<ChunkRef, Ranked<T>> {
  const ranked = new Map<ChunkRef, Ranked<T>>();
  for (const hit of [...hits].sort(compare)) {
    if (!ranked.has(hit.ref)) ranked.set(hit.ref, { hit, rank: ranked.size + 1 });
  }
  return ranked;
}

function finiteOr(value: number, fallback: number): number {
  return Number.isFinite(value) ? value : fallback;
}

/** Chunks holding every word first, then the rest; each part by score, best first. */
function compareKeyword(a: KeywordHit, b: KeywordHit): number {
  return (a.allWords === false ? 1 : 0) - (b.allWords === false ? 1 : 0) || finiteOr(b.score, 0) - finiteOr(a.score, 0);
}

function rankBoth(vectorHits: readonly VectorHit[], keywordHits: readonly KeywordHit[]) {
  const vector = rankHits(vectorHits, (a, b) => finiteOr(a.distance, Infinity) - finiteOr(b.distance, Infinity));
  const keyword = rankHits(keywordHits, compareKeyword);
  const refs = new Set<ChunkRef>([...vector.keys(), ...keyword.keys()]);
  return { vector, keyword, refs };
}

/**
 * Each keyword hit's normalized score, never above the score of a hit ranked before it: a chunk
 * holding only some of the words may have a higher bm25 than one holding all of them (one rare
 * word), but it ranks below, and its score must say so, or fusion would reorder the keyword list.
 */
function keywordShares(keyword: ReadonlyMap<ChunkRef, Ranked<KeywordHit>>): Map<ChunkRef, number> {
  const ordered = [...keyword.values()].sort((a, b) => a.rank - b.rank);
  const best = finiteOr(ordered[0]?.hit.score ?? 0, 0);
  const shares = new Map<ChunkRef, number>();
  let ceiling = 1;
  for (const entry of ordered) {
    ceiling = Math.min(ceiling, normalizeKeywordScore(finiteOr(entry.hit.score, 0), best));
    shares.set(entry.hit.ref, ceiling);
  }
  return shares;
}

function rawNumbers(ref: ChunkRef, vector?: Ranked<VectorHit>, keyword?: Ranked<KeywordHit>): Omit<FusedResult, "score"> {
  const row: Omit<FusedResult, "score"> = { ref };
  if (vector) {
    row.distance = vector.hit.distance;
    row.vectorRank = vector.rank;
    if (vector.hit.found === false) row.distanceLookedUp = true;
  }
  if (keyword) {
    row.keywordScore = keyword.hit.score;
    row.keywordRank = keyword.rank;
  }
  return row;
}

/** Best first; ties go to the better vector rank, then keyword rank, then ref, so output is stable. */
function compareFused(a: FusedResult, b: FusedResult): number {
  return (
    b.score - a.score ||
    (a.vectorRank ?? Infinity) - (b.vectorRank ?? Infinity) ||
    (a.keywordRank ?? Infinity) - (b.keywordRank ?? Infinity) ||
    (a.ref < b.ref ? -1 : a.ref > b.ref ? 1 : 0)
  );
}

/**
 * weighted: (vectorWeight · similarity + keywordWeight · normalized keyword score) / (sum of
 * weights). The app gives every candidate both numbers (search.ts scores the union); a side with
 * no number for a chunk (no vector, no query word) contributes 0. Dividing by the weights keeps the score in
 * 0..1 for any weights, so keyword-only search can pass { vectorWeight: 0, keywordWeight: 1 }.
 */
export function fuseWeighted(
  vectorHits: readonly VectorHit[],
  keywordHits: readonly KeywordHit[],
  options: WeightedFusionOptions = {},
): FusedResult[] {
  const vectorWeight = Math.max(0, options.vectorWeight ?? DEFAULT_VECTOR_WEIGHT);
  const keywordWeight = Math.max(0, options.keywordWeight ?? DEFAULT_KEYWORD_WEIGHT);
  const totalWeight = vectorWeight + keywordWeight;
  const { vector, keyword, refs } = rankBoth(vectorHits, keywordHits);
  const shares = keywordShares(keyword);

  // Similarities by vector rank, for chunks without a vector (see KeywordHit.hasVector).
  const similarities = [...vector.values()].map((entry) => vectorSimilarity(entry.hit.distance));
  const results: FusedResult[] = [];
  for (const ref of refs) {
    const vectorEntry = vector.get(ref);
    const keywordEntry = keyword.get(ref);
    const keywordScore = shares.get(ref) ?? 0;
    const notEmbedded = !vectorEntry && keywordEntry !== undefined && keywordEntry.hit.hasVector === false && vectorWeight > 0;
    let similarity = vectorEntry ? vectorSimilarity(vectorEntry.hit.distance) : 0;
    if (notEmbedded) {
      // The similarity the vector stage gave at this keyword rank (its last one past its end);
      // with no vector hits at all, the keyword score stands for both sides.
      similarity = similarities.length === 0 ? keywordScore : (similarities[Math.min(keywordEntry.rank, similarities.length) - 1] ?? 0);
    }
    const score = totalWeight === 0 ? 0 : (vectorWeight * similarity + keywordWeight * keywordScore) / totalWeight;
    results.push({ ...rawNumbers(ref, vectorEntry, keywordEntry), score, ...(notEmbedded ? { notEmbedded: true } : {}) });
  }
  return results.sort(compareFused);
}

/**
 * Reciprocal rank fusion: Σ 1 / (k + rank) over both lists, divided by the most a chunk can
 * get (first in both lists, 2 / (k + 1)) so the score reads as 0..1 like the weighted one.
 * The divisor is fixed, so a chunk only one list found scores at most 0.5; a chunk with no
 * vector, which only one list could find, counts its keyword rank twice.
 */
export function fuseRrf(
  vectorHits: readonly VectorHit[],
  keywordHits: readonly KeywordHit[],
  options: RrfFusionOptions = {},
): FusedResult[] {
  const k = Math.max(0, options.k ?? DEFAULT_RRF_K);
  const maximum = 2 / (k + 1);
  const { vector, keyword, refs } = rankBoth(vectorHits, keywordHits);
  const results: FusedResult[] = [];
  for (const ref of refs) {
    const vectorEntry = vector.get(ref);
    const keywordEntry = keyword.get(ref);
    const keywordPart = keywordEntry ? 1 / (k + keywordEntry.rank) : 0;
    // A chunk with no vector counts its keyword rank for the vector list too (see KeywordHit.hasVector).
    const notEmbedded = !vectorEntry && keywordEntry !== undefined && keywordEntry.hit.hasVector === false;
    const vectorPart = vectorEntry ? 1 / (k + vectorEntry.rank) : notEmbedded ? keywordPart : 0;
    results.push({ ...rawNumbers(ref, vectorEntry, keywordEntry), score: (vectorPart + keywordPart) / maximum, ...(notEmbedded ? { notEmbedded: true } : {}) });
  }
  return results.sort(compareFused);
}

/**
 * Drops results below minScore and, when maxDistance is set, those the vector stage found
 * farther than it. Results only the keyword stage found are kept whatever their vector's
 * distance: maxDistance judges what vectors found, not words.
 */
export function applyFilters(results: readonly FusedResult[], options: FilterOptions = {}): FusedResult[] {
  const minScore = options.minScore ?? DEFAULT_MIN_SCORE;
  const { maxDistance } = options;
  return results.filter(
    (result) =>
      result.score >= minScore &&
      (maxDistance === undefined || result.distance === undefined || result.distanceLookedUp === true || result.distance <= maxDistance),
  );
}

/** The first `limit` results; Infinity keeps them all, zero or less (or NaN) keeps none. */
export function limitResults<T>(results: readonly T[], limit: number): T[] {
  if (limit === Infinity) return [...results];
  if (!(limit > 0)) return [];
  return results.slice(0, Math.floor(limit));
}

/**
 * Pinned documents' chunks come first at score 1.0, in the order given, each once; a pinned
 * chunk the searches also found keeps its raw numbers and is not repeated below.
 */
export function mergePinned(results: readonly FusedResult[], pinnedRefs: readonly ChunkRef[]): FusedResult[] {
  const found = new Map(results.map((result) => [result.ref, result]));
  const pinned: FusedResult[] = [];
  const pinnedSet = new Set<ChunkRef>();
  for (const ref of pinnedRefs) {
    if (pinnedSet.has(ref)) continue;
    pinnedSet.add(ref);
    pinned.push({ ...found.get(ref), ref, score: PINNED_SCORE, pinned: true });
  }
  return [...pinned, ...results.filter((result) => !pinnedSet.has(result.ref))];
}
