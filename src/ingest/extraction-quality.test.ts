import fs from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { CORPUS_DIR } from "../../test/helpers/parse.js";
import { corpusFilesByFormat, holdsText, measureFile, sampleFiles, summarize, type QualityResult } from "../../test/helpers/extraction-quality.js";

/**
 * Word recall of the chunks against independent extractors over ../shared/corpus (see
 * test/helpers/extraction-quality.ts), per format. The floors sit just under the values
 * measured when they were set, so a parser change that loses text fails here and names the
 * files that fell below. bench/extraction-quality.ts prints the full figures.
 */

/** Mean recall floor and share of documents with text that must yield chunks, per format. */
const FLOORS: Record<string, { meanRecall: number; extractedShare: number }> = {
  pdf: { meanRecall: 0.97, extractedShare: 1 },
  doc: { meanRecall: 0.99, extractedShare: 1 },
  docx: { meanRecall: 0.98, extractedShare: 1 },
  pptx: { meanRecall: 0.98, extractedShare: 1 },
  xlsx: { meanRecall: 0.98, extractedShare: 1 },
  odt: { meanRecall: 0.97, extractedShare: 1 },
  ods: { meanRecall: 0.97, extractedShare: 1 },
  odp: { meanRecall: 0.97, extractedShare: 1 },
  rtf: { meanRecall: 0.77, extractedShare: 0.94 },
  epub: { meanRecall: 0.92, extractedShare: 1 },
};

/**
 * PDFs are the slowest to parse: a fixed sample of those under a megabyte keeps the suite
 * fast (the bench reads them all). Other formats run whole.
 */
const SAMPLE_SIZE: Record<string, number> = { pdf: 12 };
const MAX_SAMPLED_BYTES = 500_000;

const byFormat = corpusFilesByFormat();

describe("extraction quality against independent extractors", () => {
  it.each(Object.keys(FLOORS))("%s: recall stays at or above its floor", async (format) => {
    const floor = FLOORS[format] ?? { meanRecall: 1, extractedShare: 1 };
    const sampled = SAMPLE_SIZE[format] !== undefined;
    const withText = (byFormat.get(format) ?? []).filter((file) => (!sampled || fs.statSync(path.join(CORPUS_DIR, file)).size < MAX_SAMPLED_BYTES) && holdsText(file, format));
    const files = sampleFiles(withText, SAMPLE_SIZE[format] ?? Infinity);
    const results: QualityResult[] = [];
    for (const file of files) {
      const result = await measureFile(file, format);
      if (result) results.push(result);
    }
    expect(results.length, `no ${format} documents with text in the corpus`).toBeGreaterThan(0);
    const summary = summarize(format, results);
    const below = results.filter((result) => result.recall < floor.meanRecall).map((result) => `${result.file} ${(result.recall * 100).toFixed(1)}%${result.errorCode ? ` ${result.errorCode}` : ""}`);
    const report = `${format}: ${summary.extracted}/${summary.documents} extracted, mean recall ${(summary.meanRecall * 100).toFixed(1)}%; below the floor: ${below.join(", ") || "none"}`;
    expect(summary.meanRecall, report).toBeGreaterThanOrEqual(floor.meanRecall);
    expect(summary.extracted / summary.documents, report).toBeGreaterThanOrEqual(floor.extractedShare);
  });
});
