// Step 1 throughput and memory: `npx tsx bench/process.ts [corpus-dir]`.
// Copies the corpus to a temporary folder (the shared copy is read-only), runs processFolder
// over it, and prints files/s, MB/s and peak RSS; then does the same for a generated
// 600-page PDF on its own. Prints figures only; asserts nothing.
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { openChunkpad } from "../src/index.js";
import { fillerPage, makeTextPdf } from "./make-pdf.js";

const corpus = path.resolve(process.argv[2] ?? "../shared/corpus");

async function run(label: string, folder: string): Promise<void> {
  const home = fs.mkdtempSync(path.join(os.tmpdir(), "chunkpad-bench-home-"));
  const chunkpad = openChunkpad({ env: { ...process.env, CHUNKPAD_HOME: home } });
  const bytes = totalBytes(folder);
  const started = performance.now();
  const report = await chunkpad.processFolder(folder);
  const seconds = (performance.now() - started) / 1000;
  await chunkpad.close();
  const attempted = report.processed.length + report.failed.length;
  console.log(`${label}`);
  console.log(`  files: ${report.processed.length} processed, ${report.failed.length} failed, ${report.skipped.length} skipped; ${report.chunksWritten} chunks`);
  console.log(`  time: ${seconds.toFixed(2)} s → ${(attempted / seconds).toFixed(1)} files/s, ${(bytes / 1024 / 1024 / seconds).toFixed(2)} MB/s (${(bytes / 1024 / 1024).toFixed(1)} MB of supported input)`);
  console.log(`  peak RSS so far: ${(process.resourceUsage().maxRSS / 1024).toFixed(0)} MB`);
  const failures = new Map<string, number>();
  for (const failure of report.failed) failures.set(failure.code, (failures.get(failure.code) ?? 0) + 1);
  console.log(`  failures by kind: ${[...failures].map(([code, count]) => `${code} ${count}`).join(", ") || "none"}`);
  fs.rmSync(home, { recursive: true, force: true });
}

function totalBytes(folder: string): number {
  let sum = 0;
  for (const entry of fs.readdirSync(folder, { recursive: true, withFileTypes: true })) {
    if (entry.isFile()) sum += fs.statSync(path.join(entry.parentPath, entry.name)).size;
  }
  return sum;
}

const work = fs.mkdtempSync(path.join(os.tmpdir(), "chunkpad-bench-"));
const bigPdfFolder = path.join(work, "big-pdf");
fs.mkdirSync(bigPdfFolder);
fs.writeFileSync(path.join(bigPdfFolder, "600-pages.pdf"), makeTextPdf(Array.from({ length: 600 }, (_, page) => fillerPage(page + 1))));
await run("600-page generated PDF", bigPdfFolder);

const copy = path.join(work, "corpus");
fs.cpSync(corpus, copy, { recursive: true });
for (const entry of fs.readdirSync(copy, { recursive: true, withFileTypes: true })) fs.chmodSync(path.join(entry.parentPath, entry.name), entry.isDirectory() ? 0o755 : 0o644);
fs.chmodSync(copy, 0o755);
await run(`corpus ${corpus}`, copy);
fs.rmSync(work, { recursive: true, force: true });
