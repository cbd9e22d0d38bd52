import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createEmbedder } from "../src/embedding/registry.js";
import { embedTextHash } from "../src/core/chunk-ref.js";
import { openHomeStore } from "./helpers/store.js";
import { META_KEYS } from "../src/store/index.js";
import { json, makeTempDir, writeFile, writeSampleDocuments } from "./helpers/cli.js";
import { runCliInProcess } from "./helpers/cli-in-process.js";
import { startHubServer, TINY_BERT_DIR, TINY_BERT_REPO, type HubServer } from "./helpers/hub-server.js";

interface Result {
  ref: string;
  relativePath: string;
  documentTitle: string;
  folderId: string;
  folderPath: string;
  location: string | null;
  section: string | null;
  snippet: string;
  score: number;
  relevancePercent: number;
  distance?: number;
  keywordScore?: number;
  vectorRank?: number;
  keywordRank?: number;
  pinned?: boolean;
  notEmbedded?: boolean;
  chunk: { content: string };
}

interface Report {
  query: string;
  mode: string;
  requestedMode: string;
  fusion: string | null;
  keywordQuery: string | null;
  notices: Array<{ message: string; nextSteps?: Array<{ action: string }> }>;
  coverage: { chunks: number; embedded: number; keywordOnly: number } | null;
  results: Result[];
}

/** Writes vectors for every chunk straight through the store, as `chunkpad embed` would. */
async function embedWithTinyModel(home: string): Promise<string> {
  const embedder = await createEmbedder({ provider: "local", model: TINY_BERT_DIR, cacheDir: path.join(home, "cache", "models"), hubUrl: "http://127.0.0.1:9" });
  const store = await openHomeStore(home);
  try {
    const chunks = await store.listChunks();
    const vectors = await embedder.embedDocuments(chunks.map((chunk) => chunk.content));
    await store.upsertVectors(chunks.map((chunk, index) => ({ ref: chunk.ref, embedHash: embedTextHash(chunk), embedding: vectors[index] as Float32Array })), embedder.fingerprint);
    await store.setMeta(META_KEYS.embeddingFingerprint, embedder.fingerprint);
    await store.setMeta(META_KEYS.embeddingModel, TINY_BERT_DIR);
    return chunks[0]?.content ?? "";
  } finally {
    await store.close();
    await embedder.close?.();
  }
}

