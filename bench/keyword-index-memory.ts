/**
 * The keyword index in memory (what `serve` and `mcp` keep, decision 031) at a size: how much
 * memory its lists take once every word is read, what reading them costs, and a query's CPU.
 * Issue 22: `serve` at 1M chunks peaked at 985 MB, 560 MB of it these lists; target ≤ 700 MB.
 *
 * The database: CISI text in chunks of 120 words (as bench/search-latency.ts), inserted straight
 * into the chunks table (FTS5 fills its index by the store's own triggers), keyword only: a
 * million chunks build in minutes instead of hours through the store API. It is kept in
 * CHUNKPAD_BENCH_HOME (`keyword-<chunks>/chunkpad.db`) when that is set.
 * The measurement runs in a fresh process, so the build's memory is not counted; Node's heap and
 * array buffers before and after every list is read, and the process's RSS.
 * `npx tsx bench/keyword-index-memory.ts [chunks=100000]`
 */
import { spawnSync } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { openDatabase } from "../src/store/sqlite/database.js";
import { openSqliteMainStore } from "../src/store/sqlite/main-store.js";
import { parseSmartDocuments, parseSmartQueries } from "../src/search/smart-format.js";
import { percentile, seededRandom } from "./vectors.js";

const CHUNKS = Number(process.argv[2] ?? 100_000);
const CHUNK_WORDS = 120;
const cisi = path.resolve("../shared/ir/cisi");
const keptHome = process.env.CHUNKPAD_BENCH_HOME;
const measuring = process.argv.indexOf("--measure");
const folder = measuring > 0 ? "" : keptHome ? path.resolve(keptHome, `keyword-${CHUNKS}`) : fs.mkdtempSync(path.join(os.tmpdir(), "chunkpad-keyword-memory-"));
/** The database: built here, or given to the measuring process after --measure. */
const file = measuring > 0 ? (process.argv[measuring + 1] as string) : path.join(folder, "chunkpad.db");
const cpuMs = () => {
  const usage = process.cpuUsage();
  return (usage.user + usage.system) / 1000;
};
const megabytes = (bytes: number) => `${(bytes / 1024 / 1024).toFixed(1)} MB`;

function build(): void {
  const words = parseSmartDocuments(fs.readFileSync(path.join(cisi, "CISI.ALL"), "utf8")).map((document) => `${document.title} ${document.text}`).join(" ").split(/\s+/).filter(Boolean);
  const random = seededRandom(7);
  const store = openSqliteMainStore({ path: file, loadVectorExtension: false });
  const folderId = store.upsertFolder("/bench", "/bench/_chunks").id;
  store.syncDocument({ folderId, relativePath: "grown.md", title: "Grown", documentType: "md", fileSize: 1, pageCount: null, chunks: [{ content: "first", meta: {} }] });
  const documentId = store.listDocuments(folderId)[0]?.id as string;
  store.close();
  const db = openDatabase({ path: file });
  const insert = db.prepare("INSERT INTO chunks (ref, document_id, folder_id, ordinal, title, content, content_hash, updated_at) VALUES (?, ?, ?, ?, ?, ?, ?, 't')");
  const started = performance.now();
  for (let first = 2; first <= CHUNKS; first += 50_000) {
    db.transaction(() => {
      for (let ordinal = first; ordinal < first + 50_000 && ordinal <= CHUNKS; ordinal++) {
        const start = Math.floor(random() * (words.length - CHUNK_WORDS));
        insert.run(`${folderId}:grown.md#${ordinal}`, documentId, folderId, ordinal, `Part ${ordinal % 10}`, words.slice(start, start + CHUNK_WORDS).join(" "), `h${ordinal}`);
      }
    });
    process.stdout.write(`\rbuilt ${Math.min(first + 49_999, CHUNKS)} of ${CHUNKS} chunks`);
  }
  db.close();
  console.log(` in ${((performance.now() - started) / 1000).toFixed(0)} s`);
}

function measure(): void {
  const queries = [...parseSmartQueries(fs.readFileSync(path.join(cisi, "CISI.QRY"), "utf8")).values()]
    .map((text) => text.split(/\s+/).filter((word) => /^[A-Za-z]{4,}$/.test(word)).slice(0, 4).map((word) => ({ word: word.toLowerCase(), prefix: false })))
    .filter((terms) => terms.length > 0);
  globalThis.gc?.();
  const before = process.memoryUsage();
  const store = openSqliteMainStore({ path: file, loadVectorExtension: false, keywordIndexInMemory: true, keywordIndexWarmup: false });
  const started = cpuMs();
  store.warmKeywordIndex();
  const warmCpu = cpuMs() - started;
  globalThis.gc?.();
  const after = process.memoryUsage();
  const grew = after.heapUsed + after.arrayBuffers - (before.heapUsed + before.arrayBuffers);
  console.log(`${CHUNKS} chunks: every list read in ${(warmCpu / 1000).toFixed(1)} s CPU; the index holds ${megabytes(grew)} (heap + array buffers; ${(grew / CHUNKS).toFixed(0)} bytes a chunk); process RSS ${megabytes(after.rss)}`);
  for (const match of ["all", "any"] as const) {
    const times: number[] = [];
    for (let round = 0; round < 3; round++) {
      for (const terms of queries) {
        const queryStarted = cpuMs();
        store.keywordSearchInMemory(terms, match, [], { limit: 10 });
        if (round > 0) times.push(cpuMs() - queryStarted);
      }
    }
    console.log(`  ${match}-word queries: p50 ${percentile(times, 0.5).toFixed(2)} ms, p95 ${percentile(times, 0.95).toFixed(2)} ms CPU (${times.length} CISI queries of up to 4 words)`);
  }
  store.close();
}

if (measuring > 0) measure();
else {
  if (!fs.existsSync(file)) build();
  const child = spawnSync(process.execPath, ["--expose-gc", "--import", "tsx", import.meta.filename, String(CHUNKS), "--measure", file], { stdio: "inherit" });
  if (!keptHome) fs.rmSync(folder, { recursive: true, force: true });
  process.exitCode = child.status ?? 1;
}
