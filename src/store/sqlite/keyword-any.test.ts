import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { SqliteMainStore } from "./main-store.js";
import { openSqliteMainStore } from "./main-store.js";

/**
 * The OR of several words ranked by MaxScore (keywordSearchAny) must give exactly what FTS5
 * gives for the plain OR: the same chunks, in the same order, with the same bm25 — with words
 * of every frequency, a word given twice, exclusions, excluded chunks and a folder filter.
 */
describe("keywordSearchAny: MaxScore ranks any-word queries exactly as the plain OR", () => {
  let directory: string;
  let store: SqliteMainStore;
  let folders: string[];
  // Letters only: the index cuts words at letter/digit boundaries (core/searchable-text.ts).
  const vocabulary = Array.from({ length: 400 }, (_, index) => `w${String.fromCharCode(97 + (index % 26))}${String.fromCharCode(97 + Math.floor(index / 26))}x`);
  let seed = 7;
  const next = () => {
    seed = (Math.imul(seed, 1664525) + 1013904223) >>> 0;
    return seed / 4294967296;
  };
  // Zipf-like: a few words in most chunks, most words in few.
  const word = () => vocabulary[Math.min(vocabulary.length - 1, Math.floor(vocabulary.length * next() ** 3))] as string;

  beforeAll(() => {
    directory = fs.mkdtempSync(path.join(os.tmpdir(), "chunkpad-keyword-any-"));
    store = openSqliteMainStore({ path: path.join(directory, "chunkpad.db"), loadVectorExtension: false });
    folders = [store.upsertFolder("/a", "/a/_chunks").id, store.upsertFolder("/b", "/b/_chunks").id];
    for (let document = 0; document < 300; document++) {
      const chunks = Array.from({ length: 8 }, () => ({ content: Array.from({ length: 20 + Math.floor(next() * 60) }, word).join(" "), meta: {} }));
      store.syncDocument({ folderId: folders[document % 2] as string, relativePath: `d${document}.md`, title: `${word()} ${word()}`, documentType: "md", fileSize: 1, pageCount: null, chunks });
    }
    // Some of the best chunks are excluded by the user: they must never come back.
    store.setIncluded(Array.from({ length: 40 }, (_, index) => `${folders[0]}:d${index * 2}.md#1`), false);
  });
  afterAll(() => {
    store.close();
    fs.rmSync(directory, { recursive: true, force: true });
  });

  const quoted = (words: string[]) => words.map((entry) => `"${entry}"`);
  const plainOr = (terms: string[], exclude: string[]) => `(${terms.join(" OR ")})${exclude.length > 0 ? ` NOT (${exclude.join(" OR ")})` : ""}`;

  it("gives the same chunks, order and scores for 60 random queries", () => {
    let compared = 0;
    for (let query = 0; query < 60; query++) {
      const words = Array.from({ length: 2 + Math.floor(next() * 4) }, word);
      if (query % 5 === 0) words.push(words[0] as string); // a word given twice counts twice
      const exclude = query % 7 === 0 ? [word()] : [];
      const options = query % 3 === 0 ? { limit: 25, folders: [folders[1] as string] } : { limit: 25 };
      const expected = store.keywordSearch(plainOr(quoted(words), quoted(exclude)), options);
      const actual = store.keywordSearchAny(quoted(words), quoted(exclude), options, { maxScoreFrom: 0 });
      expect(actual.map((hit) => hit.chunk.ref)).toEqual(expected.map((hit) => hit.chunk.ref));
      actual.forEach((hit, index) => expect(hit.bm25).toBeCloseTo((expected[index] as { bm25: number }).bm25, 9));
      compared += expected.length;
    }
    expect(compared).toBeGreaterThan(60 * 10);
  });

  it("never returns an excluded chunk, and leaves out a word that matches nothing", () => {
    const excluded = new Set(Array.from({ length: 40 }, (_, index) => `${folders[0]}:d${index * 2}.md#1`));
    const hits = store.keywordSearchAny(quoted([vocabulary[0] as string, vocabulary[1] as string, "neverseenword"]), [], { limit: 200 }, { maxScoreFrom: 0 });
    expect(hits.length).toBe(200);
    expect(hits.some((hit) => excluded.has(hit.chunk.ref))).toBe(false);
    expect(store.keywordSearchAny(quoted(["neverseenword", "nordidthis"]), [], { limit: 10 }, { maxScoreFrom: 0 })).toEqual([]);
  });
});
