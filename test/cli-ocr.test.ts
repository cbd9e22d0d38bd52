import { beforeAll, describe, expect, it } from "vitest";
import { json, makeTempDir, writeFile, type CliResult } from "./helpers/cli.js";
import { runCliInProcess } from "./helpers/cli-in-process.js";
import { makeScannedPdf, textImagePng } from "./helpers/scan.js";

interface SearchReport {
  results: Array<{ relativePath: string; location: string | null; chunk: { content: string } }>;
}

/**
 * A folder of scans through the real CLI: OCR is on by default, the report names the pages it
 * read, search finds the words, and with OCR off the message names the setting to change.
 */
describe("chunkpad add on scanned documents", () => {
  const home = makeTempDir("ocr-home");
  const folder = makeTempDir("ocr-docs");
  let added: CliResult;

  beforeAll(async () => {
    writeFile(folder, "minutes.pdf", makeScannedPdf([
      // A blank first page, so the one chunk starts on the scanned page.
      { text: [] },
      { scan: ["The lighthouse keeper asked for a new lens."] },
    ]));
    writeFile(folder, "whiteboard.png", textImagePng(["Orchard budget approved", "for next spring."]));
    added = await runCliInProcess(["add", folder], { home });
  }, 120_000);

  it("reports which pages were read with OCR", () => {
    expect(added.code, added.stderr).toBe(0);
    expect(added.stdout).toContain("+ minutes.pdf (pdf, 2 pages, OCR: page 2): 1 chunk");
    expect(added.stdout).toContain("+ whiteboard.png (image, OCR: page 1): 1 chunk");
  });

  it("finds OCRed words, with the scanned page as the location", async () => {
    const lighthouse = json<SearchReport>(await runCliInProcess(["search", "lighthouse keeper", "--json"], { home }));
    expect(lighthouse.results[0]?.relativePath).toBe("minutes.pdf");
    expect(lighthouse.results[0]?.location).toBe("p. 2");
    const orchard = json<SearchReport>(await runCliInProcess(["search", "orchard", "--json"], { home }));
    expect(orchard.results[0]?.relativePath).toBe("whiteboard.png");
  });

  it("with OCR turned off, reports scans with the setting that turns it back on", async () => {
    const offHome = makeTempDir("ocr-off-home");
    const set = await runCliInProcess(["config", "set", "ingest.ocr", "off"], { home: offHome });
    expect(set.code, set.stderr).toBe(0);
    const offFolder = makeTempDir("ocr-off-docs");
    writeFile(offFolder, "whiteboard.png", textImagePng(["Orchard budget approved"]));
    const result = await runCliInProcess(["add", offFolder], { home: offHome });
    expect(result.stdout).toContain('✗ whiteboard.png: an image has no text layer; OCR is off (ingest.ocr is "off"); turn it on (ingest.ocr auto) to read its text. Set it with "chunkpad config set ingest.ocr auto".');
  });

  it("says which scanned pages were left unread when the per-file time limit is too short for them", async () => {
    const hurriedHome = makeTempDir("ocr-hurried-home");
    // Too short for a page of OCR (estimated at 8 s), long enough to read the text layer.
    await runCliInProcess(["config", "set", "ingest.perFileTimeoutSeconds", "6"], { home: hurriedHome });
    const hurriedFolder = makeTempDir("ocr-hurried-docs");
    writeFile(hurriedFolder, "report.pdf", makeScannedPdf([{ text: ["The annual report of the harbour board."] }, { scan: ["A scanned appendix."] }]));
    const result = await runCliInProcess(["add", hurriedFolder], { home: hurriedHome });
    expect(result.stdout).toContain(
      "+ report.pdf (pdf, 2 pages): 1 chunk\n    note: OCR stopped at the per-file time limit: page 2 not read; give it more time with --timeout <seconds> or ingest.perFileTimeoutSeconds to OCR more pages",
    );
  });
});
