import type { FusedResult } from "./fuse.js";

/**
 * The rerank stage's arithmetic: a cross-encoder's logits for the top results become a share of
 * their score (score = weight · sigmoid(logit) + (1 − weight) · fused), and the re-scored
 * results are ordered by it. Results it did not score (beyond the candidates, or past the time
 * budget) follow in their fused order, never above a re-scored one.
 */

export function sigmoid(logit: number): number {
  return 1 / (1 + Math.exp(-logit));
}

/** `logits[i]` belongs to `results[i]`; results past `logits.length` were not re-scored. */
export function blendRerank(results: readonly FusedResult[], logits: readonly number[], weight: number): FusedResult[] {
  const scored = results.slice(0, logits.length).map((result, index) => {
    const rerankScore = sigmoid(logits[index] as number);
    return { ...result, fusedScore: result.score, rerankScore, score: weight * rerankScore + (1 - weight) * result.score };
  });
  const byLogit = scored.map((result, index) => ({ ref: result.ref, logit: logits[index] as number })).sort((a, b) => b.logit - a.logit);
  const rerankRank = new Map(byLogit.map((entry, index) => [entry.ref, index + 1]));
  const ordered = scored.map((result) => ({ ...result, rerankRank: rerankRank.get(result.ref) as number })).sort((a, b) => b.score - a.score || (a.rerankRank - b.rerankRank));
  const floor = ordered.length > 0 ? (ordered.at(-1) as FusedResult).score : Infinity;
  const rest = results.slice(logits.length).map((result) => (result.score > floor ? { ...result, fusedScore: result.score, score: floor } : result));
  return [...ordered, ...rest];
}
