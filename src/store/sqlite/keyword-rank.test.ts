import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { forEachRow, K1, rankAll, rankAny, rowAt, TopRows, type Phrase } from "./keyword-rank.js";
import { PostingsBuilder } from "./postings-builder.js";

/**
 * Packed lists (a row's high bits per segment and its low 16 bits per row, or a bit per chunk id
 * where a word is common; counts in 4 bits or a byte where they fit) must give back every row and
 * count as added, and rank as the plain formula does, for chunk ids far past 16 bits (a store
 * whose ids grew over years of re-processing).
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
/** Common words: most ids of a range, which may cross a 16-bit boundary or start anywhere. */
const denseRowSets = fc
  .tuple(fc.oneof(fc.integer({ min: 0, max: MAX_ROW - 3_000 }), fc.integer({ min: 64_000, max: 65_535 })), fc.array(fc.boolean(), { maxLength: 3_000 }), fc.integer({ min: 1, max: 4 }))
  .map(([start, holds, every]) => holds.flatMap((held, offset) => (held || offset % every === 0 ? [start + offset] : [])));
/** Per list: counts up to 15 (the usual case), up to 255, or whole counts beyond a byte and, now and then, a fraction. */
const counts = fc.oneof(
  fc.constant(fc.integer({ min: 0, max: 15 })),
  fc.constant(fc.integer({ min: 1, max: 255 })),
  fc.constant(fc.oneof(fc.integer({ min: 1, max: 3 }), fc.integer({ min: 1, max: 400 }), fc.double({ min: 0.5, max: 9, noNaN: true }))),
);
const lists = fc
  .tuple(fc.oneof(rowSets, denseRowSets), counts)
  .chain(([rows, count]) => fc.array(count, { minLength: rows.length, maxLength: rows.length }).map((freqs) => ({ rows, freqs })));

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
        forEachRow(packed, (row, count, index) => {
          rows.push(row);
          if (index % 97 === 0 || index === list.rows.length - 1) expect(rowAt(packed, index)).toBe(row);
          expect(count).toBeCloseTo(list.freqs[index] as number, 5);
        });
        expect(rows).toEqual(list.rows);
        expect(packed.length).toBe(list.rows.length);
      }),
    );
  });

  it("keep counts in 4 bits or a byte where they fit, and the rest as they are", () => {
    const small = pack({ rows: [1, 70_000, 1_500_000], freqs: [1, 2, 15] }, 1);
    expect(small.freqs.byteLength).toBe(2);
    expect(pack({ rows: [1, 70_000, 1_500_000], freqs: [1, 2, 255] }, 1).freqs).toBeInstanceOf(Uint8Array);
    expect(pack({ rows: [1, 70_000, 1_500_000], freqs: [1, 16, 255] }, 1).freqs.byteLength).toBe(3);
    expect(pack({ rows: [1, 2], freqs: [1, 256] }, 1).freqs).toBeInstanceOf(Float32Array);
    expect(pack({ rows: [1, 2], freqs: [1, 1.5] }, 1).freqs).toBeInstanceOf(Float32Array);
  });

  it("hold a word that a chunk in four holds in well under a byte a row, and a rare one in 2 bytes a row", () => {
    const rowsBytes = (list: Phrase) => list.lows.byteLength + list.segments.byteLength + (list.bits?.byteLength ?? 0) + (list.ranks?.byteLength ?? 0) + (list.offsets?.byteLength ?? 0);
    const common = Array.from({ length: 100_000 }, (_, index) => 1_000_000 + 4 * index);
    expect(rowsBytes(pack({ rows: common, freqs: common.map(() => 1) }, 1))).toBeLessThan(0.75 * common.length);
    const rare = Array.from({ length: 1_000 }, (_, index) => 1_000_000 + 400 * index);
    expect(rowsBytes(pack({ rows: rare, freqs: rare.map(() => 1) }, 1))).toBeLessThan(2.1 * rare.length);
  });

  it("find a row in a common word's list by its bit, in blocks of any fill", () => {
    const dense = Array.from({ length: 5_000 }, (_, index) => 65_000 + index).filter((row) => row % 3 !== 0 || row % 7 === 0);
    const packed = pack({ rows: dense, freqs: dense.map((row) => 1 + (row % 13)) }, 1);
    expect(packed.bits).not.toBeNull();
    for (const rare of [[65_000, 65_001, 65_535, 65_536, 66_000, 69_999], [64_999, 70_000, 65_001 + 3 * 7]]) {
      const top = new TopRows(10);
      rankAll([pack({ rows: rare, freqs: rare.map(() => 1) }, 1), packed], norms, top, () => true);
      const want = expected([{ rows: rare, freqs: rare.map(() => 1), idf: 1 }, { rows: dense, freqs: dense.map((row) => 1 + (row % 13)), idf: 1 }], "all", 10);
      expect(top.sorted()).toEqual(want);
    }
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
