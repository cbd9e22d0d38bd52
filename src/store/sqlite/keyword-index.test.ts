import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { KeywordTerm } from "../../core/keyword-query.js";
import { quoteWords } from "../../core/keyword-query.js";
import { openDatabase } from "./database.js";
import { createMemoryKeywordIndex } from "./keyword-index.js";
import { toMatchExpression } from "./fts-query.js";
import type { FtsHit } from "./keyword.js";
import type { SqliteMainStore } from "./main-store.js";
import { openSqliteMainStore } from "./main-store.js";

/**
 * The keyword index in memory (decision 031) must rank exactly as FTS5 does — the same chunks,
 * order and bm25 — for all-word and any-word queries, prefixes, a word given twice, exclusions,
 * excluded chunks and folder filters, and stay so while other processes write.
 */
/** The lists read only as searches need them, all read before the first search, or half read. */
const READ_STATES = [
  { state: "words read as searches need them", warm: () => {} },
  { state: "every word read first", warm: (store: SqliteMainStore) => expect(store.warmKeywordIndex()).toBe(false) },
  {
    state: "half the words read in slices",
    warm: (store: SqliteMainStore) => {
      for (let slice = 0; slice < 150; slice++) expect(store.warmKeywordIndex(0)).toBe(true);
    },
  },
];

