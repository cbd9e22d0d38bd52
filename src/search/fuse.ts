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
}

export interface KeywordHit {
  ref: ChunkRef;
  /** Raw FTS5 bm25(): negative, lower is better. */
  bm25: number;
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
 * bm25 normalized per query: each hit's strength (-bm25) divided by the best hit's, so the
 * best hit scores 1 and the others keep their proportion to it. Unlike min-max, a single hit
 * scores 1 (not 0/0) and the weakest of several still scores above 0: it did match.
 * If no hit has positive strength (FTS5 clamps IDF for words in most documents), all matched
 * equally well and all score 1.
 */
export function normalizeBm25(bm25: number, bestBm25: number): number {
  const best = Math.max(0, -bestBm25);
  if (best === 0) return 1;
  const strength = Math.max(0, -bm25);
  return Math.min(1, strength / best);
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

function rankBoth(vectorHits: readonly VectorHit[], keywordHits: readonly KeywordHit[]) {
  const vector = rankHits(vectorHits, (a, b) => finiteOr(a.distance, Infinity) - finiteOr(b.distance, Infinity));
  const keyword = rankHits(keywordHits, (a, b) => finiteOr(a.bm25, 0) - finiteOr(b.bm25, 0));
  const refs = new Set<ChunkRef>([...vector.keys(), ...keyword.keys()]);
  return { vector, keyword, refs };
}

function rawNumbers(ref: ChunkRef, vector?: Ranked<VectorHit>, keyword?: Ranked<KeywordHit>): Omit<FusedResult, "score"> {
  const row: Omit<FusedResult, "score"> = { ref };
  if (vector) {
    row.distance = vector.hit.distance;
    row.vectorRank = vector.rank;
  }
  if (keyword) {
    row.bm25 = keyword.hit.bm25;
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
 * weighted: (vectorWeight · similarity + keywordWeight · normalized bm25) / (sum of weights).
 * A side that did not see a chunk contributes 0. Dividing by the weights keeps the score in
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
  const bestBm25 = [...keyword.values()].find((entry) => entry.rank === 1)?.hit.bm25 ?? 0;

  // Similarities by vector rank, for chunks without a vector (see KeywordHit.hasVector).
  const similarities = [...vector.values()].map((entry) => vectorSimilarity(entry.hit.distance));
  const results: FusedResult[] = [];
  for (const ref of refs) {
    const vectorEntry = vector.get(ref);
    const keywordEntry = keyword.get(ref);
    const keywordScore = keywordEntry ? normalizeBm25(finiteOr(keywordEntry.hit.bm25, 0), finiteOr(bestBm25, 0)) : 0;
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
 * Drops results below minScore and, when maxDistance is set, those the vector stage saw
 * farther than it. Results the vector stage did not see (keyword-only hits) have no distance
 * and are kept: maxDistance judges vectors, not words.
 */
export function applyFilters(results: readonly FusedResult[], options: FilterOptions = {}): FusedResult[] {
  const minScore = options.minScore ?? DEFAULT_MIN_SCORE;
  const { maxDistance } = options;
  return results.filter(
    (result) =>
      result.score >= minScore &&
      (maxDistance === undefined || result.distance === undefined || result.distance <= maxDistance),
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
