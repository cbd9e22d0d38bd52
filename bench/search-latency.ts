// Search latency p50/p95 for keyword, vector and hybrid search at 10k and 100k chunks:
// `npx tsx bench/search-latency.ts [sizes, default 10000,100000] [modes] [clustered|uniform]`.
// Builds a database through the store API: chunk text cut from CISI abstracts (real English
// for FTS5), each chunk with a 768-dim vector drawn from a mixture of Gaussian centres on the
// sphere (bench/vectors.ts; `uniform` for the graph index's worst case); queries are the first
// words of CISI's queries, query vectors drawn from the same mixture. Times the whole search
// use case (both stages, fusion, filters, snippets) with a stand-in query embedder, so model
// inference is not counted. Vector and hybrid run twice: through the approximate index and,
// as the baseline, with exact search (sqlite-vec brute force, the index off), with how many of
// the top 10 results the two share. Keyword search runs through the keyword index in memory (as
// the server and the MCP server search; the first search builds it, timed on its own) and through
// FTS5 alone (as a one-off CLI search). Prints figures only; asserts nothing.
// What it skips: the vector readiness check a request makes (vectorReadiness is a stand-in, so
// a per-request count there went unseen until issue 22), the query model, HTTP and process
// start. bench/serve-search.ts measures those paths end to end: one-off CLI, in process, serve.
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import type { Embedder } from "../src/core/types.js";
import { defaultConfig } from "../src/app/settings/config.js";
import { searchChunks, type SearchMode } from "../src/app/search/search.js";
import { embedTextHash } from "../src/core/chunk-ref.js";
import { openMainStore, type MainStore } from "../src/store/index.js";
import { META_KEYS } from "../src/store/index.js";
import { parseSmartDocuments, parseSmartQueries } from "../src/search/smart-format.js";
import { percentile, seededRandom, vectorSampler } from "./vectors.js";
import { openSqliteMainStore, type SqliteMainStore } from "../src/store/sqlite/main-store.js";
import { toContract } from "../src/store/sqlite/sqlite-store.js";
import { buildKeywordQuery } from "../src/search/normalize.js";
import { formatKeywordQuery } from "../src/core/keyword-query.js";

const DIMENSIONS = 768;
const CHUNKS_PER_DOCUMENT = 10;
const CHUNK_WORDS = 120;
const WARMUP_QUERIES = 10;
const MEASURED_QUERIES = 200;
const FINGERPRINT = "bench-random-768";
const sizes = (process.argv[2] ?? "10000,100000").split(",").map(Number);
/** `keyword` alone skips making vectors (much faster to build). */
const modes = (process.argv[3] ?? "keyword,vector,hybrid").split(",") as SearchMode[];
const withVectors = modes.some((mode) => mode !== "keyword");

const vectorKind = (process.argv[4] ?? "clustered") as "clustered" | "uniform";
const drawVector = vectorSampler(DIMENSIONS, 42, vectorKind);
const nextRandom = seededRandom(7);

const cisi = path.resolve("../shared/ir/cisi");
const words = parseSmartDocuments(fs.readFileSync(path.join(cisi, "CISI.ALL"), "utf8"))
  .map((document) => `${document.title} ${document.text}`)
  .join(" ")
  .split(/\s+/)
  .filter(Boolean);
const queries = [...parseSmartQueries(fs.readFileSync(path.join(cisi, "CISI.QRY"), "utf8")).values()].map((text) =>
  text.split(/\s+/).filter((word) => /^[A-Za-z]{4,}$/.test(word)).slice(0, 4).join(" "),
);

function chunkText(): string {
  const start = Math.floor(nextRandom() * (words.length - CHUNK_WORDS));
  return words.slice(start, start + CHUNK_WORDS).join(" ");
}

async function grow(store: MainStore, folderId: string, from: number, to: number): Promise<void> {
  for (let first = from; first < to; first += CHUNKS_PER_DOCUMENT) {
    const documentNumber = first / CHUNKS_PER_DOCUMENT;
    const relativePath = `docs/${String(documentNumber).padStart(6, "0")}.md`;
    const chunks = Array.from({ length: Math.min(CHUNKS_PER_DOCUMENT, to - first) }, (_, index) => ({ content: chunkText(), meta: { section: `Part ${index + 1}` } }));
    await store.syncDocument({ folderId, relativePath, title: `Document ${documentNumber}`, documentType: "md", fileSize: 1000, pageCount: null, chunks });
    const stored = withVectors ? await store.listChunks({ folderId, relativePath }) : [];
    if (withVectors) await store.upsertVectors(stored.map((chunk) => ({ ref: chunk.ref, embedHash: embedTextHash(chunk), embedding: drawVector() })), FINGERPRINT);
  }
}