describe.each(READ_STATES)("keyword index in memory, $state", ({ warm }) => {
  let directory: string;
  let file: string;
  let memory: SqliteMainStore;
  let fts: SqliteMainStore;
  let writer: SqliteMainStore;
  let folders: string[];
  // Letters only: the index cuts words at letter/digit boundaries (core/searchable-text.ts).
  const vocabulary = Array.from({ length: 300 }, (_, index) => `w${String.fromCharCode(97 + (index % 26))}${String.fromCharCode(97 + Math.floor(index / 26))}x${"abcdefgh"[index % 8]}`);
  let seed = 11;
  const next = () => {
    seed = (Math.imul(seed, 1664525) + 1013904223) >>> 0;
    return seed / 4294967296;
  };
  // Zipf-like: a few words in most chunks, most words in few.
  const word = () => vocabulary[Math.min(vocabulary.length - 1, Math.floor(vocabulary.length * next() ** 3))] as string;
  const chunks = (count: number) => Array.from({ length: count }, () => ({ content: Array.from({ length: 10 + Math.floor(next() * 50) }, word).join(" "), meta: {} }));
  const addDocument = (store: SqliteMainStore, folderId: string, name: string, count = 6) =>
    store.syncDocument({ folderId, relativePath: name, title: `${word()} ${word()}`, documentType: "md", fileSize: 1, pageCount: null, chunks: chunks(count) });

  beforeAll(() => {
    directory = fs.mkdtempSync(path.join(os.tmpdir(), "chunkpad-keyword-index-"));
    file = path.join(directory, "chunkpad.db");
    writer = openSqliteMainStore({ path: file, loadVectorExtension: false });
    folders = [writer.upsertFolder("/a", "/a/_chunks").id, writer.upsertFolder("/b", "/b/_chunks").id];
    for (let document = 0; document < 200; document++) addDocument(writer, folders[document % 2] as string, `d${document}.md`);
    writer.setIncluded(Array.from({ length: 30 }, (_, index) => `${folders[0]}:d${index * 2}.md#1`), false);
    memory = openSqliteMainStore({ path: file, loadVectorExtension: false, keywordIndexInMemory: true, keywordIndexWarmup: false });
    fts = openSqliteMainStore({ path: file, loadVectorExtension: false });
    warm(memory);
  });
  afterAll(() => {
    for (const store of [memory, fts, writer]) store.close();
    fs.rmSync(directory, { recursive: true, force: true });
  });

  type Options = { limit: number; folderIds?: string[] };
  const inMemory = (terms: KeywordTerm[], match: "all" | "any", exclude: string[], options: Options) =>
    memory.keywordSearchInMemory(terms, match, exclude.map((entry) => quoteWords([entry])), options);
  const byFts5 = (terms: KeywordTerm[], match: "all" | "any", exclude: string[], options: Options) =>
    fts.keywordSearch(toMatchExpression({ terms, match, phrases: [], exclude: exclude.map((entry) => [entry]) }) as string, options);

  /** Same scores position by position; the same chunks, in any order among equal scores. */
  function expectSameRanking(actual: FtsHit[] | null, expected: FtsHit[]): void {
    expect(actual).not.toBeNull();
    const hits = actual as FtsHit[];
    expect(hits.map((hit) => hit.bm25).length).toBe(expected.length);
    hits.forEach((hit, index) => expect(hit.bm25).toBeCloseTo((expected[index] as FtsHit).bm25, 9));
    const last = expected.at(-1)?.bm25 ?? 0;
    // Chunks tied with the last one may be cut at a different place: compare the rest as sets.
    const above = (list: FtsHit[]) => list.filter((hit) => hit.bm25 < last - 1e-9).map((hit) => hit.chunk.ref).sort();
    expect(above(hits)).toEqual(above(expected));
  }

  function randomQuery(query: number): { terms: KeywordTerm[]; match: "all" | "any"; exclude: string[]; options: Options } {
    const terms: KeywordTerm[] = Array.from({ length: 1 + Math.floor(next() * 4) }, () => ({ word: word(), prefix: false }));
    if (query % 5 === 0) terms.push({ ...(terms[0] as KeywordTerm) }); // a word given twice counts twice
    // A prefix of several words ("w1" reaches w1x…, w10x…, w11x…).
    if (query % 4 === 1) terms.push({ word: (vocabulary[1 + Math.floor(next() * 40)] as string).slice(0, 2), prefix: true });
    const exclude = query % 6 === 0 ? [word()] : [];
    const options = query % 3 === 0 ? { limit: 15, folderIds: [folders[1] as string] } : { limit: 15 };
    return { terms, match: query % 2 === 0 ? "all" : "any", exclude, options };
  }

  function expectSameAsFts5(queries: number): number {
    // The counts that decide where a prefix stays (sqlite-store.ts) come from the index too.
    for (const entry of vocabulary.slice(0, 60)) expect(memory.countWordUpTo(entry, 300)).toBe(fts.countWordUpTo(entry, 300));
    let compared = 0;
    for (let query = 0; query < queries; query++) {
      const { terms, match, exclude, options } = randomQuery(query);
      const expected = byFts5(terms, match, exclude, options);
      expectSameRanking(inMemory(terms, match, exclude, options), expected);
      compared += expected.length;
    }
    return compared;
  }

  it("ranks all-word and any-word queries as FTS5 does: prefixes, repeats, exclusions, excluded chunks, folders", () => {
    expect(expectSameAsFts5(120)).toBeGreaterThan(120 * 5);
    expect(memory.keywordIndexBuilds()).toBe(1);
  });

  it("never returns an excluded chunk", () => {
    const excluded = new Set(Array.from({ length: 30 }, (_, index) => `${folders[0]}:d${index * 2}.md#1`));
    const hits = inMemory([{ word: vocabulary[0] as string, prefix: false }], "any", [], { limit: 1000 }) as FtsHit[];
    expect(hits.length).toBeGreaterThan(100);
    expect(hits.some((hit) => excluded.has(hit.chunk.ref))).toBe(false);
  });

  it("follows what another process writes (added, changed, deleted, excluded chunks) without building again", () => {
    const builds = memory.keywordIndexBuilds();
    const only = (words: string) => [{ word: words, prefix: false }];
    writer.syncDocument({
      folderId: folders[0] as string,
      relativePath: "new.md",
      title: "Heron notes",
      documentType: "md",
      fileSize: 1,
      pageCount: null,
      chunks: [{ content: "the grey heron waits by the river", meta: {} }, { content: "herons and egrets", meta: {} }, { content: "我们明天在北京开会讨论预算", meta: {} }],
    });
    expect((inMemory(only("heron"), "all", [], { limit: 10 }) as FtsHit[]).map((hit) => hit.chunk.relativePath)).toEqual(["new.md", "new.md", "new.md"]);
    // Chinese text is cut into words as FTS5 reads it (search_text), changed chunks too.
    expect((inMemory(only("北京"), "all", [], { limit: 10 }) as FtsHit[]).map((hit) => hit.chunk.ref)).toEqual([`${folders[0]}:new.md#3`]);
    // The same document again with other text: the old words go, the new ones come.
    writer.syncDocument({ folderId: folders[0] as string, relativePath: "new.md", title: "Kingfisher notes", documentType: "md", fileSize: 1, pageCount: null, chunks: [{ content: "a kingfisher dives", meta: {} }] });
    expect(inMemory(only("heron"), "all", [], { limit: 10 })).toEqual([]);
    expect(inMemory(only("kingfisher"), "all", [], { limit: 10 })).toHaveLength(1);
    writer.setIncluded([`${folders[0]}:new.md#1`], false);
    expect(inMemory(only("kingfisher"), "all", [], { limit: 10 })).toEqual([]);
    writer.deleteDocument(folders[1] as string, "d1.md");
    expect((inMemory(only(vocabulary[0] as string), "any", [], { limit: 2000 }) as FtsHit[]).some((hit) => hit.chunk.relativePath === "d1.md")).toBe(false);
    expect(expectSameAsFts5(40)).toBeGreaterThan(40 * 5);
    expect(memory.keywordIndexBuilds()).toBe(builds);
  });

  it("folds thousands of changed chunks into its lists and still ranks as FTS5 does", () => {
    const builds = memory.keywordIndexBuilds();
    for (let document = 0; document < 180; document++) addDocument(writer, folders[document % 2] as string, `more${document}.md`, 12);
    for (let document = 100; document < 160; document++) writer.deleteDocument(folders[document % 2] as string, `d${document}.md`);
    expect(expectSameAsFts5(60)).toBeGreaterThan(60 * 5);
    expect(memory.keywordIndexBuilds()).toBe(builds);
  });

  it("builds itself again when the log of changes no longer reaches back to what it holds", () => {
    const builds = memory.keywordIndexBuilds();
    addDocument(writer, folders[0] as string, "gap.md");
    // The oldest entries were pruned (as the log does past 200,000 changes) before this process read them.
    const raw = openDatabase({ path: file });
    raw.exec("DELETE FROM keyword_log");
    raw.close();
    addDocument(writer, folders[1] as string, "after-gap.md");
    expect(expectSameAsFts5(30)).toBeGreaterThan(30 * 5);
    expect(memory.keywordIndexBuilds()).toBe(builds + 1);
  });

  it("leaves to FTS5 a word the index holds as several tokens (a phrase), and finds nothing for an unknown word", () => {
    expect(inMemory([{ word: "e-mail", prefix: false }], "all", [], { limit: 10 })).toBeNull();
    expect(inMemory([{ word: "neverseenword", prefix: false }, { word: vocabulary[0] as string, prefix: false }], "all", [], { limit: 10 })).toEqual([]);
    expectSameRanking(
      inMemory([{ word: "neverseenword", prefix: false }, { word: vocabulary[5] as string, prefix: false }], "any", [], { limit: 10 }),
      byFts5([{ word: "neverseenword", prefix: false }, { word: vocabulary[5] as string, prefix: false }], "any", [], { limit: 10 }),
    );
  });
});

