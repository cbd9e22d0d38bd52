/**
 * Search on the paths users take (issue 22), in one run, each figure beside its target:
 * - one-off CLI `chunkpad search --mode keyword|vector|hybrid` (process start to exit, CPU time),
 *   with no server running;
 * - in process: the public API (openChunkpad with the keyword index in memory, as serve keeps it);
 * - through `chunkpad serve` over real HTTP (GET /api/search with the session token): keyword
 *   requests from the moment it listens (while it gets ready), the first request of each mode once
 *   its log says search is ready, then steady state, then the first requests' queries again (a
 *   query's own cost varies, so each first request is also set beside the same request warm); the
 *   server's CPU per request from /proc.
 * Nothing is stubbed: the query is embedded by the real model (the fixture model
 * ../shared/models/tiny-bert, 64 dims: the only model this machine has, so vectors are 64-dim,
 * not bge's 768) and every vector check a request makes (readiness, coverage, the HNSW index) runs.
 *
 * The database: three sample documents added and embedded by the real CLI, then grown through the
 * store API to CHUNKS chunks (CISI text; clustered 64-dim vectors stamped like the real ones).
 * Build first (`npm run build`): `npx tsx bench/serve-search.ts [chunks=20000] [queries=200] [oneoff,serve]`;
 * with CHUNKPAD_BENCH_HOME=dir the grown database is kept in dir/<chunks> and reused by the next run.
 * Growing through the store API takes about 10 minutes per 100k chunks on this machine, so at 1M
 * CHUNKPAD_BENCH_KEYWORD_DB=file starts instead from a keyword-only database of CHUNKS chunks made by
 * bench/keyword-index-memory.ts (CISI text too, inserted straight into the chunks table), copied in
 * and given its vectors through the store API; the three sample documents are then not in it.
 */
import { spawn, spawnSync } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { openChunkpad } from "../src/index.js";
import { openMainStore } from "../src/store/index.js";
import { embedTextHash } from "../src/core/chunk-ref.js";
import { parseSmartDocuments, parseSmartQueries } from "../src/search/smart-format.js";
import { percentile, seededRandom, vectorSampler } from "./vectors.js";

const CHUNKS = Number(process.argv[2] ?? 20_000);
const QUERIES = Number(process.argv[3] ?? 200);
const ONE_OFF_RUNS = 5;
/** One-off searches with no server: rounds of keyword, vector, hybrid (CPU per run is noisy by ±100 ms at load 10). */
const ONE_OFF_ROUNDS = 9;
const FIRST_MINUTE_MS = 60_000;
const CHUNKS_PER_DOCUMENT = 10;
/** CHUNKPAD_BENCH_BIN runs another build (an older one, to compare run after run); this checkout's by default. */
const bin = path.resolve(process.env.CHUNKPAD_BENCH_BIN ?? "bin/chunkpad.js");
const model = path.resolve("../shared/models/tiny-bert");
/** CHUNKPAD_BENCH_HOME keeps the grown database between runs (built once, reused while its size matches). */
const keptHome = process.env.CHUNKPAD_BENCH_HOME;
const keywordDatabase = process.env.CHUNKPAD_BENCH_KEYWORD_DB;
const home = keptHome ? path.resolve(keptHome, String(CHUNKS)) : fs.mkdtempSync(path.join(os.tmpdir(), "chunkpad-serve-bench-"));
/** Which parts to run: `oneoff`, `serve` or both (the default). */
const parts = (process.argv[4] ?? "oneoff,serve").split(",");
const env = { PATH: process.env.PATH, HOME: home, CHUNKPAD_HOME: home };
const modes = ["keyword", "vector", "hybrid"] as const;

const cisi = path.resolve("../shared/ir/cisi");
const words = parseSmartDocuments(fs.readFileSync(path.join(cisi, "CISI.ALL"), "utf8"))
  .map((document) => `${document.title} ${document.text}`)
  .join(" ")
  .split(/\s+/)
  .filter(Boolean);
const queries = [...parseSmartQueries(fs.readFileSync(path.join(cisi, "CISI.QRY"), "utf8")).values()]
  .map((text) => text.split(/\s+/).filter((word) => /^[A-Za-z]{4,}$/.test(word)).slice(0, 4).join(" "))
  .filter(Boolean);
