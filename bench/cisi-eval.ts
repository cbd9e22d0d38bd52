// CISI retrieval figures through the real CLI: `npx tsx bench/cisi-eval.ts [--modes keyword] [--model DIR] [--keep]`.
// With --model (e.g. ../shared/models/tiny-bert) the chunks are embedded with it first, for the
// vector and hybrid modes (`--modes keyword,hybrid-weighted,hybrid-rrf`).
// Converts ../shared/ir/cisi (bench/cisi-convert.ts) into a folder of documents plus BEIR-style
// queries and qrels, runs `chunkpad add` on it in a temporary CHUNKPAD_HOME, then
// `chunkpad eval`. Keyword mode needs no model; vector modes need `chunkpad embed` first (the
// tiny fixture model has random weights, so its vector figures would mean nothing).
// Prints figures only; asserts nothing.
import { execFileSync } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { PassThrough } from "node:stream";
import { main } from "../src/cli/main.js";
import type { CliIo } from "../src/cli/shared/io.js";

const CISI = path.resolve("../shared/ir/cisi");

function option(name: string, fallback: string): string {
  const index = process.argv.indexOf(name);
  return index === -1 ? fallback : (process.argv[index + 1] ?? fallback);
}

function io(env: NodeJS.ProcessEnv, stdout: NodeJS.WritableStream = process.stdout): CliIo {
  return { stdout: stdout as CliIo["stdout"], stderr: process.stderr, stdin: process.stdin, env };
}

async function capture(argv: string[], env: NodeJS.ProcessEnv): Promise<{ code: number; text: string }> {
  const sink = new PassThrough();
  let text = "";
  sink.on("data", (data: Buffer) => (text += data.toString()));
  const code = await main(argv, io(env, sink));
  return { code, text };
}

async function run(): Promise<number> {
  const modes = option("--modes", "keyword");
  const keep = process.argv.includes("--keep");
  const work = fs.mkdtempSync(path.join(os.tmpdir(), "chunkpad-cisi-"));
  const home = path.join(work, "home");
  const env = { ...process.env, CHUNKPAD_HOME: home };
  try {
    execFileSync(process.execPath, ["--import", "tsx", "bench/cisi-convert.ts", CISI, work], { stdio: ["ignore", "inherit", "inherit"] });

    const started = performance.now();
    const added = await capture(["add", path.join(work, "docs"), "--json"], env);
    if (added.code !== 0) {
      process.stderr.write(`chunkpad add failed (exit ${added.code})\n`);
      return added.code;
    }
    const report = JSON.parse(added.text) as { processed: unknown[]; failed: unknown[]; chunksWritten: number };
    const addSeconds = (performance.now() - started) / 1000;
    console.log(`add: ${report.processed.length} documents, ${report.failed.length} failed, ${report.chunksWritten} chunks in ${addSeconds.toFixed(1)} s`);

    const model = option("--model", "");
    if (model !== "") {
      const embedStarted = performance.now();
      const embedded = await capture(["embed", "--model", path.resolve(model), "--yes"], env);
      if (embedded.code !== 0) return embedded.code;
      console.log(`embed: ${((performance.now() - embedStarted) / 1000).toFixed(1)} s with ${model}`);
    }

    const evalStarted = performance.now();
    const code = await main(["eval", "--queries", path.join(work, "queries.jsonl"), "--qrels", path.join(work, "qrels.tsv"), "--modes", modes], io(env));
    console.log(`eval: ${((performance.now() - evalStarted) / 1000).toFixed(1)} s`);
    return code;
  } finally {
    if (keep) console.log(`kept ${work}`);
    else fs.rmSync(work, { recursive: true, force: true });
  }
}

process.exitCode = await run();
