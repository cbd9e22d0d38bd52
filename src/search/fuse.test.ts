import { describe, expect, it } from "vitest";
import { applyFilters, fuseRrf, fuseWeighted, limitResults, mergePinned, normalizeKeywordScore, vectorSimilarity } from "./fuse.js";
import type { FusedResult } from "./fuse.js";

const byRef = (results: FusedResult[]): Record<string, FusedResult> => Object.fromEntries(results.map((result) => [result.ref, result]));

describe("vectorSimilarity", () => {
  it("is 1 - cosine distance, kept within 0..1", () => {
    expect(vectorSimilarity(0.25)).toBeCloseTo(0.75);
    expect(vectorSimilarity(1.6)).toBe(0);
    expect(vectorSimilarity(-0.01)).toBe(1);
    expect(vectorSimilarity(Number.NaN)).toBe(0);
  });
});

describe("normalizeKeywordScore", () => {
  it("scores the best hit 1 and others in proportion to it", () => {
    expect(normalizeKeywordScore(8, 8)).toBe(1);
    expect(normalizeKeywordScore(2, 8)).toBeCloseTo(0.25);
  });

  it("scores hits without positive strength as equal matches", () => {
    expect(normalizeKeywordScore(0, 0)).toBe(1);
    expect(normalizeKeywordScore(-0.5, -0.5)).toBe(1);
  });
});

describe("fuseWeighted", () => {
  const vectorHits = [
    { ref: "a", distance: 0.2 },
    { ref: "b", distance: 0.4 },
  ];
  const keywordHits = [
    { ref: "c", score: 4 },
    { ref: "a", score: 8 },
  ];

  it("blends 0.7 vector similarity with 0.3 normalized keyword score", () => {
    const results = byRef(fuseWeighted(vectorHits, keywordHits));
    expect(results.a?.score).toBeCloseTo(0.7 * 0.8 + 0.3 * 1);
    expect(results.b?.score).toBeCloseTo(0.7 * 0.6);
    expect(results.c?.score).toBeCloseTo(0.3 * 0.5);
  });

  it("ranks best first and keeps each stage's raw numbers and ranks", () => {
    const results = fuseWeighted(vectorHits, keywordHits);
    expect(results.map((result) => result.ref)).toEqual(["a", "b", "c"]);
    expect(results[0]).toMatchObject({ ref: "a", distance: 0.2, vectorRank: 1, keywordScore: 8, keywordRank: 1 });
    expect(results[2]).toEqual({ ref: "c", score: expect.any(Number), keywordScore: 4, keywordRank: 2 });
  });

  it("ranks the input lists itself, whatever order they come in", () => {
    const results = byRef(fuseWeighted([...vectorHits].reverse(), [...keywordHits].reverse()));
    expect(results.b?.vectorRank).toBe(2);
    expect(results.c?.keywordRank).toBe(2);
  });

  it("gives a lone keyword hit its full keyword share, not zero or more", () => {
    const [only] = fuseWeighted([], [{ ref: "x", score: 0.3 }]);
    expect(only?.score).toBeCloseTo(0.3);
  });

  it("keeps scores within 0..1 for any weights, so keyword-only search reads as 0..100%", () => {
    const keywordOnly = fuseWeighted([], keywordHits, { vectorWeight: 0, keywordWeight: 1 });
    expect(keywordOnly.map((result) => result.score)).toEqual([1, 0.5]);
    const heavy = fuseWeighted(vectorHits, keywordHits, { vectorWeight: 3, keywordWeight: 3 });
    for (const result of heavy) expect(result.score).toBeLessThanOrEqual(1);
  });

  it("counts a chunk listed twice once, at its better position", () => {
    const results = fuseWeighted([{ ref: "a", distance: 0.5 }, { ref: "a", distance: 0.1 }], []);
    expect(results).toHaveLength(1);
    expect(results[0]?.distance).toBe(0.1);
  });

  it("returns nothing for nothing", () => {
    expect(fuseWeighted([], [])).toEqual([]);
  });

  it("ranks chunks holding every word above chunks holding some, even when one rare word scores more", () => {
    const hits = [
      { ref: "some", score: 9, allWords: false },
      { ref: "all-weak", score: 2, allWords: true },
      { ref: "all-strong", score: 4, allWords: true },
    ];
    const results = fuseWeighted([], hits, { vectorWeight: 0, keywordWeight: 1 });
    expect(results.map((result) => result.ref)).toEqual(["all-strong", "all-weak", "some"]);
    expect(results.map((result) => result.score)).toEqual([1, 0.5, 0.5]);
    expect(results[2]).toMatchObject({ keywordScore: 9, keywordRank: 3 });
  });

  it("keeps a keyword-found chunk whose distance was looked up, whatever maxDistance says", () => {
    const results = fuseWeighted([{ ref: "near", distance: 0.1 }, { ref: "words", distance: 0.9, found: false }], [{ ref: "words", score: 3 }]);
    expect(byRef(results).words).toMatchObject({ distance: 0.9, distanceLookedUp: true });
    expect(applyFilters(results, { maxDistance: 0.5 }).map((result) => result.ref).sort()).toEqual(["near", "words"]);
  });
});