const queryAt = (index: number) => queries[index % queries.length] as string;

function cli(args: string[], extra: NodeJS.ProcessEnv = {}): { cpuMs: number; wallMs: number } {
  const started = performance.now();
  const result = spawnSync("/usr/bin/time", ["-f", "%U %S", process.execPath, bin, ...args], { env: { ...env, ...extra }, encoding: "utf8" });
  const wallMs = performance.now() - started;
  if (result.status !== 0) throw new Error(`chunkpad ${args.join(" ")} failed:\n${result.stderr}`);
  const [user, system] = (result.stderr.trim().split("\n").at(-1) ?? "0 0").split(" ").map(Number);
  return { cpuMs: ((user ?? 0) + (system ?? 0)) * 1000, wallMs };
}

async function buildDatabase(): Promise<void> {
  if (keptHome && fs.existsSync(path.join(home, "built"))) return;
  fs.rmSync(home, { recursive: true, force: true });
  fs.mkdirSync(home, { recursive: true });
  const folder = path.join(home, "docs");
  fs.mkdirSync(folder);
  fs.writeFileSync(path.join(folder, "river.md"), "# River\n\nThe grey heron waits by the river at dawn.\n");
  cli(["add", folder]);
  cli(["embed", "--model", model, "--yes"]);
  const file = path.join(home, "data", "chunkpad.db");
  let store = openMainStore({ path: file });
  const [stamped] = (await store.embedState()).filter((row) => row.embeddedFingerprint !== null);
  const fingerprint = stamped?.embeddedFingerprint as string;
  const folderId = (await store.listFolders())[0]?.id as string;
  const dimensions = (await store.vectorDimensions()) as number;
  const drawVector = vectorSampler(dimensions, 42);
  if (keywordDatabase) {
    await store.close();
    for (const suffix of ["", "-wal", "-shm"]) fs.rmSync(file + suffix, { force: true });
    fs.copyFileSync(keywordDatabase, file);
    store = openMainStore({ path: file });
    const chunks = await store.listChunks({});
    if (chunks.length !== CHUNKS) throw new Error(`${keywordDatabase} holds ${chunks.length} chunks, not ${CHUNKS}`);
    for (let first = 0; first < chunks.length; first += 10_000) {
      const batch = chunks.slice(first, first + 10_000);
      await store.upsertVectors(batch.map((chunk) => ({ ref: chunk.ref, embedHash: embedTextHash(chunk), embedding: drawVector() })), fingerprint);
      process.stdout.write(`\rvectors for ${Math.min(first + 10_000, chunks.length)} of ${chunks.length} chunks`);
    }
    await store.close();
    fs.writeFileSync(path.join(home, "built"), "");
    return;
  }
  const next = seededRandom(7);
  for (let first = 0; first < CHUNKS; first += CHUNKS_PER_DOCUMENT) {
    const relativePath = `grown/${String(first / CHUNKS_PER_DOCUMENT).padStart(6, "0")}.md`;
    const chunks = Array.from({ length: Math.min(CHUNKS_PER_DOCUMENT, CHUNKS - first) }, (_, index) => {
      const start = Math.floor(next() * (words.length - 120));
      return { content: words.slice(start, start + 120).join(" "), meta: { section: `Part ${index + 1}` } };
    });
    await store.syncDocument({ folderId, relativePath, title: `Document ${first / CHUNKS_PER_DOCUMENT}`, documentType: "md", fileSize: 1000, pageCount: null, chunks });
    const stored = await store.listChunks({ folderId, relativePath });
    await store.upsertVectors(stored.map((chunk) => ({ ref: chunk.ref, embedHash: embedTextHash(chunk), embedding: drawVector() })), fingerprint);
  }
  // Closing saves the HNSW index, as an embed run does.
  await store.close();
  fs.writeFileSync(path.join(home, "built"), "");
}

interface Timed {
  p50: number;
  p95: number;
  cpuPerRequest?: number;
}
const timed = (times: number[], cpuMs?: number): Timed => ({ p50: percentile(times, 0.5), p95: percentile(times, 0.95), ...(cpuMs === undefined ? {} : { cpuPerRequest: cpuMs / times.length }) });

