import type { ScoredChunk } from "../core/types.js";

/** What Chunkpad answers, without calling the LLM, when the documents hold nothing close enough. */
export const REFUSAL_TEXT = "I don't know based on your documents.";

/** The config default (generation.minSimilarity), what `eval --calibrate` writes for the shared ClapNQ half (decisions 041, 047). */
export const DEFAULT_MIN_SIMILARITY = 0.47;

export interface GuardrailOptions {
  /** The floor the best included chunk must reach, 0..1. */
  minSimilarity: number;
  /**
   * How close a chunk is to the question, 0..1. Defaults to the fused score. A caller can pass
   * e.g. `(result) => 1 - (result.distance ?? 1)` to judge by vector similarity alone.
   */
  similarityOf?: (result: ScoredChunk) => number;
}

export type RefusalReason = "no-included-chunks" | "below-similarity-floor";

export type GuardrailDecision =
  | { refuse: false; bestSimilarity: number; best: ScoredChunk }
  | { refuse: true; reason: RefusalReason; message: string; bestSimilarity?: number; best?: ScoredChunk };

/**
 * Decides whether to answer "I don't know" without calling the LLM: when the user switched
 * every chunk off (or none was found), or when the best included chunk is below the floor.
 * Pinned chunks (score 1.0) count: the user chose those documents.
 */
export function shouldRefuse(results: readonly ScoredChunk[], options: GuardrailOptions): GuardrailDecision {
  const similarityOf = options.similarityOf ?? ((result: ScoredChunk) => result.score);
  let best: ScoredChunk | undefined;
  let bestSimilarity = -Infinity;
  for (const result of results) {
    if (!result.isIncluded) continue;
    const similarity = similarityOf(result);
    if (Number.isFinite(similarity) && similarity > bestSimilarity) {
      best = result;
      bestSimilarity = similarity;
    }
  }
  if (best === undefined) {
    return {
      refuse: true,
      reason: "no-included-chunks",
      message: "No chunk is included: search found nothing, or every chunk was switched off.",
    };
  }
  if (bestSimilarity < options.minSimilarity) {
    const percent = (value: number): string => `${Math.round(value * 100)}%`;
    return {
      refuse: true,
      reason: "below-similarity-floor",
      message: `The closest chunk scores ${percent(bestSimilarity)}, below the ${percent(options.minSimilarity)} floor.`,
      bestSimilarity,
      best,
    };
  }
  return { refuse: false, bestSimilarity, best };
}
