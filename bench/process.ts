// Step 1 throughput and memory: `npx tsx bench/process.ts [corpus-dir] [--no-big] [--per-file] [--keep-chunks=DIR]`.
// Copies the corpus to a temporary folder (the shared copy is read-only), runs processFolder
// over it, and prints files/s, MB/s, the run's CPU and peak RSS, and how many files were in
// flight over the run (the parse pool's use of both cores); then does the same for a generated
// 600-page PDF on its own (skipped with --no-big). With --per-file it then parses and chunks each
// file of the corpus on its own, one after the other in this process, and prints the CPU per
// format, the slowest files, when the run's start order would end on 2 idle cores at these costs
// (the tail), and the idle wall estimate beside issue 22's target (≤ 25 s on 2 idle cores): the
// longer of the critical path (the slowest file) and total CPU / 2. Prints figures
// only; asserts nothing. The machine is shared: read CPU, and compare builds in interleaved pairs.
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { openChunkpad } from "../src/index.js";
import { parseFile } from "../src/ingest/parse-file.js";
import { keepOcrEnginesBetweenFiles } from "../src/ingest/ocr.js";
import { isTextFile, supportedExtensions } from "../src/ingest/registry.js";
import { walkFolder } from "../src/ingest/walk.js";
import { chunkDocument } from "../src/chunking/chunker.js";
import { startOrder } from "../src/app/process/process-folder.js";
import { fillerPage, makeTextPdf } from "./make-pdf.js";

const args = process.argv.slice(2);
const corpus = path.resolve(args.find((arg) => !arg.startsWith("--")) ?? "../shared/corpus");
const TARGET_IDLE_WALL_S = 25;
const CORES = 2;

const cpuSeconds = (): number => {
  const usage = process.cpuUsage();
  return (usage.user + usage.system) / 1e6;
};
const load = (): string => os.loadavg()[0]!.toFixed(1);

async function run(label: string, folder: string): Promise<void> {
  const home = fs.mkdtempSync(path.join(os.tmpdir(), "chunkpad-bench-home-"));
  const chunkpad = openChunkpad({ env: { ...process.env, CHUNKPAD_HOME: home } });
  const bytes = totalBytes(folder);
  const loadBefore = load();
  // Files in flight over time, from the progress events (a file is announced when it starts and when it ends).
  const inFlight = new Set<string>();
  const spans = [0, 0, 0];
  let last = performance.now();
  const mark = (): void => {
    const now = performance.now();
    spans[Math.min(2, inFlight.size)]! += now - last;
    last = now;
  };
  // When each file started and ended in the run (ms from the start): the files that hold the wall.
  const spansByFile = new Map<string, { start: number; end?: number }>();
  const cpuStarted = cpuSeconds();
  const started = performance.now();
  const report = await chunkpad.processFolder(folder, {
    onProgress: (event) => {
      if (event.phase !== "process" || event.file === undefined) return;
      mark();
      const span = spansByFile.get(event.file);
      if (span) {
        inFlight.delete(event.file);
        span.end = performance.now() - started;
      } else {
        spansByFile.set(event.file, { start: performance.now() - started });
        inFlight.add(event.file);
      }
    },
  });
  mark();
  const seconds = (performance.now() - started) / 1000;
  const cpu = cpuSeconds() - cpuStarted;
  await chunkpad.close();
  const attempted = report.processed.length + report.failed.length;
  const share = (index: number): string => `${((100 * spans[index]!) / (seconds * 1000)).toFixed(0)} %`;
  console.log(`${label}`);
  console.log(`  files: ${report.processed.length} processed, ${report.failed.length} failed, ${report.skipped.length} skipped; ${report.chunksWritten} chunks`);
  console.log(`  time: ${seconds.toFixed(2)} s wall, ${cpu.toFixed(2)} CPU-s (load ${loadBefore} → ${load()}) → ${(attempted / seconds).toFixed(1)} files/s, ${(bytes / 1024 / 1024 / seconds).toFixed(2)} MB/s (${(bytes / 1024 / 1024).toFixed(1)} MB of supported input)`);
  // Both cores busy (files in flight below): on an idle machine the wall follows the CPU.
  console.log(`  against issue 22's target (≤ ${TARGET_IDLE_WALL_S} s wall on ${CORES} idle cores): ${seconds.toFixed(1)} s wall at this load; CPU / ${CORES} = ${(cpu / CORES).toFixed(1)} s — ${cpu / CORES <= TARGET_IDLE_WALL_S ? "met" : "not met"} if idle`);
  console.log(`  files in flight: two ${share(2)} of the wall, one ${share(1)}, none ${share(0)} (walk, clean-up, final writes)`);
  const timeline = [...spansByFile].map(([file, span]) => ({ file, start: span.start / 1000, seconds: ((span.end ?? seconds * 1000) - span.start) / 1000 }));
  const lastStart = Math.max(0, ...timeline.map((entry) => entry.start));
  console.log(`  longest in flight (s, started at s): ${timeline.sort((first, second) => second.seconds - first.seconds).slice(0, 6).map((entry) => `${entry.file} ${entry.seconds.toFixed(1)} (@${entry.start.toFixed(1)})`).join(", ")}`);
  console.log(`  the last file started at ${lastStart.toFixed(1)} s of ${seconds.toFixed(1)}: the tail, with at most one file in flight, is what a longer file started earlier would save`);
  console.log(`  peak RSS so far: ${(process.resourceUsage().maxRSS / 1024).toFixed(0)} MB`);
  const failures = new Map<string, number>();
  for (const failure of report.failed) failures.set(failure.code, (failures.get(failure.code) ?? 0) + 1);
  console.log(`  failures by kind: ${[...failures].map(([code, count]) => `${code} ${count}`).join(", ") || "none"}`);
  fs.rmSync(home, { recursive: true, force: true });
}