describe("chunkpad search: keyword search right after add (no model)", () => {
  const home = makeTempDir("home");
  const folder = makeTempDir("docs");
  const other = makeTempDir("other");

  beforeAll(async () => {
    writeSampleDocuments(folder);
    writeFile(other, "river.txt", "Another river story, from the other folder.\n");
    for (const target of [folder, other]) {
      const added = await runCliInProcess(["add", target], { home });
      expect(added.code, added.stderr).toBe(0);
    }
  });

  it("finds the right chunk, ranked, with a snippet, and says how to get search by meaning", async () => {
    const result = await runCliInProcess(["search", "aardvark campaign"], { home });
    expect(result.code, result.stderr).toBe(0);
    expect(result.stdout).toMatch(/^1\. 100% {2}report\.txt {2}\w+:report\.txt#1$/m);
    expect(result.stdout).toContain("Revenue grew in the northern region thanks to the aardvark campaign.");
    expect(result.stdout).not.toMatch(/^2\./m);
    expect(result.stderr).toMatch(/keyword search.*chunkpad embed/);
  });

  it("gives every field with --json", async () => {
    const report = json<Report>(await runCliInProcess(["search", "heron", "--json"], { home }));
    expect(report).toMatchObject({ query: "heron", mode: "keyword", requestedMode: "auto", fusion: null });
    expect(report.keywordQuery).toContain('"heron"');
    const [top] = report.results;
    expect(top).toMatchObject({
      relativePath: "notes.md",
      documentTitle: "Field notes",
      folderPath: folder,
      section: "Field notes",
      score: 1,
      relevancePercent: 100,
      keywordRank: 1,
    });
    expect(top?.ref).toMatch(/^\w+:notes\.md#1$/);
    expect(top?.snippet).toContain("heron");
    expect(top?.keywordScore).toBeGreaterThan(0);
    expect(top?.distance).toBeUndefined();
    expect(top?.chunk.content).toContain("The heron waits");
  });

  it("shows each stage's numbers with --explain", async () => {
    const result = await runCliInProcess(["search", "river", "--explain"], { home });
    expect(result.code, result.stderr).toBe(0);
    expect(result.stdout).toMatch(/^mode: keyword · keyword query: "river"\*$/m);
    expect(result.stdout).toMatch(/score 1\.0000 · vector: not found · keyword: score [0-9.e-]+, rank 1/);
    expect(result.stdout).toMatch(/keyword: score [0-9.e-]+, rank 3/);
  });

  it("filters by folder and by document", async () => {
    const all = json<Report>(await runCliInProcess(["search", "river", "--json"], { home }));
    expect(all.results.map((row) => row.relativePath).sort()).toEqual(["garden/tomatoes.md", "notes.md", "river.txt"]);
    const onlyOther = json<Report>(await runCliInProcess(["search", "river", "--folder", other, "--json"], { home }));
    expect(onlyOther.results.map((row) => row.relativePath)).toEqual(["river.txt"]);
    const twoDocuments = json<Report>(await runCliInProcess(["search", "river", "--document", "notes.md", "--document", "tomatoes", "--json"], { home }));
    expect(twoDocuments.results.map((row) => row.relativePath).sort()).toEqual(["garden/tomatoes.md", "notes.md"]);
    const missing = await runCliInProcess(["search", "river", "--document", "no-such.pdf"], { home });
    expect(missing.code).toBe(0);
    expect(missing.stderr).toMatch(/No document matches the document filter "no-such.pdf".*"chunkpad chunks <folder>" lists the documents/);
    expect(missing.stdout).toMatch(/No results for "river"/);
    const notAdded = await runCliInProcess(["search", "river", "--folder", makeTempDir("never")], { home });
    expect(notAdded.code).toBe(1);
    expect(notAdded.stderr).toMatch(/has not been added yet.*chunkpad add/);
  });

  it("puts a pinned document's chunks first at 100%", async () => {
    const report = json<Report>(await runCliInProcess(["search", "heron", "--pin", "report.txt", "--json"], { home }));
    expect(report.results.map((row) => [row.relativePath, row.relevancePercent, row.pinned ?? false])).toEqual([
      ["report.txt", 100, true],
      ["notes.md", 100, false],
    ]);
    const text = await runCliInProcess(["search", "heron", "--pin", "report.txt"], { home });
    expect(text.stdout).toMatch(/^1\. 100% {2}report\.txt {2}\(pinned\)/m);
  });

  it("returns normally for a query full of FTS5 syntax, and for an empty result", async () => {
    for (const query of ['"unbalanced AND (NEAR title:', "NOT OR AND", "col:value^ * -", "river)\"("]) {
      const result = await runCliInProcess(["search", "--", query], { home });
      expect(result.code, `${query}: ${result.stderr}`).toBe(0);
      expect(result.stderr).not.toMatch(/syntax|unexpected/i);
    }
    const none = await runCliInProcess(["search", "zeppelin"], { home });
    expect(none.code).toBe(0);
    expect(none.stdout).toMatch(/No results for "zeppelin"/);
  });

  it("rejects bad flags with a usage error", async () => {
    const badMode = await runCliInProcess(["search", "river", "--mode", "semantic"], { home });
    expect(badMode.code).toBe(2);
    expect(badMode.stderr).toMatch(/keyword, vector, hybrid|Allowed choices/);
    const badScore = await runCliInProcess(["search", "river", "--min-score", "50"], { home });
    expect(badScore.code).toBe(2);
    expect(badScore.stderr).toMatch(/--min-score takes a number from 0 to 1/);
  });
});

describe("chunkpad search: vectors without the model never download", () => {
  const home = makeTempDir("home");
  const folder = makeTempDir("docs");
  let hub: HubServer;

  beforeAll(async () => {
    hub = await startHubServer();
    writeSampleDocuments(folder);
    expect((await runCliInProcess(["add", folder], { home })).code).toBe(0);
    expect((await runCliInProcess(["config", "set", "embedding.model", TINY_BERT_REPO], { home })).code).toBe(0);
    // Vectors exist (say, embedded on another machine), but this model is not in the cache.
    const store = await openHomeStore(home);
    const chunks = await store.listChunks();
    await store.upsertVectors(chunks.map((chunk) => ({ ref: chunk.ref, embedHash: embedTextHash(chunk), embedding: new Float32Array(64).fill(0.1) })), "some model");
    await store.close();
  });
  afterAll(async () => {
    await hub.close();
  });

  it("--mode vector falls back to keyword with a clear message and no network request", async () => {
    const result = await runCliInProcess(["search", "aardvark", "--mode", "vector", "--json"], { home, env: { CHUNKPAD_HUB_URL: hub.url } });
    expect(result.code, result.stderr).toBe(0);
    const report = json<Report>(result);
    expect(report).toMatchObject({ requestedMode: "vector", mode: "keyword" });
    expect(report.results.map((row) => row.relativePath)).toEqual(["report.txt"]);
    expect(result.stderr).toMatch(/not downloaded yet.*chunkpad embed/);
    expect(hub.requests).toEqual([]);
  });
});

describe("chunkpad search: hybrid with the tiny fixture model", () => {
  const home = makeTempDir("home");
  const folder = makeTempDir("docs");
  let firstChunkText = "";

  beforeAll(async () => {
    writeSampleDocuments(folder);
    expect((await runCliInProcess(["add", folder], { home })).code).toBe(0);
    expect((await runCliInProcess(["config", "set", "embedding.model", TINY_BERT_DIR], { home })).code).toBe(0);
    firstChunkText = await embedWithTinyModel(home);
  });

  it("defaults to hybrid and the vector stage finds a chunk from its own text at distance 0", async () => {
    // The tiny model's vectors carry no meaning, but the same text gives the same vector.
    const result = await runCliInProcess(["search", "--json", "--explain", "--", firstChunkText], { home });
    expect(result.code, result.stderr).toBe(0);
    const report = json<Report>(result);
    expect(report).toMatchObject({ requestedMode: "auto", mode: "hybrid", fusion: "weighted", notices: [] });
    const top = report.results[0];
    expect(top?.chunk.content).toBe(firstChunkText);
    expect(top?.vectorRank).toBe(1);
    expect(top?.distance).toBeCloseTo(0, 4);
    expect(report.results.every((row) => row.distance !== undefined)).toBe(true);
  });

  it("rrf fusion and vector mode run with the model; --explain prints both stages", async () => {
    const rrf = json<Report>(await runCliInProcess(["search", "river", "--fusion", "rrf", "--json"], { home }));
    expect(rrf).toMatchObject({ mode: "hybrid", fusion: "rrf" });
    expect(rrf.results[0]).toMatchObject({ keywordRank: expect.any(Number), vectorRank: expect.any(Number) });
    const vector = json<Report>(await runCliInProcess(["search", "river", "--mode", "vector", "--min-score", "0", "--json"], { home }));
    expect(vector.mode).toBe("vector");
    expect(vector.results).toHaveLength(3);
    expect(vector.results.every((row) => row.keywordScore === undefined)).toBe(true);
    const explained = await runCliInProcess(["search", "river", "--explain"], { home });
    expect(explained.stdout).toMatch(/vector: distance [0-9.e-]+, rank \d+ · keyword: score [0-9.e-]+, rank \d+/);
  });

  it("honours -words and quoted phrases in vector and hybrid modes, and still fills the limit", async () => {
    const places = (report: Report) => report.results.map((row) => row.relativePath).sort();
    const vector = json<Report>(await runCliInProcess(["search", "river -heron", "--mode", "vector", "--min-score", "0", "--json"], { home }));
    expect(vector.mode).toBe("vector");
    expect(places(vector)).toEqual(["garden/tomatoes.md", "report.txt"]);
    // The two nearest chunks may be the excluded one: the limit counts only what qualifies.
    const limited = json<Report>(await runCliInProcess(["search", "river -heron", "--mode", "vector", "--min-score", "0", "--limit", "2", "--json"], { home }));
    expect(limited.results).toHaveLength(2);
    const hybrid = json<Report>(await runCliInProcess(["search", 'river "full sun"', "--min-score", "0", "--json"], { home }));
    expect(hybrid.mode).toBe("hybrid");
    expect(places(hybrid)).toEqual(["garden/tomatoes.md"]);
    const rrf = json<Report>(await runCliInProcess(["search", "river -Herons", "--fusion", "rrf", "--min-score", "0", "--json"], { home }));
    expect(places(rrf)).toEqual(["garden/tomatoes.md", "report.txt"]);
    expect(rrf.coverage).toEqual({ chunks: 3, embedded: 3, keywordOnly: 0 });
  });

  it("stops with a clear error when the configured model is not the one that made the vectors", async () => {
    const store = await openHomeStore(home);
    const original = await store.getMeta(META_KEYS.embeddingFingerprint) ?? "";
    await store.setMeta(META_KEYS.embeddingFingerprint, JSON.stringify({ provider: "local", model: "Xenova/bge-small-en-v1.5" }));
    await store.setMeta(META_KEYS.embeddingModel, "bge-small-en-v1.5");
    await store.close();
    try {
      const result = await runCliInProcess(["search", "river"], { home });
      expect(result.code).toBe(1);
      expect(result.stderr).toMatch(/made by bge-small-en-v1\.5.*chunkpad embed --reembed/);
      const keyword = await runCliInProcess(["search", "river", "--mode", "keyword"], { home });
      expect(keyword.code).toBe(0);
    } finally {
      const restore = await openHomeStore(home);
      await restore.setMeta(META_KEYS.embeddingFingerprint, original);
      await restore.close();
    }
  });
});

describe("chunkpad search: hybrid over partly embedded chunks", () => {
  const home = makeTempDir("home");
  const folder = makeTempDir("docs");

  beforeAll(async () => {
    writeSampleDocuments(folder);
    expect((await runCliInProcess(["add", folder], { home })).code).toBe(0);
    expect((await runCliInProcess(["config", "set", "embedding.model", TINY_BERT_DIR], { home })).code).toBe(0);
    await embedWithTinyModel(home);
    // Added after embedding: found by keyword only until "chunkpad embed" runs.
    writeFile(folder, "herons.md", "# Herons\n\nA heron guide: the grey heron, the heron nest, heron calls.\n");
    expect((await runCliInProcess(["add", folder], { home })).code).toBe(0);
  });

  it("says how much is embedded and ranks a keyword-only chunk where its keyword score puts it", async () => {
    const result = await runCliInProcess(["search", "heron", "--json"], { home });
    expect(result.code, result.stderr).toBe(0);
    const report = json<Report>(result);
    expect(report.mode).toBe("hybrid");
    expect(report.coverage).toEqual({ chunks: 4, embedded: 3, keywordOnly: 1 });
    expect(result.stderr).toContain('note: Hybrid search over 3 of 4 chunks embedded; 1 is searched by keyword only. Run "chunkpad embed" to search them by meaning too.');
    // The best keyword hit, though it has no vector, is not capped at the keyword weight (0.3).
    expect(report.results[0]).toMatchObject({ relativePath: "herons.md", notEmbedded: true, keywordRank: 1 });
    expect(report.results[0]?.score).toBeGreaterThan(0.3);
    const explained = await runCliInProcess(["search", "heron", "--explain"], { home });
    expect(explained.stdout).toContain("vector: not embedded (scored at its keyword rank)");
    const vector = await runCliInProcess(["search", "heron", "--mode", "vector", "--json"], { home });
    expect(vector.stderr).toMatch(/Vector search over 3 of 4 chunks embedded; 1 is not embedded/);
  });
});
