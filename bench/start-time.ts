/**
 * Start time of the real CLI, from process start to the first byte of its answer on stdout,
 * median of RUNS runs each: `--version`, `--help`, `folders` and a keyword `search` on a
 * database of CHUNKS chunks (CISI text in a temporary CHUNKPAD_HOME; the folder is registered
 * as added, so search runs exactly as after `chunkpad add`). Build first (`npm run build`);
 * run on an idle machine: `npx tsx bench/start-time.ts [chunks] [runs]`.
 * Targets (issue 8): --version ≤ 150 ms, keyword search on 10k chunks ≤ 300 ms.
 */
import { spawn } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { resolvePaths } from "../src/app/settings/paths.js";
import { openMainStore } from "../src/store/index.js";
import { parseSmartDocuments, parseSmartQueries } from "../src/search/smart-format.js";

const CHUNKS = Number(process.argv[2] ?? 10_000);
const RUNS = Number(process.argv[3] ?? 15);
const CHUNKS_PER_DOCUMENT = 10;
const CHUNK_WORDS = 120;
const bin = path.resolve("bin/chunkpad.js");

const cisi = path.resolve("../shared/ir/cisi");
const words = parseSmartDocuments(fs.readFileSync(path.join(cisi, "CISI.ALL"), "utf8"))
  .flatMap((document) => `${document.title} ${document.text}`.split(/\s+/))
  .filter(Boolean);
const queries = [...parseSmartQueries(fs.readFileSync(path.join(cisi, "CISI.QRY"), "utf8")).values()]
  .map((text) => text.split(/\s+/).filter((word) => /^[A-Za-z]{4,}$/.test(word)).slice(0, 4).join(" "))
  .filter(Boolean);

async function buildHome(): Promise<{ home: string; folder: string }> {
  const home = fs.mkdtempSync(path.join(os.tmpdir(), "chunkpad-start-"));
  const folder = path.join(home, "docs");
  fs.mkdirSync(folder);
  const paths = resolvePaths({ env: { CHUNKPAD_HOME: home } });
  const store = openMainStore({ path: paths.databasePath });
  try {
    const { id } = await store.upsertFolder(folder, path.join(folder, "_chunks"));
    let cursor = 0;
    for (let first = 0; first < CHUNKS; first += CHUNKS_PER_DOCUMENT) {
      const chunks = Array.from({ length: Math.min(CHUNKS_PER_DOCUMENT, CHUNKS - first) }, () => {
        cursor = (cursor + 7919 * CHUNK_WORDS) % (words.length - CHUNK_WORDS);
        return { content: words.slice(cursor, cursor + CHUNK_WORDS).join(" "), meta: {} };
      });
      await store.syncDocument({ folderId: id, relativePath: `doc-${first / CHUNKS_PER_DOCUMENT}.md`, title: `Document ${first / CHUNKS_PER_DOCUMENT}`, documentType: "md", fileSize: 1000, pageCount: null, chunks });
    }
  } finally {
    await store.close();
  }
  return { home, folder };
}

/** Milliseconds from spawn to the first stdout byte (or exit, for a command that prints nothing). */
function timeToFirstOutput(args: string[], env: NodeJS.ProcessEnv, prefix: string[]): Promise<number> {
  return new Promise((resolve, reject) => {
    const started = process.hrtime.bigint();
    let first: number | undefined;
    const child = spawn(process.execPath, [...prefix, ...args], { env, stdio: ["ignore", "pipe", "ignore"] });
    child.stdout.once("data", () => (first ??= Number(process.hrtime.bigint() - started) / 1e6));
    child.stdout.resume();
    child.on("error", reject);
    child.on("close", (code) => (code === 0 ? resolve(first ?? Number(process.hrtime.bigint() - started) / 1e6) : reject(new Error(`chunkpad ${args.join(" ")} exited ${code}`))));
  });
}

async function median(args: (run: number) => string[], env: NodeJS.ProcessEnv, prefix = [bin]): Promise<number> {
  await timeToFirstOutput(args(0), env, prefix); // warm the file cache
  const times: number[] = [];
  for (let run = 1; run <= RUNS; run += 1) times.push(await timeToFirstOutput(args(run), env, prefix));
  times.sort((a, b) => a - b);
  return times[Math.floor(times.length / 2)] ?? NaN;
}

const { home, folder } = await buildHome();
try {
  const env = { ...process.env, CHUNKPAD_HOME: home };
  console.log(`start time: median of ${RUNS} runs, ${CHUNKS.toLocaleString("en")} chunks, load average ${os.loadavg()[0]?.toFixed(2)}, node ${process.version}`);
  console.log(`  node -e 0 (no chunkpad)     ${(await median(() => ["-e", "0"], env, [])).toFixed(0)} ms`);
  console.log(`  chunkpad --version          ${(await median(() => ["--version"], env)).toFixed(0)} ms   (target ≤ 150)`);
  console.log(`  chunkpad --help             ${(await median(() => ["--help"], env)).toFixed(0)} ms`);
  console.log(`  chunkpad folders            ${(await median(() => ["folders"], env)).toFixed(0)} ms`);
  console.log(`  chunkpad search (keyword)   ${(await median((run) => ["search", queries[run % queries.length] ?? "library", "--mode", "keyword"], env)).toFixed(0)} ms   (target ≤ 300)`);
  console.log(`  chunkpad search --json      ${(await median((run) => ["search", queries[run % queries.length] ?? "library", "--mode", "keyword", "--json", "--folder", folder], env)).toFixed(0)} ms`);
} finally {
  fs.rmSync(home, { recursive: true, force: true });
}
