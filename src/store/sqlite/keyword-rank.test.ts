import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { forEachRow, K1, PostingsBuilder, rankAll, rankAny, rowAt, TopRows, type Phrase } from "./keyword-rank.js";

/**
 * Packed lists (a row's high bits per segment, its low 16 bits per row; counts as bytes where they
 * fit) must give back every row and count as added, and rank as the plain formula does, for chunk
 * ids far past 16 bits (a store whose ids grew over years of re-processing).
 */
const MAX_ROW = 1 << 21;
const norms = Float64Array.from({ length: MAX_ROW }, (_, row) => 0.4 + (row % 97) / 50);
const scratch = { scores: new Float64Array(MAX_ROW), seen: new Uint8Array(MAX_ROW), rows: new Int32Array(MAX_ROW) };

/**
 * Rows ascending and distinct: from anywhere below MAX_ROW, in runs across a 16-bit boundary, and
 * rows that share their low 16 bits with rows of other segments (which a lookup must tell apart).
 */
const sharedLows = fc.tuple(fc.constantFrom(0, 1, 3, 30), fc.constantFrom(0, 1, 2, 7, 65_535)).map(([high, low]) => high * 65_536 + low);
const rowSets = fc
  .array(fc.oneof(fc.integer({ min: 0, max: MAX_ROW - 1 }), fc.integer({ min: 65_500, max: 65_600 }), sharedLows), { maxLength: 300 })
  .map((rows) => [...new Set(rows)].sort((a, b) => a - b));
/** Whole counts (most fit a byte; some do not) or, now and then, a fraction. */
const counts = fc.oneof(fc.integer({ min: 1, max: 3 }), fc.integer({ min: 1, max: 400 }), fc.double({ min: 0.5, max: 9, noNaN: true }));
const lists = rowSets.chain((rows) => fc.array(counts, { minLength: rows.length, maxLength: rows.length }).map((freqs) => ({ rows, freqs })));

function pack({ rows, freqs }: { rows: number[]; freqs: number[] }, idf: number): Phrase {
  const builder = new PostingsBuilder();
  rows.forEach((row, index) => builder.add(row, freqs[index] as number));
  return { ...builder.take(), idf };
}

const part = (freq: number, row: number, idf: number) => idf * ((freq * (K1 + 1.0)) / (freq + (norms[row] as number)));

/** The best `limit` rows as the formula gives them, ties to the lower row. */
function expected(phrases: Array<{ rows: number[]; freqs: number[]; idf: number }>, match: "all" | "any", limit: number): Array<{ id: number; bm25: number }> {
  const scores = new Map<number, number[]>();
  phrases.forEach(({ rows, freqs, idf }, which) =>
    rows.forEach((row, index) => {
      const parts = scores.get(row) ?? new Array<number>(phrases.length).fill(0);
      // Counts that do not fit a byte are kept as 32-bit floats.
      parts[which] = part(Math.fround(freqs[index] as number), row, idf);
      scores.set(row, parts);
    }),
  );
  const present = (row: number) => phrases.every(({ rows }) => rows.includes(row));
  return [...scores]
    .filter(([row]) => match === "any" || present(row))
    .map(([id, parts]) => ({ id, bm25: -parts.reduce((sum, value) => sum + value, 0) }))
    .sort((a, b) => a.bm25 - b.bm25 || a.id - b.id)
    .slice(0, limit);
}

describe("packed keyword lists", () => {
  it("give back every row and count as added, by position and in order", () => {
    fc.assert(
      fc.property(lists, (list) => {
        const packed = pack(list, 1);
        const rows: number[] = [];
        forEachRow(packed, (row, index) => {
          rows.push(row);
          expect(rowAt(packed, index)).toBe(row);
          expect(packed.freqs[index]).toBeCloseTo(list.freqs[index] as number, 5);
        });
        expect(rows).toEqual(list.rows);
        expect(packed.length).toBe(list.rows.length);
      }),
    );
  });

  it("keep counts that fit in a byte as bytes, and the rest as they are", () => {
    expect(pack({ rows: [1, 70_000, 1_500_000], freqs: [1, 2, 255] }, 1).freqs).toBeInstanceOf(Uint8Array);
    expect(pack({ rows: [1, 2], freqs: [1, 256] }, 1).freqs).toBeInstanceOf(Float32Array);
    expect(pack({ rows: [1, 2], freqs: [1, 1.5] }, 1).freqs).toBeInstanceOf(Float32Array);
  });

  it("tell apart rows that share their low 16 bits", () => {
    for (const [rare, common] of [[[7], [65_543]], [[65_543], [7, 131_079]], [[5, 65_541], [65_541, 131_077]]] as const) {
      const top = new TopRows(10);
      rankAll([pack({ rows: [...rare], freqs: rare.map(() => 1) }, 1), pack({ rows: [...common], freqs: common.map(() => 1) }, 1)], norms, top, () => true);
      expect(top.sorted().map((hit) => hit.id)).toEqual(rare.filter((row) => (common as readonly number[]).includes(row)));
    }
  });

  it("rank all-word and any-word queries as the formula does, across segments", () => {
    fc.assert(
      fc.property(fc.array(fc.tuple(lists, fc.double({ min: 0.01, max: 5, noNaN: true })), { minLength: 1, maxLength: 4 }), fc.integer({ min: 1, max: 40 }), (query, limit) => {
        const phrases = query.map(([list, idf]) => pack(list, idf));
        const plain = query.map(([list, idf]) => ({ ...list, idf }));
        for (const match of ["all", "any"] as const) {
          const top = new TopRows(limit);
          if (match === "all") rankAll(phrases, norms, top, () => true);
          else rankAny(phrases, norms, scratch, top, () => true);
          const got = top.sorted();
          const want = expected(plain, match, limit);
          expect(got.map((hit) => hit.id)).toEqual(want.map((hit) => hit.id));
          got.forEach((hit, index) => expect(hit.bm25).toBeCloseTo((want[index] as { bm25: number }).bm25, 9));
        }
      }),
      { numRuns: 200 },
    );
  });
});
