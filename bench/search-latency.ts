// Search latency p50/p95 for keyword, vector and hybrid search at 10k and 100k chunks:
// `npx tsx bench/search-latency.ts [sizes, default 10000,100000]`.
// Builds a database through the store API: chunk text cut from CISI abstracts (real English
// for FTS5), each chunk with a random 768-dim unit vector; queries are the first words of
// CISI's queries, query vectors random. Times the whole search use case (both stages, fusion,
// filters, snippets) with a stand-in query embedder, so model inference is not counted.
// Prints figures only; asserts nothing.
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

/** Seeded PRNG (mulberry32), so runs are comparable. */
function random(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}
const next = random(42);

function unitVector(): Float32Array {
  const vector = new Float32Array(DIMENSIONS);
  let norm = 0;
  for (let index = 0; index < DIMENSIONS; index += 1) {
    // Box-Muller: Gaussian components give directions uniform on the sphere.
    const value = Math.sqrt(-2 * Math.log(next() || 1e-12)) * Math.cos(2 * Math.PI * next());
    vector[index] = value;
    norm += value * value;
  }
  const scale = 1 / Math.sqrt(norm);
  for (let index = 0; index < DIMENSIONS; index += 1) vector[index] = (vector[index] ?? 0) * scale;
  return vector;
}

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
  const start = Math.floor(next() * (words.length - CHUNK_WORDS));
  return words.slice(start, start + CHUNK_WORDS).join(" ");
}

async function grow(store: MainStore, folderId: string, from: number, to: number): Promise<void> {
  for (let first = from; first < to; first += CHUNKS_PER_DOCUMENT) {
    const documentNumber = first / CHUNKS_PER_DOCUMENT;
    const relativePath = `docs/${String(documentNumber).padStart(6, "0")}.md`;
    const chunks = Array.from({ length: Math.min(CHUNKS_PER_DOCUMENT, to - first) }, (_, index) => ({ content: chunkText(), meta: { section: `Part ${index + 1}` } }));
    await store.syncDocument({ folderId, relativePath, title: `Document ${documentNumber}`, documentType: "md", fileSize: 1000, pageCount: null, chunks });
    const stored = withVectors ? await store.listChunks({ folderId, relativePath }) : [];
    if (withVectors) await store.upsertVectors(stored.map((chunk) => ({ ref: chunk.ref, embedHash: embedTextHash(chunk), embedding: unitVector() })), FINGERPRINT);
  }
}

function percentile(sorted: number[], fraction: number): number {
  return sorted[Math.min(sorted.length - 1, Math.floor(fraction * sorted.length))] ?? NaN;
}

async function measure(store: MainStore, mode: SearchMode): Promise<{ p50: number; p95: number; meanResults: number }> {
  const embedder: Embedder = { dimensions: DIMENSIONS, maxTokens: 512, fingerprint: FINGERPRINT, embedDocuments: async (texts) => texts.map(unitVector), embedQuery: async () => unitVector() };
  const dependencies = { store, settings: defaultConfig().search, vectorReadiness: async () => ({ ready: true as const, embedder }) };
  const times: number[] = [];
  let results = 0;
  for (let index = 0; index < WARMUP_QUERIES + MEASURED_QUERIES; index += 1) {
    const query = queries[index % queries.length] || "information retrieval";
    const started = performance.now();
    const report = await searchChunks(dependencies, query, { mode });
    const elapsed = performance.now() - started;
    if (index >= WARMUP_QUERIES) {
      times.push(elapsed);
      results += report.results.length;
    }
  }
  times.sort((a, b) => a - b);
  return { p50: percentile(times, 0.5), p95: percentile(times, 0.95), meanResults: results / MEASURED_QUERIES };
}

async function run(): Promise<void> {
  const directory = fs.mkdtempSync(path.join(os.tmpdir(), "chunkpad-latency-"));
  const store = openMainStore({ path: path.join(directory, "chunkpad.db") });
  try {
    const folderId = (await store.upsertFolder("/bench", "/bench/_chunks")).id;
    await store.ensureVectorTable(DIMENSIONS);
    await store.setMeta(META_KEYS.embeddingFingerprint, FINGERPRINT);
    console.log(`search latency: ${MEASURED_QUERIES} queries per mode after ${WARMUP_QUERIES} warm-up, ${DIMENSIONS}-dim vectors, default limit 10 (50 candidates per stage)`);
    let built = 0;
    for (const size of sizes) {
      const started = performance.now();
      await grow(store, folderId, built, size);
      built = size;
      const megabytes = fs.statSync(path.join(directory, "chunkpad.db")).size / 1024 / 1024;
      console.log(`\n${size.toLocaleString("en")} chunks (built in ${((performance.now() - started) / 1000).toFixed(0)} s, database ${megabytes.toFixed(0)} MB)`);
      for (const mode of modes) {
        const figures = await measure(store, mode);
        console.log(`  ${mode.padEnd(8)} p50 ${figures.p50.toFixed(1).padStart(7)} ms   p95 ${figures.p95.toFixed(1).padStart(7)} ms   (${figures.meanResults.toFixed(1)} results per query)`);
      }
    }
  } finally {
    await store.close();
    fs.rmSync(directory, { recursive: true, force: true });
  }
}

await run();
