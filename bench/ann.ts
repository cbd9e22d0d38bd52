/**
 * Vector search at scale (issues 12, 22): the store's vectorSearch through the approximate index
 * (an inverted file since decision 100; before it usearch HNSW, float16; decision 089 measured an int8 graph with re-scored candidates) next to exact search (sqlite-vec brute
 * force, the same store opened with the index off), on clustered synthetic vectors: a mixture
 * of 2,000 Gaussian centres on the unit sphere, each vector a centre plus noise (random unit
 * vectors would be the worst case of any graph index and say nothing about real text).
 * Prints per size and dimension: recall@10 against exact, latency p50/p95 of both, the time the
 * first search took to build the index and its CPU a vector (every thread), the index file's
 * size, the process's memory, and the CPU a vector of writing the vectors (upsertVectors).
 *
 *   npx tsx bench/ann.ts [sizes] [dims] [queries] [--embed-run]     e.g. 100000,1000000 384,768 200
 * `--embed-run` writes the vectors as an embed run does, the index brought up to date after each
 * document's batch (updateVectorIndex), and prints that CPU a vector (every build and addition of
 * the run, and the save at its end) in place of the first search's build.
 * Targets: recall@10 ≥ 0.99 (issue 22; 0.98 in issue 12); p50 ≤ 10 ms at 100k, ≤ 30 ms at 1M;
 * build ≤ 0.3 ms CPU a 768-dim vector (issue 22).
 */
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { openSqliteMainStore, type SqliteMainStore } from "../src/store/sqlite/main-store.js";
import { embedTextHash } from "../src/core/chunk-ref.js";
import { CLUSTER_CENTRES, CLUSTER_NOISE, percentile, vectorSampler } from "./vectors.js";

const sizes = (process.argv[2] ?? "100000").split(",").map(Number);
const dimensionsList = (process.argv[3] ?? "384").split(",").map(Number);
const QUERIES = Number(process.argv[4] ?? 200);
const EMBED_RUN = process.argv.includes("--embed-run");
const CHUNKS_PER_DOCUMENT = 100;

/** Wall seconds, and CPU ms a vector of upsertVectors alone. */
async function fill(store: SqliteMainStore, size: number, dimensions: number, draw: () => Float32Array): Promise<{ seconds: number; upsertCpuMs: number; indexCpuMs: number }> {
  const started = performance.now();
  let upsertCpu = 0;
  let indexCpu = 0;
  const folderId = store.upsertFolder("/bench", "/bench/_chunks").id;
  store.ensureVectorTable(dimensions);
  for (let first = 0; first < size; first += CHUNKS_PER_DOCUMENT) {
    const count = Math.min(CHUNKS_PER_DOCUMENT, size - first);
    const relativePath = `doc-${first / CHUNKS_PER_DOCUMENT}.md`;
    store.syncDocument({ folderId, relativePath, title: relativePath, documentType: "md", fileSize: 1, pageCount: null, chunks: Array.from({ length: count }, (_, index) => ({ content: `chunk ${first + index}`, meta: {} })) });
    const chunks = store.listChunks({ folderId, relativePath });
    const vectors = chunks.map((chunk) => ({ ref: chunk.ref, embedHash: embedTextHash(chunk), embedding: draw() }));
    const cpu = process.cpuUsage();
    store.upsertVectors(vectors, "bench");
    const used = process.cpuUsage(cpu);
    upsertCpu += used.user + used.system;
    if (EMBED_RUN) {
      const indexStarted = process.cpuUsage();
      store.updateVectorIndex();
      const indexUsed = process.cpuUsage(indexStarted);
      indexCpu += indexUsed.user + indexUsed.system;
    }
  }
  const closing = process.cpuUsage();
  const closingAt = performance.now();
  store.close();
  const closed = process.cpuUsage(closing);
  indexCpu += EMBED_RUN ? closed.user + closed.system : 0;
  // What a user waits for after the last vector is written (issue 22: never minutes).
  if (EMBED_RUN) console.log(`  ${size} × ${dimensions}: the run's end (the store's close: the index built and saved) ${((performance.now() - closingAt) / 1000).toFixed(1)} s wall, ${((closed.user + closed.system) / 1e6).toFixed(1)} CPU-s`);
  return { seconds: (performance.now() - started) / 1000, upsertCpuMs: upsertCpu / 1000 / size, indexCpuMs: indexCpu / 1000 / size };
}

