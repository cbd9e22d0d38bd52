// The PostgreSQL store beside the SQLite store: `npx tsx bench/postgres-store.ts <postgres-url> [chunks, default 10000] [--vectors]`.
// Builds a SQLite store of CISI-text chunks (10 per document, 120 words each, as
// bench/search-latency.ts), copies it into the (emptied) PostgreSQL database with migrate
// (throughput), then times keyword search (and with --vectors, hybrid over 768-dim clustered
// vectors; the server needs pgvector) through the search use case on both, and how many of the
// top 10 keyword results the two backends share. Also prints PostgreSQL's on-disk size per chunk.
// `--reuse` measures the PostgreSQL side only, over what the database holds from an earlier run
// (after a change to the store's queries, without building and migrating again).
// Prints figures only; asserts nothing.
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import pg from "pg";
import { defaultConfig } from "../src/app/settings/config.js";
import { migrateStore } from "../src/app/migrate/migrate-store.js";
import { searchChunks, type SearchMode } from "../src/app/search/search.js";
import { embedTextHash } from "../src/core/chunk-ref.js";
import type { Embedder } from "../src/core/types.js";
import { openChatStore, openMainStore, type MainStore } from "../src/store/index.js";
import { openPostgresChatStore } from "../src/store/postgres/chat-store.js";
import { openPostgresStore } from "../src/store/postgres/main-store.js";
import { parseSmartDocuments, parseSmartQueries } from "../src/search/smart-format.js";
import { percentile, seededRandom, vectorSampler } from "./vectors.js";

const url = process.argv[2];
if (url === undefined || !url.startsWith("postgres")) {
  console.error("usage: npx tsx bench/postgres-store.ts postgres://user@host/db [chunks] [--vectors]");
  process.exit(2);
}
const size = Number(process.argv[3] ?? 10_000);
const withVectors = process.argv.includes("--vectors");
const reuse = process.argv.includes("--reuse");
const DIMENSIONS = 768;
const CHUNKS_PER_DOCUMENT = 10;
const CHUNK_WORDS = 120;
const WARMUP_QUERIES = 10;
const MEASURED_QUERIES = 200;
const FINGERPRINT = "bench-random-768";
const drawVector = vectorSampler(DIMENSIONS, 42, "clustered");
const nextRandom = seededRandom(7);
const cisi = path.resolve("../shared/ir/cisi");
const words = parseSmartDocuments(fs.readFileSync(path.join(cisi, "CISI.ALL"), "utf8")).map((document) => `${document.title} ${document.text}`).join(" ").split(/\s+/).filter(Boolean);
const queries = [...parseSmartQueries(fs.readFileSync(path.join(cisi, "CISI.QRY"), "utf8")).values()].map((text) => text.split(/\s+/).filter((word) => /^[A-Za-z]{4,}$/.test(word)).slice(0, 4).join(" "));

async function build(store: MainStore): Promise<void> {
  const folder = await store.upsertFolder("/bench", "/bench/_chunks");
  if (withVectors) await store.ensureVectorTable(DIMENSIONS);
  for (let first = 0; first < size; first += CHUNKS_PER_DOCUMENT) {
    const relativePath = `docs/${String(first / CHUNKS_PER_DOCUMENT).padStart(6, "0")}.md`;
    const chunks = Array.from({ length: Math.min(CHUNKS_PER_DOCUMENT, size - first) }, (_, index) => {
      const start = Math.floor(nextRandom() * (words.length - CHUNK_WORDS));
      return { content: words.slice(start, start + CHUNK_WORDS).join(" "), meta: { section: `Part ${index + 1}` } };
    });
    await store.syncDocument({ folderId: folder.id, relativePath, title: `Document ${first / CHUNKS_PER_DOCUMENT}`, documentType: "md", fileSize: 1000, pageCount: null, chunks });
    if (withVectors) {
      const stored = await store.listChunks({ folderId: folder.id, relativePath });
      await store.upsertVectors(stored.map((chunk) => ({ ref: chunk.ref, embedHash: embedTextHash(chunk), embedding: drawVector() })), FINGERPRINT);
    }
  }
}