interface Figures {
  /** Mean CPU time of this process per measured query (the wall figures include waiting for a busy machine's cores). */
  cpuMs?: number;
  p50: number;
  p95: number;
  meanResults: number;
  /** Each query's result refs, to compare the approximate index with exact search. */
  tops: string[][];
}

async function measure(store: MainStore, mode: SearchMode, queryVectors: Float32Array[]): Promise<Figures> {
  let asked = 0;
  const embedder: Embedder = {
    dimensions: DIMENSIONS,
    maxTokens: 512,
    fingerprint: FINGERPRINT,
    embedDocuments: async (texts) => texts.map(() => drawVector()),
    embedQuery: async () => queryVectors[asked++ % queryVectors.length] as Float32Array,
  };
  const dependencies = { store, settings: defaultConfig().search, vectorReadiness: async () => ({ ready: true as const, embedder }) };
  const times: number[] = [];
  const tops: string[][] = [];
  let results = 0;
  let cpuMicroseconds = 0;
  for (let index = 0; index < WARMUP_QUERIES + MEASURED_QUERIES; index += 1) {
    const query = queries[index % queries.length] || "information retrieval";
    const started = performance.now();
    const cpu = process.cpuUsage();
    const report = await searchChunks(dependencies, query, { mode });
    const elapsed = performance.now() - started;
    const used = process.cpuUsage(cpu);
    if (index >= WARMUP_QUERIES) {
      cpuMicroseconds += used.user + used.system;
      times.push(elapsed);
      results += report.results.length;
      tops.push(report.results.map((result) => result.ref));
    }
  }
  return { p50: percentile(times, 0.5), p95: percentile(times, 0.95), meanResults: results / MEASURED_QUERIES, tops, cpuMs: cpuMicroseconds / 1000 / MEASURED_QUERIES };
}

/** Of the exact search's results, the share the approximate index's search also returned. */
function agreement(approximate: string[][], exact: string[][]): number {
  let shared = 0;
  let total = 0;
  exact.forEach((refs, index) => {
    const found = new Set(approximate[index]);
    shared += refs.filter((ref) => found.has(ref)).length;
    total += refs.length;
  });
  return total === 0 ? 1 : shared / total;
}

/**
 * The keyword stage alone (AND, then OR when AND finds fewer than 10), two ways: as search runs
 * it (the store's plan: prefixes only where cheap, MaxScore for the OR), and the baseline of
 * plain FTS5 queries as asked (a prefix on every word, one OR query ranking every match).
 */
async function measureKeywordStage(store: MainStore, engine: SqliteMainStore): Promise<{ planned: Figures; plain: Figures }> {
  const planned: number[] = [];
  const plain: number[] = [];
  let plannedResults = 0;
  let plainResults = 0;
  for (let index = 0; index < WARMUP_QUERIES + MEASURED_QUERIES; index += 1) {
    const text = queries[index % queries.length] || "information retrieval";
    const all = buildKeywordQuery(text, { match: "all" });
    const any = buildKeywordQuery(text, { match: "any" });
    if (all === null || any === null) continue;
    let started = performance.now();
    let hits = await store.keywordSearch(await store.planKeywordQuery(all), { limit: 100 });
    if (hits.length < 10) hits = await store.keywordSearch(await store.planKeywordQuery(any), { limit: 100 });
    const plannedTime = performance.now() - started;
    started = performance.now();
    let plainHits = engine.keywordSearch(formatKeywordQuery(all) as string, { limit: 100 });
    if (plainHits.length < 10) plainHits = engine.keywordSearch(formatKeywordQuery(any) as string, { limit: 100 });
    const plainTime = performance.now() - started;
    if (index >= WARMUP_QUERIES) {
      planned.push(plannedTime);
      plain.push(plainTime);
      plannedResults += hits.length;
      plainResults += plainHits.length;
    }
  }
  const figures = (times: number[], results: number): Figures => ({ p50: percentile(times, 0.5), p95: percentile(times, 0.95), meanResults: results / times.length, tops: [] });
  return { planned: figures(planned, plannedResults), plain: figures(plain, plainResults) };
}

const line = (label: string, figures: Figures, note = "") =>
  `  ${label.padEnd(23)} p50 ${figures.p50.toFixed(1).padStart(7)} ms   p95 ${figures.p95.toFixed(1).padStart(7)} ms   (${figures.meanResults.toFixed(1)} results per query)${figures.cpuMs === undefined ? "" : `   CPU ${figures.cpuMs.toFixed(1)} ms a query`}${note}`;

