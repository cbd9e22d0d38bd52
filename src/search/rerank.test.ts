import { describe, expect, it } from "vitest";
import { blendRerank, sigmoid } from "./rerank.js";

const fused = [
  { ref: "a", score: 0.9 },
  { ref: "b", score: 0.8 },
  { ref: "c", score: 0.7 },
  { ref: "d", score: 0.6 },
];

describe("blendRerank", () => {
  it("orders re-scored results by the blend, keeping the fused score and both ranks for --explain", () => {
    const out = blendRerank(fused, [-2, 3, 0], 0.7);
    expect(out.map((row) => row.ref)).toEqual(["b", "c", "a", "d"]);
    expect(out[0]).toMatchObject({ ref: "b", fusedScore: 0.8, rerankRank: 1 });
    expect(out[0]?.score).toBeCloseTo(0.7 * sigmoid(3) + 0.3 * 0.8, 10);
    expect(out[2]).toMatchObject({ ref: "a", rerankRank: 3 });
  });

  it("never lets a result it did not score rank above one it did", () => {
    const out = blendRerank(fused, [-6, -6], 0.9);
    const lowestScored = Math.min(out[0]?.score ?? 0, out[1]?.score ?? 0);
    expect(out.slice(2).every((row) => row.score <= lowestScored)).toBe(true);
    expect(out.slice(2).map((row) => row.ref)).toEqual(["c", "d"]);
    expect(out[2]).toMatchObject({ fusedScore: 0.7 });
  });

  it("with weight 0 keeps the fused order and scores", () => {
    expect(blendRerank(fused, [5, -5, 0, 1], 0).map((row) => [row.ref, row.score])).toEqual(fused.map((row) => [row.ref, row.score]));
  });
});
