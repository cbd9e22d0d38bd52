import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { ChunkpadError } from "../../core/errors.js";
import type { Embedder } from "../../core/types.js";
import { embedTextHash } from "../../core/chunk-ref.js";
import { openMainStore, type MainStore } from "../../store/index.js";
import { META_KEYS } from "../../store/index.js";
import { defaultConfig } from "../settings/config.js";
import { searchChunks, type SearchOptions } from "./search.js";
import { fingerprintMatches, prepareVectorSearch, type QueryEmbedderLoader } from "./search-vector.js";

const cleanups: Array<() => void> = [];
afterEach(() => {
  for (const cleanup of cleanups.splice(0).reverse()) cleanup();
});

const FINGERPRINT = JSON.stringify({ provider: "local", model: "topics", dtype: "fp32" });

/** Three topic axes; a text points along every topic whose word it contains. */
const TOPICS = [
  ["river", "water", "flood", "heron"],
  ["money", "revenue", "budget", "profit"],
  ["garden", "tomato", "plant", "leaf"],
];
function topicVector(text: string): Float32Array {
  const lower = text.toLowerCase();
  const vector = new Float32Array(TOPICS.length + 1).fill(0.01);
  TOPICS.forEach((words, axis) => {
    for (const word of words) if (lower.includes(word)) vector[axis] = (vector[axis] ?? 0) + 1;
  });
  return vector;
}

/** A fake embedder that records the queries it was asked to embed. */
function fakeEmbedder(fingerprint = FINGERPRINT): Embedder & { queries: string[] } {
  const queries: string[] = [];
  return {
    dimensions: TOPICS.length + 1,
    maxTokens: 512,
    fingerprint,
    queries,
    embedDocuments: async (texts) => texts.map(topicVector),
    embedQuery: async (text) => {
      queries.push(text);
      return topicVector(text);
    },
  };
}

function openStore({ keywordIndexInMemory = false } = {}): MainStore {
  const directory = fs.mkdtempSync(path.join(os.tmpdir(), "chunkpad-search-"));
  const store = openMainStore({ path: path.join(directory, "chunkpad.db"), keywordIndexInMemory });
  cleanups.push(async () => {
    await store.close();
    fs.rmSync(directory, { recursive: true, force: true });
  });
  return store;
}

async function seed(store: MainStore) {
  const folderId = (await store.upsertFolder("/docs", "/docs/_chunks")).id;
  const add = async (relativePath: string, contents: string[], meta: { page?: number; section?: string } = {}) =>
    await store.syncDocument({ folderId, relativePath, title: relativePath, documentType: "md", fileSize: 1, pageCount: null, chunks: contents.map((content) => ({ content, meta })) });
  await add("notes.md", ["The heron waits by the river at dawn.", "Rain all week, the water rose over the banks."], { section: "Field notes" });
  await add("report.pdf", ["Quarterly revenue grew thanks to the aardvark campaign.", "The budget for next year is tight."], { page: 3 });
  await add("garden.md", ["Tomatoes need full sun and steady care."]);
  const ref = (file: string, n: number) => `${folderId}:${file}#${n}`;
  return { folderId, ref };
}

async function embedEverything(store: MainStore, embedder: Embedder): Promise<void> {
  const chunks = await store.listChunks();
  await store.upsertVectors(chunks.map((chunk) => ({ ref: chunk.ref, embedHash: embedTextHash(chunk), embedding: topicVector(chunk.content) })), embedder.fingerprint);
  await store.setMeta(META_KEYS.embeddingFingerprint, embedder.fingerprint);
  await store.setMeta(META_KEYS.embeddingModel, "topics");
}

/** These tests look at chunk rankings: every chunk is listed unless a test asks for grouping. */
function search(store: MainStore, query: string, options: SearchOptions = {}, loader?: QueryEmbedderLoader) {
  const load: QueryEmbedderLoader = loader ?? (async () => fakeEmbedder());
  return searchChunks({ store, settings: defaultConfig().search, vectorReadiness: () => prepareVectorSearch(store, load, "topics") }, query, { perDocument: 0, ...options });
}

