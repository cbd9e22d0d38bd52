import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { SqliteMainStore } from "./main-store.js";
import { openSqliteMainStore } from "./main-store.js";

let store: SqliteMainStore;
let directory: string;
let gardenId: string;
let kitchenId: string;
let tomatoDocumentId: string;

beforeAll(() => {
  directory = fs.mkdtempSync(path.join(os.tmpdir(), "chunkpad-keyword-"));
  store = openSqliteMainStore({ path: path.join(directory, "chunkpad.db"), loadVectorExtension: false });
  gardenId = store.upsertFolder("/garden", "/garden/_chunks").id;
  kitchenId = store.upsertFolder("/kitchen", "/kitchen/_chunks").id;
  const add = (folderId: string, relativePath: string, title: string, contents: string[]) =>
    store.syncDocument({
      folderId, relativePath, title, documentType: "md", fileSize: 1, pageCount: null,
      chunks: contents.map((content) => ({ content, meta: {} })),
    }).documentId;
  tomatoDocumentId = add(gardenId, "tomatoes.md", "Growing tomatoes", [
    "Tomatoes need sun. Tomatoes need water. Tomatoes love warm soil.",
    "Pruning the side shoots helps the plant.",
  ]);
  add(gardenId, "roses.md", "Roses", ["Roses need sun and a little water; a tomato nearby is fine."]);
  add(kitchenId, "sauce.md", "Sauce", ["Running a sauce: simmer tomatoes with garlic at the café."]);
});

afterAll(() => {
  store.close();
  fs.rmSync(directory, { recursive: true, force: true });
});

describe("keywordSearch", () => {
  it("ranks by bm25, best first, and searches titles as well as text", () => {
    const hits = store.keywordSearch("tomatoes", { limit: 10 });
    expect(new Set(hits.map((hit) => hit.chunk.ref))).toEqual(
      new Set([`${gardenId}:tomatoes.md#1`, `${gardenId}:tomatoes.md#2`, `${gardenId}:roses.md#1`, `${kitchenId}:sauce.md#1`]),
    );
    // Three mentions plus the title beat everything; the second chunk matches only through its title.
    expect(hits.slice(0, 2).map((hit) => hit.chunk.ref)).toEqual([`${gardenId}:tomatoes.md#1`, `${gardenId}:tomatoes.md#2`]);
    const scores = hits.map((hit) => hit.bm25);
    expect([...scores].sort((a, b) => a - b)).toEqual(scores);
    expect(store.keywordSearch("tomatoes", { limit: 1 })).toHaveLength(1);
  });

  it("matches stems and letters without accents", () => {
    expect(store.keywordSearch("run", { limit: 5 }).map((hit) => hit.chunk.relativePath)).toEqual(["sauce.md"]);
    expect(store.keywordSearch("cafe", { limit: 5 }).map((hit) => hit.chunk.relativePath)).toEqual(["sauce.md"]);
    expect(store.keywordSearch("prun*", { limit: 5 }).map((hit) => hit.chunk.ordinal)).toEqual([2]);
  });

  it("filters by folder and document; an empty filter list matches nothing", () => {
    expect(store.keywordSearch("tomato*", { limit: 10, folderIds: [kitchenId] }).map((hit) => hit.chunk.relativePath)).toEqual(["sauce.md"]);
    expect(new Set(store.keywordSearch("tomato*", { limit: 10, documentIds: [tomatoDocumentId] }).map((hit) => hit.chunk.documentId))).toEqual(new Set([tomatoDocumentId]));
    expect(store.keywordSearch("tomato*", { limit: 10, folderIds: [] })).toEqual([]);
    expect(store.countKeywordMatches("tomato*")).toBe(4);
    expect(store.countKeywordMatches("tomato*", { folderIds: [gardenId] })).toBe(3);
    expect(store.countKeywordMatches("sun AND water")).toBe(2);
    expect(store.countKeywordMatches("sun OR garlic")).toBe(3);
    expect(store.countKeywordMatches("sun NOT roses")).toBe(1);
  });

  it("never returns an excluded chunk and never counts it", () => {
    const ref = `${kitchenId}:sauce.md#1`;
    store.setIncluded([ref], false);
    try {
      expect(store.keywordSearch("garlic", { limit: 10 })).toEqual([]);
      expect(store.countKeywordMatches("garlic")).toBe(0);
    } finally {
      store.setIncluded([ref], true);
    }
    expect(store.keywordSearch("garlic", { limit: 10 })).toHaveLength(1);
  });

  it("turns a malformed expression into INVALID_ARGUMENT instead of a crash", () => {
    for (const expression of ['"unclosed', "AND OR", "sun AND", "nosuchcolumn:word", "(sun", "*", "   "]) {
      expect(() => store.keywordSearch(expression, { limit: 5 }), expression).toThrow(expect.objectContaining({ code: "INVALID_ARGUMENT" }));
    }
    expect(() => store.countKeywordMatches('"unclosed')).toThrow(expect.objectContaining({ code: "INVALID_ARGUMENT" }));
  });
});