describe("fuseRrf", () => {
  it("sums 1/(60 + rank) over both lists, scaled so first in both is 1", () => {
    const results = byRef(
      fuseRrf(
        [{ ref: "a", distance: 0.1 }, { ref: "b", distance: 0.2 }],
        [{ ref: "b", score: 9 }, { ref: "c", score: 1 }],
      ),
    );
    const scale = 61 / 2;
    expect(results.a?.score).toBeCloseTo((1 / 61) * scale);
    expect(results.b?.score).toBeCloseTo((1 / 62 + 1 / 61) * scale);
    expect(results.c?.score).toBeCloseTo((1 / 62) * scale);
    expect(fuseRrf([{ ref: "z", distance: 0 }], [{ ref: "z", score: 1 }])[0]?.score).toBeCloseTo(1);
  });

  it("puts a chunk both searches found above one only a single search found", () => {
    const results = fuseRrf(
      [{ ref: "only-vector", distance: 0.1 }, { ref: "both", distance: 0.3 }],
      [{ ref: "only-keyword", score: 9 }, { ref: "both", score: 5 }],
    );
    expect(results[0]?.ref).toBe("both");
  });
});

describe("applyFilters", () => {
  const results: FusedResult[] = [
    { ref: "close", score: 0.8, distance: 0.2 },
    { ref: "far", score: 0.5, distance: 0.9 },
    { ref: "words", score: 0.3, keywordScore: 2 },
    { ref: "weak", score: 0.05, distance: 0.95 },
  ];

  it("drops results below minScore (0.1 by default)", () => {
    expect(applyFilters(results).map((result) => result.ref)).toEqual(["close", "far", "words"]);
    expect(applyFilters(results, { minScore: 0.4 }).map((result) => result.ref)).toEqual(["close", "far"]);
  });

  it("drops results farther than maxDistance, keeping keyword-only hits", () => {
    expect(applyFilters(results, { maxDistance: 0.5 }).map((result) => result.ref)).toEqual(["close", "words"]);
  });
});

describe("limitResults", () => {
  it("keeps the first n", () => {
    expect(limitResults([1, 2, 3], 2)).toEqual([1, 2]);
    expect(limitResults([1, 2, 3], Infinity)).toEqual([1, 2, 3]);
    expect(limitResults([1, 2, 3], 0)).toEqual([]);
  });
});

describe("mergePinned", () => {
  it("puts pinned chunks first at score 1, once each, keeping raw numbers of ones also found", () => {
    const results: FusedResult[] = [
      { ref: "found", score: 0.6, distance: 0.3, vectorRank: 1 },
      { ref: "pinned-and-found", score: 0.4, keywordScore: 3, keywordRank: 1 },
    ];
    const merged = mergePinned(results, ["pinned-only", "pinned-and-found", "pinned-only"]);
    expect(merged).toEqual([
      { ref: "pinned-only", score: 1, pinned: true },
      { ref: "pinned-and-found", score: 1, pinned: true, keywordScore: 3, keywordRank: 1 },
      { ref: "found", score: 0.6, distance: 0.3, vectorRank: 1 },
    ]);
  });

  it("changes nothing without pins", () => {
    const results: FusedResult[] = [{ ref: "a", score: 0.5 }];
    expect(mergePinned(results, [])).toEqual(results);
  });
});

describe("fusion over partly embedded chunks", () => {
  const vectorHits = [
    { ref: "f:a.md#1", distance: 0.2 },
    { ref: "f:b.md#1", distance: 0.4 },
    { ref: "f:c.md#1", distance: 0.5 },
  ];
  // new.md has no vector: it is the best keyword hit, and the vector stage could never see it.
  const keywordHits = [
    { ref: "f:new.md#1", score: 6, hasVector: false },
    { ref: "f:b.md#1", score: 3, hasVector: true },
    { ref: "f:old.md#1", score: 2, hasVector: true },
  ];

  it("weighted: scores a chunk without a vector at its keyword rank's similarity, not capped at the keyword weight", () => {
    const results = fuseWeighted(vectorHits, keywordHits);
    const fresh = byRef(results)["f:new.md#1"];
    // The vector stage's rank-1 similarity (0.8) and the best keyword score (1).
    expect(fresh?.score).toBeCloseTo(0.7 * 0.8 + 0.3 * 1);
    expect(fresh?.notEmbedded).toBe(true);
    expect(results[0]?.ref).toBe("f:new.md#1");
    // A chunk with a vector the vector stage did not rank keeps 0 for that side.
    expect(byRef(results)["f:old.md#1"]?.score).toBeCloseTo(0.3 * (2 / 6));
    expect(byRef(results)["f:old.md#1"]?.notEmbedded).toBeUndefined();
  });

  it("weighted: past the vector list's end, the last similarity; with no vectors at all, the keyword score", () => {
    const lateHits = [
      { ref: "f:x.md#1", score: 6, hasVector: true },
      { ref: "f:y.md#1", score: 5, hasVector: true },
      { ref: "f:z.md#1", score: 4, hasVector: true },
      { ref: "f:late.md#1", score: 3, hasVector: false },
    ];
    expect(byRef(fuseWeighted(vectorHits, lateHits))["f:late.md#1"]?.score).toBeCloseTo(0.7 * 0.5 + 0.3 * 0.5);
    expect(byRef(fuseWeighted([], lateHits))["f:late.md#1"]?.score).toBeCloseTo(0.5);
  });

  it("rrf: counts a chunk without a vector at its keyword rank in both lists", () => {
    const results = byRef(fuseRrf(vectorHits, keywordHits));
    expect(results["f:new.md#1"]?.score).toBeCloseTo(1);
    expect(results["f:new.md#1"]?.notEmbedded).toBe(true);
    expect(results["f:old.md#1"]?.score).toBeCloseTo((1 / 63) / (2 / 61));
  });
});