describe("search before anything is embedded", () => {
  it("searches by keyword and says how to get search by meaning", async () => {
    const store = openStore();
    const { ref } = await seed(store);
    const report = await search(store, "aardvark revenue");
    expect(report.mode).toBe("keyword");
    expect(report.notices.flatMap((notice) => notice.nextSteps ?? [])).toContainEqual(expect.objectContaining({ action: "embed" }));
    expect(report.results.map((result) => result.ref)).toEqual([ref("report.pdf", 1)]);
    const [top] = report.results;
    expect(top).toMatchObject({ relevancePercent: 100, location: "p. 3", documentTitle: "report.pdf", relativePath: "report.pdf", folderPath: "/docs", keywordRank: 1 });
    // Higher is better, from the store through fusion to the result.
    expect(top?.keywordScore).toBeGreaterThan(0);
    expect(top?.distance).toBeUndefined();
  });

  it("lists chunks holding some of the words after those holding all, and reports both queries it ran", async () => {
    const store = openStore();
    const { ref } = await seed(store);
    const report = await search(store, "heron budget");
    expect(report.keywordQuery).toBe('"heron"* AND "budget"*, then "heron"* OR "budget"*');
    expect(report.results.map((result) => result.ref).sort()).toEqual([ref("notes.md", 1), ref("report.pdf", 2)].sort());
  });

  it("reports the keyword query it ran: a short whole word without the prefix it was asked with, a fragment with it", async () => {
    const store = openStore();
    const { ref } = await seed(store);
    // "sun" is held whole (searched exactly, the stemmer covers its forms); "aardv" only starts a word.
    const whole = await search(store, "sun");
    expect(whole.keywordQuery).toBe('"sun"');
    expect(whole.results.map((result) => result.ref)).toEqual([ref("garden.md", 1)]);
    const fragment = await search(store, "aardv");
    expect(fragment.keywordQuery).toBe('"aardv"*');
    expect(fragment.results.map((result) => result.ref)).toEqual([ref("report.pdf", 1)]);
  });

  it("returns normally for input that is FTS5 syntax, and for stop words only", async () => {
    const store = openStore();
    await seed(store);
    await expect(search(store, '"unbalanced AND (NEAR title: river*')).resolves.toMatchObject({ mode: "keyword" });
    const stopWords = await search(store, "the of and");
    expect(stopWords.results).toEqual([]);
    expect(stopWords.notices.map((notice) => notice.message).join(" ")).toMatch(/no words to search for/);
  });

  it("ranks the same first results whatever the limit", async () => {
    const store = openStore();
    const folderId = (await store.upsertFolder("/docs", "/docs/_chunks")).id;
    const add = async (relativePath: string, content: string) =>
      await store.syncDocument({ folderId, relativePath, title: relativePath, documentType: "md", fileSize: 1, pageCount: null, chunks: [{ content, meta: {} }] });
    // Both words once, in a long chunk; one word many times, in a short one (more bm25 for it alone).
    await add("both.md", `The heron flew over the budget meeting. ${"Other words fill this long chunk about many things. ".repeat(12)}`);
    await add("heron.md", "Heron heron heron heron.");
    await add("budget.md", "Budget budget budget.");
    for (let index = 0; index < 12; index++) await add(`filler-${index}.md`, `Nothing to see in note ${index}.`);
    const firsts = new Set<string | undefined>();
    for (let limit = 1; limit <= 20; limit++) firsts.add((await search(store, "heron budget", { limit, perDocument: 1 })).results[0]?.relativePath);
    expect([...firsts]).toEqual(["both.md"]);
    const three = await search(store, "heron budget", { limit: 3 });
    expect(three.results.map((result) => result.relativePath)).toEqual(["both.md", "heron.md", "budget.md"]);
  });

  it("finds a Korean word whatever particle the question and the text attach to it", async () => {
    const store = openStore();
    const folderId = (await store.upsertFolder("/docs", "/docs/_chunks")).id;
    const add = async (relativePath: string, content: string) =>
      await store.syncDocument({ folderId, relativePath, title: relativePath, documentType: "md", fileSize: 1, pageCount: null, chunks: [{ content, meta: {} }] });
    await add("seoul.md", "서울은 한국의 수도이다.");
    await add("busan.md", "부산의 날씨는 맑다.");
    const report = await search(store, "서울에서 수도는 어디입니까");
    expect(report.results[0]?.relativePath).toBe("seoul.md");
  });

  it("finds a Korean word inside a compound written without a space, and a compound typed whole finds its words spaced", async () => {
    const store = openStore();
    const folderId = (await store.upsertFolder("/docs", "/docs/_chunks")).id;
    const add = async (relativePath: string, content: string) =>
      await store.syncDocument({ folderId, relativePath, title: relativePath, documentType: "md", fileSize: 1, pageCount: null, chunks: [{ content, meta: {} }] });
    await add("meeting.md", "다음 주 월요일에 예산회의가 열립니다.");
    await add("report.md", "참석자는 지출 보고서를 준비해 주십시오.");
    await add("parking.md", "방문객은 정문 옆 주차장을 이용해 주십시오.");
    const first = async (query: string) => (await search(store, query)).results[0]?.relativePath;
    expect(await first("회의는 언제 열리나요?")).toBe("meeting.md");
    expect(await first("지출보고서는 누가 준비하나요?")).toBe("report.md");
    expect(await first("방문객주차는 어디에 하나요?")).toBe("parking.md");
  });

  it("meets symbol spellings: IL6 and IL-6, TNFα and TNF-alpha, NF-κB and NF-kappaB; an identifier's words as a phrase", async () => {
    const store = openStore();
    const folderId = (await store.upsertFolder("/docs", "/docs/_chunks")).id;
    const add = async (relativePath: string, content: string) =>
      await store.syncDocument({ folderId, relativePath, title: relativePath, documentType: "md", fileSize: 1, pageCount: null, chunks: [{ content, meta: {} }] });
    await add("il.md", "Serum IL-6 rose after surgery.");
    await add("tnf.md", "TNFα and NF-κB signalling.");
    await add("code.md", "Call read_chunk_file before writing.");
    await add("other.md", "The file was read before the chunk was written.");
    const first = async (query: string) => (await search(store, query)).results[0]?.relativePath;
    expect(await first("IL6")).toBe("il.md");
    expect(await first("TNF-alpha")).toBe("tnf.md");
    expect(await first("NF-kappaB")).toBe("tnf.md");
    const identifier = await search(store, "read_chunk_file");
    expect(identifier.results.map((result) => result.relativePath)).toEqual(["code.md"]);
  });

  it("finds a camelCase identifier by its words and its words by the identifier, the exact spelling first; NFkB, NF-κB and NF-kappaB meet", async () => {
    const store = openStore();
    const folderId = (await store.upsertFolder("/docs", "/docs/_chunks")).id;
    const add = async (relativePath: string, content: string) =>
      await store.syncDocument({ folderId, relativePath, title: relativePath, documentType: "md", fileSize: 1, pageCount: null, chunks: [{ content, meta: {} }] });
    await add("code.md", "Call parseQuery on the input before searching.");
    await add("prose.md", "We parse the query typed into the box.");
    await add("nfkb.md", "NFkB activation in macrophages.");
    await add("kappa.md", "The NF-kappaB pathway in macrophages.");
    await add("greek.md", "NF-κB signalling in macrophages.");
    await add("script.md", "Written in JavaScript.");
    // Enough other documents that these words are rare, as in a real folder (bm25's idf).
    for (const topic of ["weather", "budget", "garden", "travel", "music", "cooking", "parking", "holidays"]) await add(`${topic}.md`, `Notes about ${topic}.`);
    const paths = async (query: string) => (await search(store, query)).results.map((result) => result.relativePath);
    expect((await paths("parse query")).sort()).toEqual(["code.md", "prose.md"]);
    expect(await paths("parseQuery")).toEqual(["code.md", "prose.md"]);
    for (const spelling of ["NFkB", "NF-κB", "NF-kappaB"]) expect((await paths(spelling)).sort(), spelling).toEqual(["greek.md", "kappa.md", "nfkb.md"]);
    expect((await paths("NFkB"))[0]).toBe("nfkb.md");
    expect((await paths("NF-kappaB"))[0]).toBe("kappa.md");
    // The whole word still finds its camelCase spelling.
    expect(await paths("javascript")).toEqual(["script.md"]);
  });

  it("counts a repeated word each time it is typed", async () => {
    const store = openStore();
    const { ref } = await seed(store);
    const once = (await search(store, "heron")).results.find((result) => result.ref === ref("notes.md", 1));
    const twice = (await search(store, "heron heron")).results.find((result) => result.ref === ref("notes.md", 1));
    expect(twice?.keywordScore).toBeCloseTo(2 * (once?.keywordScore ?? 0), 9);
  });

  it("never empties the results because of quotes: a stray quote is a character, a phrase no chunk holds is searched as its words", async () => {
    const store = openStore();
    const { ref } = await seed(store);
    const stray = await search(store, 'heron" at dawn');
    expect(stray.results[0]?.ref).toBe(ref("notes.md", 1));
    expect(stray.relaxedPhrases).toEqual([]);
    const quoted = await search(store, '"the heron waits by the lake at dawn"');
    expect(quoted.results[0]?.ref).toBe(ref("notes.md", 1));
    expect(quoted.relaxedPhrases).toEqual(["the heron waits by the lake at dawn"]);
    expect(quoted.notices.map((notice) => notice.message).join(" ")).toMatch(/No chunk holds the phrase "the heron waits by the lake at dawn", so its words were searched instead/);
    // Two phrases that no one chunk holds together: the second is searched as words.
    const apart = await search(store, '"the heron" "the budget"');
    expect(apart.results.map((result) => result.ref)).toContain(ref("notes.md", 1));
    expect(apart.relaxedPhrases).toEqual(["the budget"]);
    // A phrase that some chunk holds stays required.
    const held = await search(store, '"heron waits" rain');
    expect(held.results.map((result) => result.ref)).toEqual([ref("notes.md", 1)]);
    expect(held.relaxedPhrases).toEqual([]);
  });

  it("rejects an empty query and impossible options with a message", async () => {
    const store = openStore();
    await seed(store);
    await expect(search(store, "   ")).rejects.toMatchObject({ code: "INVALID_ARGUMENT" });
    await expect(search(store, "river", { minScore: 2 })).rejects.toThrow(/0 to 1/);
    await expect(search(store, "river", { limit: 0 })).rejects.toThrow(/limit/);
  });
});

