import { describe, expect, it } from "vitest";
import { cosineDistanceToHalf, toHalfBlob } from "./half-float.js";

function cosineDistance(a: Float32Array, b: Float32Array): number {
  let dot = 0, normA = 0, normB = 0;
  for (let index = 0; index < a.length; index++) {
    dot += (a[index] as number) * (b[index] as number);
    normA += (a[index] as number) ** 2;
    normB += (b[index] as number) ** 2;
  }
  return 1 - dot / Math.sqrt(normA * normB);
}

describe("float16 copies of vectors", () => {
  it("keep cosine distances within 1e-3 of float32's", () => {
    let state = 5;
    const random = () => ((state = (Math.imul(state, 1664525) + 1013904223) >>> 0) / 4294967296) - 0.5;
    for (const dimensions of [3, 64, 768]) {
      for (let trial = 0; trial < 20; trial++) {
        const a = Float32Array.from({ length: dimensions }, random);
        const b = Float32Array.from({ length: dimensions }, (_, index) => (a[index] as number) * (trial / 20) + random());
        expect(Math.abs(cosineDistanceToHalf(a, toHalfBlob(b)) - cosineDistance(a, b))).toBeLessThan(1e-3);
      }
    }
  });

  it("round values to the nearest float16, keep signs, and saturate beyond its range", () => {
    const blob = toHalfBlob(Float32Array.from([1, -2, 0.1, 1e-6, 1e6, -0]));
    expect(Array.from({ length: 6 }, (_, index) => blob.readUInt16LE(index * 2))).toEqual([0x3c00, 0xc000, 0x2e66, 0x0011, 0x7c00, 0x8000]);
    expect(cosineDistanceToHalf(Float32Array.from([1, 0]), toHalfBlob(Float32Array.from([0, 0])))).toBe(1);
  });
});