async function inProcess(): Promise<Record<string, Timed>> {
  const chunkpad = openChunkpad({ env, keywordIndexInMemory: true });
  try {
    await chunkpad.warmSearch();
    const figures: Record<string, Timed> = {};
    for (const mode of modes) {
      const times: number[] = [];
      const cpu = process.cpuUsage();
      for (let index = 0; index < QUERIES; index++) {
        const started = performance.now();
        await chunkpad.search(queryAt(index), { mode });
        times.push(performance.now() - started);
      }
      const used = process.cpuUsage(cpu);
      figures[mode] = timed(times, (used.user + used.system) / 1000);
    }
    return figures;
  } finally {
    await chunkpad.close();
  }
}

/** CPU time of every thread of a process in ms, at nanosecond resolution (/proc/<pid>/task/<tid>/schedstat), for one request's cost. */
function threadsCpuMs(pid: number): number {
  let total = 0;
  for (const task of fs.readdirSync(`/proc/${pid}/task`)) {
    try {
      total += Number(fs.readFileSync(`/proc/${pid}/task/${task}/schedstat`, "utf8").split(" ")[0]) / 1e6;
    } catch {
      // A thread that ended between the listing and the read.
    }
  }
  return total;
}

/** utime + stime of a process, in ms (Linux /proc). */
function processCpuMs(pid: number): number {
  const fields = fs.readFileSync(`/proc/${pid}/stat`, "utf8").split(") ")[1]?.split(" ") ?? [];
  return ((Number(fields[11]) + Number(fields[12])) * 1000) / 100;
}
const peakRssMb = (pid: number) => Number(/VmHWM:\s+(\d+)/.exec(fs.readFileSync(`/proc/${pid}/status`, "utf8"))?.[1] ?? 0) / 1024;

async function throughServe() {
  const child = spawn(process.execPath, [bin, "serve", "--port", "0"], { env, stdio: ["ignore", "ignore", "pipe"] });
  const startedAt = performance.now();
  let log = "";
  let readyAt = 0;
  const ready = new Promise<void>((resolve) =>
    child.stderr.on("data", (data: Buffer) => {
      log += data.toString();
      if (readyAt === 0 && log.includes("Search ready")) {
        readyAt = performance.now();
        resolve();
      }
    }),
  );
  await new Promise<void>((resolve) => child.stderr.on("data", () => log.includes("Chunkpad API on") && resolve()));
  const info = JSON.parse(fs.readFileSync(path.join(home, "data", "server.json"), "utf8")) as { url: string; token: string };
  const request = async (query: string, mode: string) => {
    const started = performance.now();
    const response = await fetch(`${info.url}/api/search?q=${encodeURIComponent(query)}&mode=${mode}`, { headers: { "x-chunkpad-token": info.token } });
    if (response.status !== 200) throw new Error(`search answered ${response.status}: ${await response.text()}`);
    const report = (await response.json()) as { mode: string };
    if (report.mode !== mode) throw new Error(`asked for ${mode}, got ${report.mode}`);
    return performance.now() - started;
  };
  // Keyword requests from the moment it listens, until search is ready (the users of the first minute).
  const early: number[] = [];
  let isReady = false;
  void ready.then(() => (isReady = true));
  while (!isReady && early.length < 2_000) early.push(await request(queryAt(early.length), "keyword"));
  await ready;
  // The rest of the first minute from start, keyword requests back to back: the "p50 from the first minute".
  const minute = [...early];
  while (performance.now() - startedAt < FIRST_MINUTE_MS) minute.push(await request(queryAt(minute.length), "keyword"));
  // The first requests of each mode once ready (one is a single sample on a loaded machine: five, interleaved),
  // wall time and the server's CPU (every thread) for each.
  const firstQuery = (round: number, mode: (typeof modes)[number]) => queryAt(1_000 + round * 3 + modes.indexOf(mode));
  const first: Record<string, number[]> = { keyword: [], vector: [], hybrid: [] };
  const firstCpu: Record<string, number[]> = { keyword: [], vector: [], hybrid: [] };
  const timedRequest = async (query: string, mode: string, times: Record<string, number[]>, cpus: Record<string, number[]>) => {
    const cpu = threadsCpuMs(child.pid as number);
    times[mode]?.push(await request(query, mode));
    cpus[mode]?.push(threadsCpuMs(child.pid as number) - cpu);
  };
  for (let round = 0; round < 5; round++) for (const mode of modes) await timedRequest(firstQuery(round, mode), mode, first, firstCpu);
  const steady: Record<string, Timed> = {};
  for (const mode of modes) {
    const times: number[] = [];
    const cpu = processCpuMs(child.pid as number);
    for (let index = 0; index < QUERIES; index++) times.push(await request(queryAt(index), mode));
    steady[mode] = timed(times, processCpuMs(child.pid as number) - cpu);
  }
  // The first five queries asked again, warm: a query's own cost varies (its words, its results), so
  // "the first request ≤ 2× steady state" compares each first request with the same request later.
  const again: Record<string, number[]> = { keyword: [], vector: [], hybrid: [] };
  const againCpu: Record<string, number[]> = { keyword: [], vector: [], hybrid: [] };
  for (let round = 0; round < 5; round++) for (const mode of modes) await timedRequest(firstQuery(round, mode), mode, again, againCpu);
  // One-off CLI searches while the server runs: the query is embedded by the server's loaded model.
  const daemon: Record<string, number> = {};
  for (const mode of modes) daemon[mode] = percentile(Array.from({ length: ONE_OFF_RUNS }, (_, index) => cli(["search", queryAt(index), "--mode", mode, "--json"]).cpuMs), 0.5);
  const peak = peakRssMb(child.pid as number);
  child.kill("SIGTERM");
  await new Promise((resolve) => child.on("close", resolve));
  return { readySeconds: (readyAt - startedAt) / 1000, early: timed(early), earlyCount: early.length, minute: timed(minute), minuteCount: minute.length, first, firstCpu, again, againCpu, steady, daemon, peak, log };
}