// A search ranks keyword candidates by reference and reads whole only the chunks it shows or reranks.
describe.each([
  { store: "FTS5 (a one-off search)", keywordIndexInMemory: false },
  { store: "the keyword index in memory (serve)", keywordIndexInMemory: true },
])("keyword results through $store", ({ keywordIndexInMemory }) => {
  it("shows where each folded chunk of a document is", async () => {
    const store = openStore({ keywordIndexInMemory });
    const { ref } = await seed(store);
    const report = await search(store, "revenue budget", { perDocument: 1 });
    const [top] = report.results;
    expect(top).toMatchObject({ relativePath: "report.pdf", location: "p. 3" });
    expect(top?.moreInDocument).toEqual([{ ref: ref("report.pdf", top?.ref === ref("report.pdf", 1) ? 2 : 1), score: expect.any(Number), location: "p. 3" }]);
  });

  it("reranks the keyword candidates by their text", async () => {
    const store = openStore({ keywordIndexInMemory });
    await seed(store);
    const passages: string[] = [];
    // A cross-encoder that likes the budget: the chunk ranked second by keyword comes first.
    const reranker = {
      model: "fake",
      score: async (_query: string, batch: readonly string[]) => {
        passages.push(...batch);
        return batch.map((passage) => (passage.includes("budget") ? 5 : -5));
      },
      close: async () => undefined,
    };
    const settings = { ...defaultConfig().search, rerank: "on" as const };
    const report = await searchChunks({ store, settings, vectorReadiness: async () => ({ ready: false, reason: "none" }), rerankReadiness: async () => ({ ready: true, reranker }) }, "revenue aardvark budget", { mode: "keyword", perDocument: 0 });
    expect(report.rerank).toMatchObject({ scored: 2, candidates: 2 });
    expect(passages.sort()).toEqual(["report.pdf\nQuarterly revenue grew thanks to the aardvark campaign.", "report.pdf\nThe budget for next year is tight."]);
    expect(report.results[0]?.ref.endsWith("report.pdf#2")).toBe(true);
  });
});