describe("keyword index in memory, read in the background", () => {
  it("reads every word to the end while the process is idle, and says when it is ready", async () => {
    const directory = fs.mkdtempSync(path.join(os.tmpdir(), "chunkpad-keyword-warm-"));
    const writer = openSqliteMainStore({ path: path.join(directory, "chunkpad.db"), loadVectorExtension: false });
    try {
      const folderId = writer.upsertFolder("/a", "/a/_chunks").id;
      // 400 distinct words: one word per slice is 400 turns of the event loop.
      // Letters only: the index splits letters from digits (IL6 → il 6), so digits would make fewer words.
      const letters = (n: number) => String.fromCharCode(97 + (n % 26)) + String.fromCharCode(97 + Math.floor(n / 26));
      const words = Array.from({ length: 400 }, (_, index) => `word${letters(index)}q`);
      for (let document = 0; document < 40; document++) {
        const chunks = Array.from({ length: 5 }, (_, chunk) => ({ content: words.slice((document * 10 + chunk * 2) % 390, ((document * 10 + chunk * 2) % 390) + 10).join(" "), meta: {} }));
        writer.syncDocument({ folderId, relativePath: `d${document}.md`, title: `Document ${document}`, documentType: "md", fileSize: 1, pageCount: null, chunks });
      }
      const db = openDatabase({ path: path.join(directory, "chunkpad.db") });
      const index = createMemoryKeywordIndex({ db, table: "chunks_fts", weights: { title: 2, content: 1 }, sliceMs: 0 });
      expect(index.status().ready).toBe(false);
      // Nothing else happens in this process: an index that read only when the event loop woke for something else never gets here.
      await index.whenReady();
      expect(index.status()).toEqual({ ready: true, wordsRead: expect.any(Number) });
      expect(index.status().wordsRead).toBeGreaterThanOrEqual(words.length);
      expect(index.warm(Number.POSITIVE_INFINITY)).toBe(false);
      index.close();
      db.close();
    } finally {
      writer.close();
      fs.rmSync(directory, { recursive: true, force: true });
    }
  });
});