async function measure(store: MainStore, mode: SearchMode): Promise<{ p50: number; p95: number; tops: string[][] }> {
  const queryVectors = Array.from({ length: 50 }, () => drawVector());
  let asked = 0;
  const embedder: Embedder = { dimensions: DIMENSIONS, maxTokens: 512, fingerprint: FINGERPRINT, embedDocuments: async (texts) => texts.map(() => drawVector()), embedQuery: async () => queryVectors[asked++ % queryVectors.length] as Float32Array };
  const dependencies = { store, settings: defaultConfig().search, vectorReadiness: async () => (mode === "keyword" ? { ready: false as const, reason: "keyword" } : { ready: true as const, embedder }) };
  const times: number[] = [];
  const tops: string[][] = [];
  for (let index = 0; index < WARMUP_QUERIES + MEASURED_QUERIES; index += 1) {
    const started = performance.now();
    const report = await searchChunks(dependencies, queries[index % queries.length] || "information retrieval", { mode });
    if (index >= WARMUP_QUERIES) {
      times.push(performance.now() - started);
      tops.push(report.results.map((result) => result.ref));
    }
  }
  return { p50: percentile(times, 0.5), p95: percentile(times, 0.95), tops };
}

function shared(a: string[][], b: string[][]): number {
  let same = 0;
  let total = 0;
  b.forEach((refs, index) => {
    const found = new Set(a[index]);
    total += refs.length;
    same += refs.filter((ref) => found.has(ref)).length;
  });
  return total === 0 ? 1 : same / total;
}

async function measureReused(): Promise<void> {
  const postgres = await openPostgresStore({ url: url as string, poolSize: 4 });
  for (const mode of (withVectors ? ["keyword", "hybrid"] : ["keyword"]) as SearchMode[]) {
    const onPostgres = await measure(postgres, mode);
    console.log(`${mode} over the database's ${await postgres.vectorCount()} vectors: PostgreSQL p50 ${onPostgres.p50.toFixed(1)} / p95 ${onPostgres.p95.toFixed(1)} ms`);
  }
  await postgres.close();
}

async function run(): Promise<void> {
  if (reuse) return measureReused();
  const work = fs.mkdtempSync(path.join(os.tmpdir(), "chunkpad-pg-bench-"));
  const admin = new pg.Client({ connectionString: url });
  await admin.connect();
  await admin.query("DROP SCHEMA public CASCADE; CREATE SCHEMA public;");
  try {
    const sqlite = openMainStore({ path: path.join(work, "chunkpad.db") });
    let started = performance.now();
    await build(sqlite);
    console.log(`built SQLite: ${size} chunks in ${((performance.now() - started) / 1000).toFixed(1)} s`);

    const postgres = await openPostgresStore({ url: url as string, poolSize: 4 });
    const chats = openChatStore({ path: path.join(work, "chat.db") });
    const targetChats = await openPostgresChatStore({ url: url as string, poolSize: 1 });
    started = performance.now();
    const report = await migrateStore({ source: sqlite, sourceChats: chats, target: postgres, targetChats });
    const seconds = (performance.now() - started) / 1000;
    console.log(`migrate: ${report.copied.chunks} chunks, ${report.copied.vectors} vectors in ${seconds.toFixed(1)} s = ${(report.copied.chunks / seconds).toFixed(0)} chunks/s; mismatches: ${report.mismatches.length === 0 ? "none" : report.mismatches.join("; ")}`);
    await admin.query("VACUUM ANALYZE");
    const sizes = (await admin.query<{ name: string; bytes: string }>(
      "SELECT relname AS name, pg_total_relation_size(oid)::bigint AS bytes FROM pg_class WHERE relname IN ('chunks', 'chunk_terms', 'term_stats', 'vectors', 'documents') ORDER BY relname",
    )).rows;
    for (const row of sizes) console.log(`  ${row.name}: ${(Number(row.bytes) / 1024 / 1024).toFixed(1)} MB (${(Number(row.bytes) / size).toFixed(0)} bytes/chunk)`);
    const sqliteBytes = fs.statSync(path.join(work, "chunkpad.db")).size;
    console.log(`  SQLite file: ${(sqliteBytes / 1024 / 1024).toFixed(1)} MB (${(sqliteBytes / size).toFixed(0)} bytes/chunk)`);

    for (const mode of (withVectors ? ["keyword", "hybrid"] : ["keyword"]) as SearchMode[]) {
      const onSqlite = await measure(sqlite, mode);
      const onPostgres = await measure(postgres, mode);
      console.log(`${mode} at ${size}: SQLite p50 ${onSqlite.p50.toFixed(1)} / p95 ${onSqlite.p95.toFixed(1)} ms; PostgreSQL p50 ${onPostgres.p50.toFixed(1)} / p95 ${onPostgres.p95.toFixed(1)} ms; top-10 shared ${shared(onPostgres.tops, onSqlite.tops).toFixed(3)}`);
    }
    await Promise.all([sqlite.close(), postgres.close(), chats.close(), targetChats.close()]);
  } finally {
    await admin.end();
    fs.rmSync(work, { recursive: true, force: true });
  }
}

await run();
