import { describe, expect, it } from "vitest";
import type { ScoredChunk } from "../core/types.js";
import { shouldRefuse } from "./guardrail.js";

function scored(ref: string, score: number, extra: Partial<ScoredChunk> = {}): ScoredChunk {
  return {
    chunk: {
      ref, documentId: "doc", folderId: "f", relativePath: "notes.md", ordinal: 1,
      title: "Notes", content: "text", contentHash: "h", included: true,
    },
    score,
    isIncluded: true,
    ...extra,
  };
}

describe("shouldRefuse", () => {
  it("answers when the best included chunk reaches the floor", () => {
    const decision = shouldRefuse([scored("a", 0.2), scored("b", 0.4)], { minSimilarity: 0.25 });
    expect(decision).toMatchObject({ refuse: false, bestSimilarity: 0.4 });
    expect(decision.best?.chunk.ref).toBe("b");
  });

  it("refuses when the best included chunk is below the floor, naming both numbers", () => {
    const decision = shouldRefuse([scored("a", 0.12), scored("b", 0.9, { isIncluded: false })], { minSimilarity: 0.25 });
    expect(decision).toMatchObject({ refuse: true, reason: "below-similarity-floor", bestSimilarity: 0.12 });
    expect(decision.refuse && decision.message).toBe("The closest chunk scores 12%, below the 25% floor.");
  });

  it("refuses when nothing was found or every chunk is switched off", () => {
    expect(shouldRefuse([], { minSimilarity: 0.25 })).toMatchObject({ refuse: true, reason: "no-included-chunks" });
    expect(shouldRefuse([scored("a", 0.9, { isIncluded: false })], { minSimilarity: 0 })).toMatchObject({
      refuse: true,
      reason: "no-included-chunks",
    });
  });

  it("accepts exactly the floor", () => {
    expect(shouldRefuse([scored("a", 0.25)], { minSimilarity: 0.25 }).refuse).toBe(false);
  });

  it("can judge by another measure, such as vector similarity", () => {
    const results = [scored("a", 0.3, { distance: 0.85 }), scored("b", 0.2)];
    const bySimilarity = shouldRefuse(results, { minSimilarity: 0.25, similarityOf: (result) => 1 - (result.distance ?? 1) });
    expect(bySimilarity).toMatchObject({ refuse: true, reason: "below-similarity-floor" });
    expect(bySimilarity.refuse && bySimilarity.bestSimilarity).toBeCloseTo(0.15);
  });
});