/** Each file parsed and chunked alone, in this thread (OCR in its own thread: process CPU counts it). */
async function perFile(folder: string): Promise<void> {
  const chunkpad = openChunkpad({ env: { ...process.env, CHUNKPAD_HOME: fs.mkdtempSync(path.join(os.tmpdir(), "chunkpad-bench-home-")) } });
  const { ingest, chunking } = chunkpad.config;
  await chunkpad.close();
  const limits = { maxDecompressedBytes: ingest.maxDecompressedMb * 1024 * 1024, maxArchiveEntries: ingest.maxArchiveEntries, ocr: ingest.ocr };
  const walk = await walkFolder(folder, { supportedExtensions: supportedExtensions(), isText: isTextFile, maxFileSizeBytes: ingest.maxFileSizeMb * 1024 * 1024 });
  // As in a parse worker, which reads file after file: one OCR engine for them all.
  keepOcrEnginesBetweenFiles();
  const loadBefore = load();
  const rows: Array<{ file: string; format: string; size: number; cpu: number; wall: number; outcome: string }> = [];
  for (const file of walk.files) {
    const cpuStarted = cpuSeconds();
    const started = performance.now();
    const controller = new AbortController();
    const timer = setTimeout(() => controller.abort(), ingest.perFileTimeoutSeconds * 1000);
    let outcome = "ok";
    try {
      const document = await parseFile(file.absolutePath, { limits, signal: controller.signal, deadlineMs: Date.now() + ingest.perFileTimeoutSeconds * 1000 });
      chunkDocument(document, chunking);
      if (document.ocrPages) outcome = `OCR ${document.ocrPages.length} p.`;
    } catch (error) {
      outcome = (error as { code?: string }).code ?? "error";
    } finally {
      clearTimeout(timer);
    }
    const format = path.extname(file.relativePath).toLowerCase() || "(none)";
    rows.push({ file: file.relativePath, format, size: file.size, cpu: cpuSeconds() - cpuStarted, wall: (performance.now() - started) / 1000, outcome });
  }
  const total = rows.reduce((sum, row) => sum + row.cpu, 0);
  const byFormat = new Map<string, { files: number; cpu: number }>();
  for (const row of rows) {
    const entry = byFormat.get(row.format) ?? { files: 0, cpu: 0 };
    entry.files += 1;
    entry.cpu += row.cpu;
    byFormat.set(row.format, entry);
  }
  // The run's own start order on two workers, each file taking its CPU here: how long the run would take idle, the tail included.
  const scheduled = startOrder(rows.map((row) => ({ ...row, relativePath: row.file })));
  const finishes = twoWorkerFinishes(scheduled.map((row) => row.cpu));
  rows.sort((first, second) => second.cpu - first.cpu);
  console.log(`each file alone, in turn (${rows.length} files, load ${loadBefore} → ${load()}): ${total.toFixed(1)} CPU-s`);
  console.log(`  CPU by format: ${[...byFormat].sort((first, second) => second[1].cpu - first[1].cpu).map(([format, entry]) => `${format} ${entry.cpu.toFixed(1)} s (${entry.files})`).join(", ")}`);
  console.log("  slowest files (CPU-s, wall-s):");
  for (const row of rows.slice(0, 15)) console.log(`    ${row.cpu.toFixed(2).padStart(6)} ${row.wall.toFixed(2).padStart(6)}  ${row.file} (${row.outcome})`);
  const criticalPath = rows[0]?.cpu ?? 0;
  const estimate = Math.max(criticalPath, total / CORES);
  console.log(`  the run's start order on ${CORES} workers at these costs: the last file ends at ${finishes.end.toFixed(1)} s, the other worker idles ${finishes.idleTail.toFixed(1)} s before it (starts last at ${finishes.lastStart.toFixed(1)} s: ${scheduled.at(finishes.lastIndex)?.relativePath ?? "none"})`);
  console.log(`  estimated idle wall on ${CORES} cores: ${estimate.toFixed(1)} s = max(slowest file ${criticalPath.toFixed(1)} s, ${total.toFixed(1)} CPU-s / ${CORES}) — target ≤ ${TARGET_IDLE_WALL_S} s: ${estimate <= TARGET_IDLE_WALL_S ? "met" : "not met"}`);
}