async function main(): Promise<void> {
  console.log(`clustered vectors: ${CLUSTER_CENTRES} centres, noise ${CLUSTER_NOISE}; ${QUERIES} queries; ${os.cpus().length} cores`);
  console.log("size       dims  recall@10 (≥ 0.99)  ann p50/p95 ms   exact p50/p95 ms   build s  build CPU ms/vector (≤ 0.3)  index MB  rss MB  fill s  upsert CPU ms/vector  ann CPU ms/search  load");
  for (const dimensions of dimensionsList) {
    for (const size of sizes) {
      const directory = fs.mkdtempSync(path.join(os.tmpdir(), "chunkpad-ann-bench-"));
      const file = path.join(directory, "chunkpad.db");
      const draw = vectorSampler(dimensions, 42);
      const writer = openSqliteMainStore(EMBED_RUN ? { path: file } : { path: file, annThreshold: Number.POSITIVE_INFINITY });
      const filled = await fill(writer, size, dimensions, draw);
      const queries = Array.from({ length: QUERIES }, draw);

      const ann = openSqliteMainStore({ path: file });
      let started = performance.now();
      const buildCpu = process.cpuUsage();
      ann.vectorSearch(queries[0] as Float32Array, { k: 10 });
      const buildSeconds = (performance.now() - started) / 1000;
      const buildUsed = process.cpuUsage(buildCpu);
      const buildCpuPerVector = (buildUsed.user + buildUsed.system) / 1000 / size;
      const annTimes: number[] = [];
      const annHits: string[][] = [];
      const searchCpu = process.cpuUsage();
      for (const query of queries) {
        started = performance.now();
        annHits.push(ann.vectorSearch(query, { k: 10 }).map((hit) => hit.chunk.ref));
        annTimes.push(performance.now() - started);
      }
      const searchUsed = process.cpuUsage(searchCpu);
      const searchCpuMs = (searchUsed.user + searchUsed.system) / 1000 / queries.length;
      ann.close();
      const indexBytes = fs.readdirSync(directory).filter((name) => (name.includes(".usearch-") || name.includes(".ivf-"))).reduce((sum, name) => sum + fs.statSync(path.join(directory, name)).size, 0);
      const rss = process.memoryUsage().rss / 1e6;

      const exact = openSqliteMainStore({ path: file, annThreshold: Number.POSITIVE_INFINITY });
      const exactTimes: number[] = [];
      let same = 0;
      const exactQueries = Math.min(QUERIES, size >= 1_000_000 ? 30 : QUERIES);
      for (const [index, query] of queries.slice(0, exactQueries).entries()) {
        started = performance.now();
        const truth = new Set(exact.vectorSearch(query, { k: 10 }).map((hit) => hit.chunk.ref));
        exactTimes.push(performance.now() - started);
        same += (annHits[index] as string[]).filter((ref) => truth.has(ref)).length;
      }
      exact.close();
      console.log(
        `${String(size).padEnd(10)} ${String(dimensions).padEnd(5)} ${(same / (exactQueries * 10)).toFixed(3).padEnd(19)} ` +
          `${percentile(annTimes, 0.5).toFixed(1)} / ${percentile(annTimes, 0.95).toFixed(1)}`.padEnd(17) +
          `${percentile(exactTimes, 0.5).toFixed(0)} / ${percentile(exactTimes, 0.95).toFixed(0)}`.padEnd(19) +
          `${buildSeconds.toFixed(1)}`.padEnd(9) + (EMBED_RUN ? `${filled.indexCpuMs.toFixed(3)} (embed run)` : buildCpuPerVector.toFixed(3)).padEnd(29) + `${(indexBytes / 1e6).toFixed(0)}`.padEnd(10) + `${rss.toFixed(0)}`.padEnd(8) +
          `${filled.seconds.toFixed(0)}`.padEnd(8) + `${filled.upsertCpuMs.toFixed(3)}`.padEnd(22) + `${searchCpuMs.toFixed(2)}`.padEnd(19) + (os.loadavg()[0] ?? 0).toFixed(1),
      );
      fs.rmSync(directory, { recursive: true, force: true });
    }
  }
}

await main();