describe("search with vectors", () => {
  it("defaults to hybrid, and the vector side finds chunks that share no word with the query", async () => {
    const store = openStore();
    const { ref } = await seed(store);
    await embedEverything(store, fakeEmbedder());
    const report = await search(store, "flood", { perDocument: 0 });
    expect(report).toMatchObject({ mode: "hybrid", fusion: "weighted", notices: [] });
    const refs = report.results.map((result) => result.ref);
    expect(refs.slice(0, 2).sort()).toEqual([ref("notes.md", 1), ref("notes.md", 2)].sort());
    expect(report.results[0]?.distance).toBeCloseTo(0, 3);
    expect(report.results[0]?.vectorRank).toBe(1);
  });

  it("lists each document once by default, its other matching chunks folded into its best", async () => {
    const store = openStore();
    const { ref } = await seed(store);
    await embedEverything(store, fakeEmbedder());
    const report = await search(store, "flood", { minScore: 0, perDocument: 1 });
    const paths = report.results.map((result) => result.relativePath);
    expect(new Set(paths).size).toBe(paths.length);
    const notes = report.results.find((result) => result.relativePath === "notes.md");
    expect([ref("notes.md", 1), ref("notes.md", 2)]).toContain(notes?.ref);
    expect(notes?.moreInDocument?.map((more) => more.ref)).toEqual([[ref("notes.md", 1), ref("notes.md", 2)].find((other) => other !== notes?.ref)]);
    expect(notes?.moreInDocument?.[0]?.score).toBeLessThanOrEqual(notes?.score ?? 0);
  });

  it("keeps each stage's numbers for a chunk both stages found", async () => {
    const store = openStore();
    const { ref } = await seed(store);
    await embedEverything(store, fakeEmbedder());
    const report = await search(store, "revenue", { fusion: "rrf" });
    const top = report.results[0];
    expect(top?.ref).toBe(ref("report.pdf", 1));
    expect(top).toMatchObject({ vectorRank: expect.any(Number), keywordRank: 1, keywordScore: expect.any(Number), distance: expect.any(Number) });
    // RRF: first in both lists scores 1; found by one list only, at most 0.5.
    expect(report.fusion).toBe("rrf");
    expect(report.results.slice(1).every((result) => result.score <= 0.5 || (result.keywordRank !== undefined && result.vectorRank !== undefined))).toBe(true);
  });

  it("hybrid gives a chunk only keyword search found its real vector similarity, so it is not capped at the keyword weight", async () => {
    const store = openStore();
    const folderId = (await store.upsertFolder("/docs", "/docs/_chunks")).id;
    const add = async (relativePath: string, content: string) =>
      await store.syncDocument({ folderId, relativePath, title: "note", documentType: "md", fileSize: 1, pageCount: null, chunks: [{ content, meta: {} }] });
    // 60 garden notes point straight at the query's topic; the one about zucchini is half about money,
    // so the vector stage (50 candidates for one result) ranks it past its end.
    for (let index = 0; index < 60; index++) await add(`garden-${index}.md`, `Garden plant leaf, note ${index}.`);
    await add("zucchini.md", "Zucchini in the garden: the budget for seeds.");
    await embedEverything(store, fakeEmbedder());
    const report = await search(store, "zucchini garden", { limit: 1 });
    expect(report.mode).toBe("hybrid");
    const [top] = report.results;
    expect(top?.relativePath).toBe("zucchini.md");
    expect(top).toMatchObject({ distanceLookedUp: true, keywordRank: 1 });
    // cosine of (1, 1) with (1, 0): about 0.71, not 0.
    expect(1 - (top?.distance ?? 1)).toBeCloseTo(Math.SQRT1_2, 1);
    expect(top?.score).toBeGreaterThan(0.7);
    // And a chunk only the vector stage found carries its keyword score for the query.
    const garden = (await search(store, "zucchini garden", { limit: 60 })).results.find((result) => result.relativePath !== "zucchini.md" && result.distanceLookedUp !== true);
    expect(garden?.keywordScore).toBeGreaterThan(0);
  });

  it("vector mode ranks by distance only, and --max-distance drops far chunks", async () => {
    const store = openStore();
    const { ref } = await seed(store);
    await embedEverything(store, fakeEmbedder());
    const all = await search(store, "garden", { mode: "vector", minScore: 0 });
    expect(all.results[0]?.ref).toBe(ref("garden.md", 1));
    expect(all.results.every((result) => result.keywordScore === undefined)).toBe(true);
    expect(all.results.length).toBe(5);
    const near = await search(store, "garden", { mode: "vector", minScore: 0, maxDistance: 0.2 });
    expect(near.results.map((result) => result.ref)).toEqual([ref("garden.md", 1)]);
  });

  it("never returns an excluded chunk, from either stage", async () => {
    const store = openStore();
    const { ref } = await seed(store);
    await embedEverything(store, fakeEmbedder());
    await store.setIncluded([ref("garden.md", 1)], false);
    for (const mode of ["keyword", "vector", "hybrid"] as const) {
      const report = await search(store, "tomato garden", { mode, minScore: 0 });
      expect(report.results.map((result) => result.ref)).not.toContain(ref("garden.md", 1));
    }
  });

  it("falls back to keyword with the loader's message when the model is not downloaded", async () => {
    const store = openStore();
    const { ref } = await seed(store);
    await embedEverything(store, fakeEmbedder());
    const missing: QueryEmbedderLoader = async () => {
      throw new ChunkpadError("MODEL_NOT_DOWNLOADED", "The embedding model topics is not downloaded yet. Run `chunkpad embed` to download it.");
    };
    const report = await search(store, "aardvark", { mode: "vector" }, missing);
    expect(report.mode).toBe("keyword");
    expect(report.requestedMode).toBe("vector");
    expect(report.notices.map((notice) => notice.message).join(" ")).toMatch(/not downloaded.*keywords only/);
    expect(report.results.map((result) => result.ref)).toEqual([ref("report.pdf", 1)]);
  });

  it("says the configured model is not the one that made the vectors, rather than how to download it", async () => {
    const store = openStore();
    await seed(store);
    await embedEverything(store, fakeEmbedder());
    const missing: QueryEmbedderLoader = async () => {
      throw new ChunkpadError("MODEL_NOT_DOWNLOADED", "The embedding model other is not downloaded yet. Run `chunkpad embed` to download it.");
    };
    const run = (model: string) =>
      searchChunks({ store, settings: defaultConfig().search, vectorReadiness: () => prepareVectorSearch(store, missing, model, { provider: "local", model, dtype: "fp32" }) }, "river");
    const error = await run("other").catch((caught: unknown) => caught);
    expect(error).toMatchObject({ code: "EMBEDDING_MISMATCH" });
    expect((error as Error).message).toMatch(/made by topics/);
    expect((error as ChunkpadError).nextSteps).toContainEqual({ action: "embed", reembed: true });
    await expect(run("topics")).resolves.toMatchObject({ mode: "keyword" });
  });

  it("stops with EMBEDDING_MISMATCH when the vectors came from another model", async () => {
    const store = openStore();
    await seed(store);
    await embedEverything(store, fakeEmbedder());
    const other: QueryEmbedderLoader = async () => fakeEmbedder(JSON.stringify({ provider: "local", model: "other", dtype: "fp32" }));
    const error = await search(store, "river", {}, other).catch((caught: unknown) => caught);
    expect(error).toMatchObject({ code: "EMBEDDING_MISMATCH" });
    expect((error as Error).message).toMatch(/made by topics/);
    expect((error as ChunkpadError).nextSteps).toContainEqual({ action: "embed", reembed: true });
    // keyword search still works
    await expect(search(store, "river", { mode: "keyword" }, other)).resolves.toMatchObject({ mode: "keyword" });
  });
});