const ms = (value: number) => `${value.toFixed(1)} ms`;
const verdict = (ok: boolean) => (ok ? "met" : "NOT MET");

async function main(): Promise<void> {
  const buildStarted = performance.now();
  await buildDatabase();
  console.log(`serve-search: ${CHUNKS.toLocaleString("en")} chunks (+1 real), 64-dim vectors (fixture model), ${QUERIES} queries per mode, ${os.cpus().length} cores, load ${os.loadavg()[0]?.toFixed(1)}; built in ${((performance.now() - buildStarted) / 1000).toFixed(0)} s`);

  if (parts.includes("oneoff")) oneOffSearch();
  if (parts.includes("serve")) await servedSearch();
  if (!keptHome) fs.rmSync(home, { recursive: true, force: true });
}

function oneOffSearch(): void {
  // The modes take turns, round after round, so a change in the machine's load falls on all three alike.
  const runs: Record<string, Array<{ cpuMs: number; wallMs: number }>> = { keyword: [], vector: [], hybrid: [] };
  const loadBefore = os.loadavg()[0] ?? 0;
  for (let round = 0; round < ONE_OFF_ROUNDS; round++) {
    for (const mode of modes) runs[mode]?.push(cli(["search", queryAt(round), "--mode", mode, "--json"], { CHUNKPAD_SERVER: "off" }));
  }
  const oneOff: Record<string, { cpu: number; wall: number }> = {};
  for (const mode of modes) oneOff[mode] = { cpu: percentile((runs[mode] ?? []).map((run) => run.cpuMs), 0.5), wall: percentile((runs[mode] ?? []).map((run) => run.wallMs), 0.5) };
  console.log(`\none-off CLI search (no server), median of ${ONE_OFF_ROUNDS} interleaved rounds, load ${loadBefore.toFixed(1)} → ${(os.loadavg()[0] ?? 0).toFixed(1)}: CPU (wall)`);
  for (const mode of modes) console.log(`  ${mode.padEnd(8)} ${ms(oneOff[mode]?.cpu ?? 0).padStart(10)} (${ms(oneOff[mode]?.wall ?? 0)})`);
  const keywordCpu = oneOff.keyword?.cpu ?? 1;
  for (const mode of ["vector", "hybrid"]) {
    const ratio = (oneOff[mode]?.cpu ?? 0) / keywordCpu;
    console.log(`  ${mode} / keyword CPU ${ratio.toFixed(2)}×   target ≤ 1.5× (issue 22; was 621 / 270 ms = 2.3× at 100k × 768): ${verdict(ratio <= 1.5)}`);
  }
}

