/**
 * How much of each document's text Chunkpad's chunks hold, per format, against independent
 * extractors (pdftotext, antiword, unrtf, catdoc; the document's own XML for zip formats):
 *
 *   npx tsx bench/extraction-quality.ts [--worst N] [format ...]
 *
 * Prints per format: documents that hold text, documents Chunkpad extracted text from, mean
 * and median word recall; then the N files with the lowest recall. Needs
 * `apt-get install poppler-utils antiword catdoc unrtf`. Figures only; nothing is asserted.
 */
import { corpusFilesByFormat, measureFile, summarize, type QualityResult } from "../test/helpers/extraction-quality.js";

async function main(argv: string[]): Promise<number> {
  const worstIndex = argv.indexOf("--worst");
  const worst = worstIndex >= 0 ? Number(argv[worstIndex + 1] ?? "10") : 10;
  const formats = argv.filter((argument, index) => !argument.startsWith("--") && (worstIndex < 0 || index !== worstIndex + 1));
  const all: QualityResult[] = [];
  const rows: string[] = [];
  for (const [format, files] of [...corpusFilesByFormat()].sort(([a], [b]) => a.localeCompare(b))) {
    if (formats.length > 0 && !formats.includes(format)) continue;
    const started = performance.now();
    const results: QualityResult[] = [];
    for (const file of files) {
      const result = await measureFile(file, format);
      if (result) results.push(result);
    }
    all.push(...results);
    const summary = summarize(format, results);
    const seconds = ((performance.now() - started) / 1000).toFixed(1);
    rows.push(
      [format.padEnd(6), String(summary.documents).padStart(9), String(summary.extracted).padStart(9), `${(summary.meanRecall * 100).toFixed(1)}%`.padStart(8), `${(summary.medianRecall * 100).toFixed(1)}%`.padStart(8), `${seconds}s`.padStart(8)].join(" "),
    );
  }
  process.stdout.write(`${["format", "with text", "extracted", "mean", "median", "time"].map((title, index) => (index === 0 ? title.padEnd(6) : title.padStart(index < 3 ? 9 : 8))).join(" ")}\n${rows.join("\n")}\n`);
  const total = summarize("all", all);
  process.stdout.write(`all    ${String(total.documents).padStart(9)} ${String(total.extracted).padStart(9)} ${`${(total.meanRecall * 100).toFixed(1)}%`.padStart(8)} ${`${(total.medianRecall * 100).toFixed(1)}%`.padStart(8)}\n`);
  process.stdout.write(`\nlowest recall:\n`);
  for (const result of [...all].sort((a, b) => a.recall - b.recall).slice(0, worst)) {
    process.stdout.write(`  ${(result.recall * 100).toFixed(1).padStart(5)}%  ${result.file}${result.errorCode ? `  [${result.errorCode}]` : ""}${result.warnings.length > 0 ? `  (${result.warnings[0]})` : ""}\n`);
  }
  return 0;
}

process.exitCode = await main(process.argv.slice(2));
