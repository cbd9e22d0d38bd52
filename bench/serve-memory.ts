/**
 * `chunkpad serve`'s memory on a home the user already has (issue 22: peak ≤ 700 MB at 1M chunks):
 * starts the server, waits for its log to say search is ready, sends keyword, vector and hybrid
 * requests over HTTP, and prints the peak RSS (/proc's VmHWM) beside the target, with the peaks of
 * anonymous and file-backed pages sampled every 100 ms (and the anonymous peak of each phase: the
 * reading, then each kind of request) and what a mapped vector index file holds at the end (the HNSW
 * file before decision 100; the inverted file is read, not mapped, so 0). The
 * server's own CPU time comes from /proc too.
 *
 * `npx tsx bench/serve-memory.ts <home> [--bin path/to/chunkpad.js]` (default: this checkout's
 * bin/chunkpad.js, so `npm run build` first). Give an old build's bin to compare, run after run.
 * The 1M home of decision 077 is made by `CHUNKPAD_BENCH_KEYWORD_DB=… bench/serve-search.ts 1000000`.
 */
import { spawn } from "node:child_process";
import fs from "node:fs";
import path from "node:path";

const TARGET_MB = 700;
const SAMPLE_MS = 100;
const REQUESTS = { keyword: 300, vector: 100, hybrid: 100 } as const;
const QUERIES = ["library catalog retrieval", "information science", "citation analysis journals", "indexing vocabulary", "user needs survey", "automatic classification documents", "relevance feedback"];

const home = path.resolve(process.argv[2] ?? "");
if (!process.argv[2] || !fs.existsSync(path.join(home, "data"))) throw new Error("usage: npx tsx bench/serve-memory.ts <home> [--bin chunkpad.js]");
const binAt = process.argv.indexOf("--bin");
const bin = path.resolve(binAt > 0 ? (process.argv[binAt + 1] as string) : "bin/chunkpad.js");
const env = { PATH: process.env.PATH, HOME: home, CHUNKPAD_HOME: home };
const mb = (kilobytes: number) => kilobytes / 1024;

const started = performance.now();
const child = spawn(process.execPath, [bin, "serve", "--port", "0"], { env, stdio: ["ignore", "ignore", "pipe"] });
let log = "";
child.stderr.on("data", (data: Buffer) => (log += data.toString()));
const exited = new Promise((resolve) => child.on("close", resolve));

function status(): { hwm: number; anon: number; file: number } {
  const text = fs.readFileSync(`/proc/${child.pid}/status`, "utf8");
  const field = (name: string) => mb(Number(new RegExp(`${name}:\\s+(\\d+)`).exec(text)?.[1] ?? 0));
  return { hwm: field("VmHWM"), anon: field("RssAnon"), file: field("RssFile") };
}
/** The server's CPU seconds (utime + stime from /proc/pid/stat, in clock ticks of 10 ms). */
function cpuSeconds(): number {
  const fields = fs.readFileSync(`/proc/${child.pid}/stat`, "utf8").split(") ")[1]?.split(" ") ?? [];
  return (Number(fields[11]) + Number(fields[12])) / 100;
}
/** Resident kilobytes of the mappings whose path contains `name` (a vector index file), from smaps. */
function mappedRss(name: string): number {
  let total = 0;
  let inside = false;
  for (const line of fs.readFileSync(`/proc/${child.pid}/smaps`, "utf8").split("\n")) {
    if (/^[0-9a-f]+-[0-9a-f]+ /.test(line)) inside = line.includes(name);
    else if (inside && line.startsWith("Rss:")) total += Number(/(\d+)/.exec(line)?.[1] ?? 0);
  }
  return mb(total);
}

let peakAnon = 0;
let peakFile = 0;
/** The anonymous peak since the last phase began (the reading, then each kind of request). */
let phaseAnon = 0;
const sampler = setInterval(() => {
  try {
    const now = status();
    peakAnon = Math.max(peakAnon, now.anon);
    phaseAnon = Math.max(phaseAnon, now.anon);
    peakFile = Math.max(peakFile, now.file);
  } catch {
    // The process has not started or has ended.
  }
}, SAMPLE_MS);

try {
  await new Promise<void>((resolve, reject) => {
    const check = () => (log.includes("Search ready") ? resolve() : child.exitCode !== null ? reject(new Error(log)) : setTimeout(check, 50));
    check();
  });
  const ready = status();
  console.log(`${log.split("\n").find((line) => line.startsWith("Search ready"))} (${((performance.now() - started) / 1000).toFixed(1)} s wall, ${cpuSeconds().toFixed(1)} CPU-s): RSS peak ${ready.hwm.toFixed(0)} MB, now anon ${ready.anon.toFixed(0)} + file ${ready.file.toFixed(0)} MB, anon peak ${phaseAnon.toFixed(0)} MB`);
  const info = JSON.parse(fs.readFileSync(path.join(home, "data", "server.json"), "utf8")) as { url: string; token: string };
  for (const [mode, count] of Object.entries(REQUESTS)) {
    const times: number[] = [];
    const cpuBefore = cpuSeconds();
    phaseAnon = 0;
    for (let index = 0; index < count; index++) {
      const begun = performance.now();
      const response = await fetch(`${info.url}/api/search?q=${encodeURIComponent(QUERIES[index % QUERIES.length] as string)}&mode=${mode}`, { headers: { "x-chunkpad-token": info.token } });
      await response.json();
      times.push(performance.now() - begun);
    }
    times.sort((a, b) => a - b);
    console.log(`${mode}: ${count} requests, p50 ${(times[count >> 1] as number).toFixed(1)} ms, server CPU ${(((cpuSeconds() - cpuBefore) * 1000) / count).toFixed(1)} ms per request; anon peak ${phaseAnon.toFixed(0)} MB`);
  }
  const end = status();
  console.log(`vector index file resident (mapped): ${(mappedRss(".usearch-") + mappedRss(".ivf-")).toFixed(0)} MB`);
  console.log(`peak RSS (VmHWM) ${end.hwm.toFixed(0)} MB (target ≤ ${TARGET_MB} MB); sampled peaks anon ${peakAnon.toFixed(0)} MB, file-backed ${peakFile.toFixed(0)} MB; at the end anon ${end.anon.toFixed(0)} + file ${end.file.toFixed(0)} MB`);
} finally {
  clearInterval(sampler);
  child.kill("SIGTERM");
  await exited;
}