async function servedSearch(): Promise<void> {

  const local = await inProcess();
  const served = await throughServe();
  console.log(`\nin process (openChunkpad, indexes warm) vs through chunkpad serve (HTTP), p50 / p95, CPU per request`);
  for (const mode of modes) {
    const here = local[mode] as Timed;
    const there = served.steady[mode] as Timed;
    console.log(
      `  ${mode.padEnd(8)} in process ${ms(here.p50)} / ${ms(here.p95)}, ${ms(here.cpuPerRequest ?? 0)} CPU   serve ${ms(there.p50)} / ${ms(there.p95)}, ${ms(there.cpuPerRequest ?? 0)} server CPU`,
    );
  }
  const vectorRatio = (served.steady.vector?.p50 ?? 0) / (local.vector?.p50 ?? 1);
  console.log(`  vector through serve / in process (p50): ${vectorRatio.toFixed(2)}×   target ≤ 1.5×: ${verdict(vectorRatio <= 1.5)}`);
  console.log(`\nchunkpad serve from start: search ready after ${served.readySeconds.toFixed(1)} s; ${served.earlyCount} keyword requests before that: p50 ${ms(served.early.p50)}, p95 ${ms(served.early.p95)}`);
  console.log(`  all ${served.minuteCount} keyword requests of the first minute (from start): p50 ${ms(served.minute.p50)}, p95 ${ms(served.minute.p95)}   target p50 ≤ 5 ms from the first minute: ${verdict(served.minute.p50 <= 5)}`);
  for (const mode of modes) {
    const times = served.first[mode] ?? [];
    const ratio = (times[0] ?? 0) / (served.steady[mode]?.p50 ?? 1);
    const medianRatio = percentile(times, 0.5) / (served.steady[mode]?.p50 ?? 1);
    console.log(
      `  first ${mode} request once ready ${ms(times[0] ?? 0)} = ${ratio.toFixed(1)}× steady p50 (first five: median ${ms(percentile(times, 0.5))} = ${medianRatio.toFixed(1)}×)   target ≤ 2×: ${verdict(ratio <= 2)}`,
    );
  }
  console.log(`  the same five queries asked again after the steady runs (each first request ÷ the same request warm), wall; server CPU (every thread):`);
  for (const mode of modes) {
    const perQuery = (firsts: number[], agains: number[]) => firsts.map((value, index) => value / (agains[index] ?? Number.NaN));
    const wall = perQuery(served.first[mode] ?? [], served.again[mode] ?? []);
    const cpu = perQuery(served.firstCpu[mode] ?? [], served.againCpu[mode] ?? []);
    const list = (values: number[]) => values.map((value) => `${value.toFixed(1)}×`).join(" ");
    console.log(
      `  ${mode.padEnd(8)} first ${list(wall)} (median ${percentile(wall, 0.5).toFixed(1)}×); CPU ${(served.firstCpu[mode] ?? []).map((value) => value.toFixed(1)).join(" ")} ms vs ${(served.againCpu[mode] ?? []).map((value) => value.toFixed(1)).join(" ")} ms warm: ${list(cpu)}   target ≤ 2× (the very first): ${verdict((wall[0] ?? Infinity) <= 2)}`,
    );
  }
  console.log(`\none-off CLI search with serve running (its model embeds the query), median CPU of ${ONE_OFF_RUNS} runs`);
  for (const mode of modes) console.log(`  ${mode.padEnd(8)} ${ms(served.daemon[mode] ?? 0).padStart(10)}`);
  for (const mode of ["vector", "hybrid"]) {
    const ratio = (served.daemon[mode] ?? 0) / (served.daemon.keyword ?? 1);
    console.log(`  ${mode} / keyword CPU ${ratio.toFixed(2)}×   target ≤ 1.5×: ${verdict(ratio <= 1.5)}`);
  }
  console.log(`  serve peak RSS ${served.peak.toFixed(0)} MB`);
  console.log(`  log: ${served.log.split("\n").filter((line) => line.startsWith("Search")).join(" ")}`);
}

await main();
