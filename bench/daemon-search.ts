/**
 * The warm daemon (issue 10): wall time of the real CLI's `search --mode hybrid` (process start
 * to exit) when it loads the embedding model itself (cold, CHUNKPAD_SERVER=off) and when a
 * running `chunkpad serve` embeds the query with its loaded model. Median and p95 of RUNS runs
 * each, on a folder of the three sample documents plus CHUNKS generated chunks, embedded with
 * the fixture model (../shared/models/tiny-bert: the only model this machine has; a real model
 * such as bge-small takes far longer to load, so the gap only grows).
 * Build first (`npm run build`): `npx tsx bench/daemon-search.ts [runs] [chunks]`.
 */
import { spawn, type ChildProcess } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";

const RUNS = Number(process.argv[2] ?? 15);
const CHUNKS = Number(process.argv[3] ?? 2000);
const bin = path.resolve("bin/chunkpad.js");
const model = path.resolve("../shared/models/tiny-bert");
const home = fs.mkdtempSync(path.join(os.tmpdir(), "chunkpad-daemon-bench-"));
const env = { PATH: process.env.PATH, HOME: home, CHUNKPAD_HOME: home };

function run(args: string[], extra: NodeJS.ProcessEnv = {}): Promise<{ ms: number; code: number; stderr: string }> {
  return new Promise((resolve, reject) => {
    const started = process.hrtime.bigint();
    const child = spawn(process.execPath, [bin, ...args], { env: { ...env, ...extra }, stdio: ["ignore", "ignore", "pipe"] });
    let stderr = "";
    child.stderr.on("data", (data: Buffer) => (stderr += data.toString()));
    child.on("error", reject);
    child.on("close", (code) => resolve({ ms: Number(process.hrtime.bigint() - started) / 1e6, code: code ?? -1, stderr }));
  });
}

const percentile = (values: number[], p: number) => [...values].sort((a, b) => a - b)[Math.min(values.length - 1, Math.floor(p * values.length))] as number;

async function main(): Promise<void> {
  const folder = path.join(home, "docs");
  fs.mkdirSync(folder);
  const words = "river heron marsh reed owl meadow vole night forest fern shade water stone bridge rain cloud wind field".split(" ");
  for (let file = 0; file < CHUNKS / 10; file++) {
    const paragraphs = Array.from({ length: 10 }, (_, index) => Array.from({ length: 120 }, (__, word) => words[(file * 31 + index * 7 + word * 13) % words.length]).join(" "));
    fs.writeFileSync(path.join(folder, `doc-${file}.md`), `# Document ${file}\n\n${paragraphs.join("\n\n")}\n`);
  }
  for (const args of [["add", folder], ["embed", "--model", model]]) {
    const result = await run(args);
    if (result.code !== 0) throw new Error(`${args.join(" ")} failed:\n${result.stderr}`);
  }
  const query = ["search", "heron waiting by the water", "--mode", "hybrid"];
  const cold: number[] = [];
  for (let index = 0; index < RUNS; index++) cold.push((await run(query, { CHUNKPAD_SERVER: "off" })).ms);

  const server: ChildProcess = spawn(process.execPath, [bin, "serve", "--port", "0"], { env, stdio: ["ignore", "ignore", "pipe"] });
  await new Promise<void>((resolve) => server.stderr?.on("data", (data: Buffer) => data.toString().includes("Chunkpad API on") && resolve()));
  await run(query); // the server loads its model on the first request
  const warm: number[] = [];
  for (let index = 0; index < RUNS; index++) warm.push((await run(query)).ms);
  server.kill("SIGTERM");

  console.log(`CLI "search --mode hybrid", ${CHUNKS} chunks, fixture model, ${RUNS} runs each (ms, process start to exit):`);
  console.log(`  in-process (loads the model)   p50 ${percentile(cold, 0.5).toFixed(0)}  p95 ${percentile(cold, 0.95).toFixed(0)}`);
  console.log(`  through chunkpad serve (warm)   p50 ${percentile(warm, 0.5).toFixed(0)}  p95 ${percentile(warm, 0.95).toFixed(0)}`);
  fs.rmSync(home, { recursive: true, force: true });
}

await main();
