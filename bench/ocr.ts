// OCR throughput and memory: `npx tsx bench/ocr.ts [files] [pages-per-file]`.
// Writes scanned PDFs (image-only pages of dense text, about 200 dpi) plus copies of a real
// scan from the corpus, runs processFolder over them with the configured parse workers (2 by
// default), and prints OCRed pages per second and peak RSS. Prints figures only; asserts nothing.
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { openChunkpad } from "../src/index.js";
import { makeScannedPdf } from "../test/helpers/scan.js";

const files = Number(process.argv[2] ?? 4);
const pagesPerFile = Number(process.argv[3] ?? 3);
const WORDS = ["archive", "ledger", "harbour", "meadow", "signal", "lantern", "orchard", "compass", "granite", "willow", "summit", "cipher"];
const denseLines = (page: number): string[] =>
  Array.from({ length: 22 }, (_, line) => Array.from({ length: 7 }, (_, word) => WORDS[(page * 7 + line * 3 + word) % WORDS.length]).join(" "));

async function run(label: string, folder: string): Promise<void> {
  const home = fs.mkdtempSync(path.join(os.tmpdir(), "chunkpad-bench-home-"));
  const chunkpad = openChunkpad({ env: { ...process.env, CHUNKPAD_HOME: home } });
  const started = performance.now();
  const report = await chunkpad.processFolder(folder);
  const seconds = (performance.now() - started) / 1000;
  await chunkpad.close();
  const pages = report.processed.reduce((sum, file) => sum + (file.ocrPages?.length ?? 0), 0);
  console.log(label);
  console.log(`  files: ${report.processed.length} processed, ${report.failed.length} failed; ${pages} pages OCRed, ${report.chunksWritten} chunks`);
  console.log(`  time: ${seconds.toFixed(1)} s → ${(pages / seconds).toFixed(2)} pages/s (${(seconds / Math.max(1, pages)).toFixed(1)} s a page) with ${chunkpad.config.ingest.workers} parse workers on ${os.availableParallelism()} cores`);
  console.log(`  peak RSS so far: ${(process.resourceUsage().maxRSS / 1024).toFixed(0)} MB (the process, all parse workers and their tesseract threads)`);
  for (const failure of report.failed) console.log(`  failed: ${failure.path}: ${failure.message}`);
  fs.rmSync(home, { recursive: true, force: true });
}

const work = fs.mkdtempSync(path.join(os.tmpdir(), "chunkpad-bench-ocr-"));
const generated = path.join(work, "generated");
fs.mkdirSync(generated);
for (let file = 0; file < files; file++) {
  const pages = Array.from({ length: pagesPerFile }, (_, page) => ({ scan: denseLines(file * pagesPerFile + page) }));
  fs.writeFileSync(path.join(generated, `scan-${file + 1}.pdf`), makeScannedPdf(pages));
}
await run(`${files} generated scans × ${pagesPerFile} pages (22 lines of text a page)`, generated);

const real = path.join(work, "real");
fs.mkdirSync(real);
const source = path.resolve("../shared/corpus/pdf.js/pdfs/issue7200.pdf");
for (let copy = 0; copy < files; copy++) fs.copyFileSync(source, path.join(real, `issue7200-${copy + 1}.pdf`));
await run(`${files} copies of issue7200.pdf (a real 300 dpi scan of a dense A4 page)`, real);
fs.rmSync(work, { recursive: true, force: true });
