/**
 * Recall of vector search on a home the user already has (decision 095): the store's vectorSearch
 * through the approximate index the home holds, next to exact search (sqlite-vec brute force, the
 * same database opened with the index off), recall@10 over clustered queries drawn from the same
 * sampler that gave the home its vectors (bench/serve-search.ts: `vectorSampler(dims, 42)`, one a
 * chunk in order), continued past them, so the queries are new points of the same clusters.
 *
 *   npx tsx bench/vector-recall.ts <home> [--dist <a build's dist>] [queries=50]
 * Give an old build's dist to measure the index file it keeps (the database is opened with that
 * build's store; the home is not changed by a build of the same format). Target: recall@10 ≥ 0.99
 * (issue 22). Prints figures only.
 */
import os from "node:os";
import path from "node:path";
import { percentile, vectorSampler } from "./vectors.js";

interface Store {
  vectorDimensions(): number | null;
  vectorSearch(embedding: Float32Array, options: { k: number }): Array<{ chunk: { ref: string } }>;
  vectorIndexInfo(): { loaded: number; builds: number };
  close(): void;
}
type Open = (options: { path: string; annThreshold?: number }) => Store;

const home = path.resolve(process.argv[2] ?? "");
if (!process.argv[2]) throw new Error("usage: npx tsx bench/vector-recall.ts <home> [--dist dir] [queries]");
const distAt = process.argv.indexOf("--dist");
const dist = path.resolve(distAt > 0 ? (process.argv[distAt + 1] as string) : "dist");
const QUERIES = Number(process.argv.slice(3).find((value, index, all) => /^\d+$/.test(value) && all[index - 1] !== "--dist") ?? 50);
const { openSqliteMainStore } = (await import(path.join(dist, "store/sqlite/main-store.js"))) as { openSqliteMainStore: Open };

const file = path.join(home, "data", "chunkpad.db");
const approximate = openSqliteMainStore({ path: file });
const exact = openSqliteMainStore({ path: file, annThreshold: Number.POSITIVE_INFINITY });
const dimensions = approximate.vectorDimensions() as number;
const draw = vectorSampler(dimensions, 42);
// The first search loads (or builds) the index, which then knows how many vectors were drawn.
approximate.vectorSearch(draw(), { k: 10 });
const count = approximate.vectorIndexInfo().loaded;
for (let skipped = 1; skipped < count; skipped++) draw();

let found = 0;
const approximateCpu: number[] = [];
const exactCpu: number[] = [];
for (let query = 0; query < QUERIES; query++) {
  const vector = draw();
  let cpu = process.cpuUsage();
  const got = approximate.vectorSearch(vector, { k: 10 }).map((hit) => hit.chunk.ref);
  const used = process.cpuUsage(cpu);
  approximateCpu.push((used.user + used.system) / 1000);
  cpu = process.cpuUsage();
  const truth = new Set(exact.vectorSearch(vector, { k: 10 }).map((hit) => hit.chunk.ref));
  const exactUsed = process.cpuUsage(cpu);
  exactCpu.push((exactUsed.user + exactUsed.system) / 1000);
  found += got.filter((ref) => truth.has(ref)).length;
}
const info = approximate.vectorIndexInfo();
console.log(
  `vector-recall: ${home} (${dist}), ${count.toLocaleString("en")} × ${dimensions}, ${QUERIES} queries: recall@10 ${(found / (QUERIES * 10)).toFixed(3)} (target ≥ 0.99); ` +
    `index ${info.loaded.toLocaleString("en")} vectors, built here ${info.builds} times; CPU a search p50 ${percentile(approximateCpu, 0.5).toFixed(2)} ms (exact ${percentile(exactCpu, 0.5).toFixed(1)} ms); load ${os.loadavg()[0]?.toFixed(1)}`,
);
approximate.close();
exact.close();