/** Each cost taken in turn by whichever of the workers comes free first (as the run's queue does). */
function twoWorkerFinishes(costs: readonly number[]): { end: number; idleTail: number; lastStart: number; lastIndex: number } {
  const free = Array.from({ length: CORES }, () => 0);
  let lastStart = 0;
  let lastIndex = -1;
  for (const [index, cost] of costs.entries()) {
    const worker = free.indexOf(Math.min(...free));
    if (free[worker]! + cost >= Math.max(...free)) {
      lastStart = free[worker]!;
      lastIndex = index;
    }
    free[worker]! += cost;
  }
  const end = Math.max(...free);
  return { end, idleTail: end - Math.min(...free), lastStart, lastIndex };
}

function totalBytes(folder: string): number {
  let sum = 0;
  for (const entry of fs.readdirSync(folder, { recursive: true, withFileTypes: true })) {
    if (entry.isFile()) sum += fs.statSync(path.join(entry.parentPath, entry.name)).size;
  }
  return sum;
}

const work = fs.mkdtempSync(path.join(os.tmpdir(), "chunkpad-bench-"));
if (!args.includes("--no-big")) {
  const bigPdfFolder = path.join(work, "big-pdf");
  fs.mkdirSync(bigPdfFolder);
  fs.writeFileSync(path.join(bigPdfFolder, "600-pages.pdf"), makeTextPdf(Array.from({ length: 600 }, (_, page) => fillerPage(page + 1))));
  await run("600-page generated PDF", bigPdfFolder);
}

const copy = path.join(work, "corpus");
fs.cpSync(corpus, copy, { recursive: true });
for (const entry of fs.readdirSync(copy, { recursive: true, withFileTypes: true })) fs.chmodSync(path.join(entry.parentPath, entry.name), entry.isDirectory() ? 0o755 : 0o644);
fs.chmodSync(copy, 0o755);
await run(`corpus ${corpus}`, copy);
// --keep-chunks=DIR keeps the chunk files written, to compare builds with `diff -r`.
const keep = args.find((arg) => arg.startsWith("--keep-chunks="))?.slice("--keep-chunks=".length);
if (keep) fs.cpSync(path.join(copy, "_chunks"), keep, { recursive: true });
if (args.includes("--per-file")) await perFile(corpus);
fs.rmSync(work, { recursive: true, force: true });