describe("filters and pins", () => {
  it("filters by document and by folder, and says when a document matches nothing", async () => {
    const store = openStore();
    const { ref } = await seed(store);
    const other = (await store.upsertFolder("/other", "/other/_chunks")).id;
    await store.syncDocument({ folderId: other, relativePath: "river.md", title: "river.md", documentType: "md", fileSize: 1, pageCount: null, chunks: [{ content: "Another river story.", meta: {} }] });

    const both = await search(store, "river");
    expect(both.results.map((result) => result.folderId).sort()).toEqual([other, ref("notes.md", 1).split(":")[0]].sort());
    const onlyOther = await search(store, "river", { folders: ["/other"] });
    expect(onlyOther.results.map((result) => result.ref)).toEqual([`${other}:river.md#1`]);
    const onlyNotes = await search(store, "river", { documents: ["notes.md"] });
    expect(onlyNotes.results.map((result) => result.ref)).toEqual([ref("notes.md", 1)]);
    const nothing = await search(store, "river", { documents: ["no-such-file.txt"] });
    expect(nothing.results).toEqual([]);
    expect(nothing.notices).toContainEqual({ message: expect.stringMatching(/No document matches the document filter "no-such-file.txt"/), nextSteps: [{ action: "list-documents" }] });
    await expect(search(store, "river", { folders: ["/never-added"] })).rejects.toMatchObject({ code: "FOLDER_NOT_INDEXED" });
  });

  it("puts a pinned document's chunks first at 100%, once each", async () => {
    const store = openStore();
    const { ref } = await seed(store);
    const report = await search(store, "river heron", { pins: ["garden.md", "notes.md"] });
    expect(report.results.slice(0, 3).map((result) => [result.ref, result.relevancePercent, result.pinned])).toEqual([
      [ref("garden.md", 1), 100, true],
      [ref("notes.md", 1), 100, true],
      [ref("notes.md", 2), 100, true],
    ]);
    expect(new Set(report.results.map((result) => result.ref)).size).toBe(report.results.length);
    // a pinned chunk the search also found keeps its keyword numbers
    expect(report.results[1]?.keywordScore).toBeGreaterThan(0);
  });
});

describe("fingerprintMatches", () => {
  const current = JSON.stringify({ provider: "local", model: "m", dtype: "fp32" });
  it("accepts the embedder's fingerprint as stored, with settings appended, merged or nested", () => {
    expect(fingerprintMatches(current, current)).toBe(true);
    expect(fingerprintMatches(`${current}|chunk=400/60`, current)).toBe(true);
    expect(fingerprintMatches(JSON.stringify({ provider: "local", model: "m", dtype: "fp32", chunkSizeTokens: 400 }), current)).toBe(true);
    expect(fingerprintMatches(JSON.stringify({ embedder: JSON.parse(current), chunking: { size: 400 } }), current)).toBe(true);
    expect(fingerprintMatches(JSON.stringify({ embedder: current, chunking: "400/60" }), current)).toBe(true);
  });
  it("rejects another model or dtype", () => {
    expect(fingerprintMatches(JSON.stringify({ provider: "local", model: "m", dtype: "q8" }), current)).toBe(false);
    expect(fingerprintMatches(JSON.stringify({ provider: "local", model: "n", dtype: "fp32" }), current)).toBe(false);
    expect(fingerprintMatches("something else", current)).toBe(false);
  });
});