async function run(): Promise<void> {
  const directory = fs.mkdtempSync(path.join(os.tmpdir(), "chunkpad-latency-"));
  // Searched as a long-running process does: the approximate vector index, the keyword index in
  // memory (read here on demand and then all at once, to time both; the server reads it in the background).
  const indexed = openSqliteMainStore({ path: path.join(directory, "chunkpad.db"), keywordIndexInMemory: true, keywordIndexWarmup: false });
  const store = toContract(indexed);
  // The baseline: the same database searched exactly (no approximate index at any size) and by FTS5 alone.
  const exactStore = openMainStore({ path: path.join(directory, "chunkpad.db"), annThreshold: Number.POSITIVE_INFINITY });
  // The keyword baseline runs FTS5 expressions directly on the engine.
  const engine = openSqliteMainStore({ path: path.join(directory, "chunkpad.db"), loadVectorExtension: false });
  try {
    const folderId = (await store.upsertFolder("/bench", "/bench/_chunks")).id;
    await store.ensureVectorTable(DIMENSIONS);
    await store.setMeta(META_KEYS.embeddingFingerprint, FINGERPRINT);
    console.log(`search latency: ${MEASURED_QUERIES} queries per mode after ${WARMUP_QUERIES} warm-up, ${DIMENSIONS}-dim ${vectorKind} vectors, default limit 10 (100 candidates per stage), ${os.cpus().length} cores, load ${os.loadavg()[0]?.toFixed(1)}`);
    let built = 0;
    for (const size of sizes) {
      const started = performance.now();
      const cpu = process.cpuUsage();
      await grow(store, folderId, built, size);
      const used = process.cpuUsage(cpu);
      built = size;
      const megabytes = fs.statSync(path.join(directory, "chunkpad.db")).size / 1024 / 1024;
      console.log(`\n${size.toLocaleString("en")} chunks (built in ${((performance.now() - started) / 1000).toFixed(0)} s, ${((used.user + used.system) / 1e6).toFixed(1)} CPU-s, database ${megabytes.toFixed(0)} MB)`);
      const queryVectors = Array.from({ length: WARMUP_QUERIES + MEASURED_QUERIES }, () => drawVector());
      for (const mode of modes) {
        if (mode === "keyword") {
          // The first keyword search reads what it needs of the index in memory; then all of it is read. Timed on their own.
          const buffersBefore = process.memoryUsage().arrayBuffers;
          let started = performance.now();
          await searchChunks({ store, settings: defaultConfig().search, vectorReadiness: async () => ({ ready: false as const, reason: "" }) }, queries[0] ?? "information retrieval", { mode: "keyword" });
          const firstSearch = performance.now() - started;
          started = performance.now();
          indexed.warmKeywordIndex();
          const readAll = (performance.now() - started) / 1000;
          const note = `   first search ${firstSearch.toFixed(0)} ms, all words read in ${readAll.toFixed(1)} s, ${((process.memoryUsage().arrayBuffers - buffersBefore) / 2 ** 20).toFixed(0)} MB of lists`;
          console.log(line("keyword (in memory)", await measure(store, mode, queryVectors), note));
          console.log(line("keyword (FTS5)", await measure(exactStore, mode, queryVectors)));
          const inMemory = await measureKeywordStage(store, engine);
          const stage = await measureKeywordStage(exactStore, engine);
          console.log(line("keyword stage (memory)", inMemory.planned, "   (AND, then OR)"));
          console.log(line("keyword stage (FTS5)", stage.planned, "   (AND, then OR: the store's plan, MaxScore)"));
          console.log(line("keyword stage (plain)", stage.plain, "   (baseline: plain FTS5, a prefix on every word, one OR)"));
          continue;
        }
        // The first vector search loads (or builds) the approximate index: timed on its own.
        const started = performance.now();
        await store.vectorSearch(queryVectors[0] as Float32Array, { k: 1 });
        const loadSeconds = (performance.now() - started) / 1000;
        const approximate = await measure(store, mode, queryVectors);
        const exact = await measure(exactStore, mode, queryVectors);
        console.log(line(`${mode} (index)`, approximate, `   first search ${loadSeconds.toFixed(1)} s`));
        console.log(line(`${mode} (exact)`, exact, `   top results shared with exact: ${(agreement(approximate.tops, exact.tops) * 100).toFixed(1)}%`));
      }
    }
  } finally {
    await store.close();
    await exactStore.close();
    engine.close();
    fs.rmSync(directory, { recursive: true, force: true });
  }
}

await run();
