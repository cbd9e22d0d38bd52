import { expect, it } from "vitest";
import type { KeywordQuery } from "../core/keyword-query.js";
import type { MainStore } from "./contract.js";

/**
 * Part of the store conformance suite (conformance.ts): keyword search as a user sees it — which
 * chunks match, in what order, with what filters — never one engine's tokenizer or cost rules.
 */
export interface KeywordCaseHelpers {
  /** A store with a folder "/zoo": animals.md (four chunks: cat, dog, eel by the river, fox near the river) and plants.md ("Ferns"). */
  seeded: () => Promise<{
    store: MainStore;
    folder: { id: string };
    add: (relativePath: string, contents: string[], title?: string) => Promise<unknown>;
    ref: (n: number, file?: string) => string;
  }>;
  words: (...terms: string[]) => KeywordQuery;
}

export function runKeywordCases({ seeded, words }: KeywordCaseHelpers): void {
  it("ranks matches best first with higher-is-better scores", async () => {
    const { store } = await seeded();
    const hits = await store.keywordSearch(words("river"), { limit: 10 });
    expect(hits.map((hit) => hit.chunk.content).sort()).toEqual(["A fox hunts at night near the river.", "The eel swims in the river."]);
    expect(hits.every((hit) => hit.score > 0)).toBe(true);
    for (let index = 1; index < hits.length; index += 1) expect((hits[index - 1] as { score: number }).score).toBeGreaterThanOrEqual((hits[index] as { score: number }).score);
    expect(await store.countKeywordMatches(words("river"))).toBe(2);
  });

  it("matches prefixes, requires all words or any, and holds phrases and exclusions", async () => {
    const { store } = await seeded();
    const prefix: KeywordQuery = { terms: [{ word: "hun", prefix: true }], match: "all", phrases: [], exclude: [] };
    expect((await store.keywordSearch(prefix, { limit: 10 })).map((hit) => hit.chunk.ordinal)).toEqual([4]);
    expect(await store.keywordSearch(words("cat", "river"), { limit: 10 })).toEqual([]);
    expect(await store.keywordSearch({ ...words("cat", "river"), match: "any" }, { limit: 10 })).toHaveLength(3);
    const phrase: KeywordQuery = { terms: [], match: "all", phrases: [["near", "the", "river"]], exclude: [] };
    expect((await store.keywordSearch(phrase, { limit: 10 })).map((hit) => hit.chunk.ordinal)).toEqual([4]);
    const excluding: KeywordQuery = { ...words("river"), exclude: [["fox"]] };
    expect((await store.keywordSearch(excluding, { limit: 10 })).map((hit) => hit.chunk.ordinal)).toEqual([3]);
  });

  it("finds the longer words a prefix begins, and a word's inflections", async () => {
    const { store, add } = await seeded();
    await add("notes.md", ["A catalogue of cats.", "The category of the report."]);
    const contents = async (query: KeywordQuery) => (await store.keywordSearch(query, { limit: 10 })).map((hit) => hit.chunk.content).sort();
    const cat: KeywordQuery = { terms: [{ word: "cat", prefix: true }], match: "all", phrases: [], exclude: [] };
    // Whether a short whole word also expands to longer words (catalogue, category) is the backend's
    // cost rule; what a user sees either way: every chunk with "cat" or "cats", and nothing without "cat".
    const cats = await contents(cat);
    expect(cats).toEqual(expect.arrayContaining(["A catalogue of cats.", "The cat sleeps on the warm sofa."]));
    expect(cats.every((content) => /cat/i.test(content))).toBe(true);
    const fragment: KeywordQuery = { terms: [{ word: "catego", prefix: true }], match: "all", phrases: [], exclude: [] };
    expect(await contents(fragment)).toEqual(["The category of the report."]);
    await add("history.md", ["German inflation.", "Inflation in Germany after the war."]);
    const german: KeywordQuery = { terms: [{ word: "german", prefix: true }], match: "all", phrases: [], exclude: [] };
    expect(await contents(german)).toEqual(["German inflation.", "Inflation in Germany after the war."]);
    // The plan a backend makes of a query finds what the query finds.
    for (const query of [cat, fragment, german]) {
      const plan = await store.planKeywordQuery(query);
      expect(plan.terms.map((term) => term.word)).toEqual(query.terms.map((term) => term.word));
      expect(await store.keywordSearch(plan, { limit: 10 })).toEqual(await store.keywordSearch(query, { limit: 10 }));
    }
  });

  it("treats operators and syntax in words as plain words", async () => {
    const { store } = await seeded();
    for (const word of ["AND", "OR", 'title:"x"', "*", "^", ")"]) {
      await expect(store.keywordSearch(words(word), { limit: 10 })).resolves.toEqual([]);
    }
    // An operator's name is the word itself: "near" is in one chunk.
    expect((await store.keywordSearch(words("NEAR("), { limit: 10 })).map((hit) => hit.chunk.ordinal)).toEqual([4]);
  });

  it("never returns excluded chunks, and filters by folder and document", async () => {
    const { store, folder, ref } = await seeded();
    await store.setIncluded([ref(3)], false);
    expect((await store.keywordSearch(words("river"), { limit: 10 })).map((hit) => hit.chunk.ref)).toEqual([ref(4)]);
    expect(await store.countKeywordMatches(words("river"))).toBe(1);
    const plants = await store.getDocumentByPath(folder.id, "plants.md");
    expect(await store.keywordSearch(words("river"), { limit: 10, documentIds: [plants?.id ?? ""] })).toEqual([]);
    expect(await store.keywordSearch(words("river"), { limit: 10, folderIds: [] })).toEqual([]);
    expect(await store.keywordSearch(words("river"), { limit: 10, folderIds: [folder.id] })).toHaveLength(1);
  });

  it("returns `limit` included hits when the best-ranked matches are excluded", async () => {
    const { store, add, folder } = await seeded();
    await add("rivers.md", ["river river river", "river river", "river", "the river bank", "a river runs", "river otters"]);
    const best = await store.keywordSearch(words("river"), { limit: 3, folderIds: [folder.id] });
    await store.setIncluded(best.map((hit) => hit.chunk.ref), false);
    const hits = await store.keywordSearch(words("river"), { limit: 3 });
    expect(hits).toHaveLength(3);
    expect(hits.some((hit) => best.some((excluded) => excluded.chunk.ref === hit.chunk.ref))).toBe(false);
  });

  it("finds a Chinese or Japanese word inside text written without spaces, and Korean words by prefix", async () => {
    const { store, add } = await seeded();
    await add("zh.md", ["我们明天在北京开会讨论预算。"]);
    await add("ja.md", ["東京都に住んでいます。会議は明日です。"]);
    await add("ko.md", ["서울에서 회의가 있습니다."]);
    const paths = async (query: KeywordQuery) => (await store.keywordSearch(query, { limit: 10 })).map((hit) => hit.chunk.relativePath);
    expect(await paths(words("北京"))).toEqual(["zh.md"]);
    expect(await paths(words("会議"))).toEqual(["ja.md"]);
    expect(await paths({ terms: [], match: "all", phrases: [["東京", "都"]], exclude: [] })).toEqual(["ja.md"]);
    expect(await paths(words("京"))).toEqual([]);
    expect(await paths({ terms: [{ word: "서울", prefix: true }], match: "all", phrases: [], exclude: [] })).toEqual(["ko.md"]);
  });

  it("finds the title's words too", async () => {
    const { store } = await seeded();
    expect((await store.keywordSearch(words("ferns"), { limit: 10 })).map((hit) => hit.chunk.relativePath)).toEqual(["plants.md"]);
  });
}
