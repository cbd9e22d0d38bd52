import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { failureNextSteps } from "../core/next-step.js";
import { describe, expect, it } from "vitest";
import { chunkpadRejection } from "../../test/helpers/rejection.js";
import { corpusBytes } from "../../test/helpers/parse.js";
import { makeScannedPdf, textImageJpeg, textImagePng, textImageTiff } from "../../test/helpers/scan.js";
import { describePageRuns } from "../core/page-runs.js";
import { DEFAULT_PARSE_LIMITS, type ParsedDocument, type ParseInput, type ParseLimits } from "../core/types.js";
import { imageParser, tiffPageCount } from "./parsers/image.js";
import { pdfParser } from "./parsers/pdf.js";
import { createParseRunner } from "./parse-runner.js";

/**
 * OCR of scanned PDFs and images, on real scans from pdf.js's test suite and on scans made
 * here with known words. Each case runs tesseract for real (seconds a page), so files are
 * parsed once and shared by the assertions on them.
 */
const OCR_ON: ParseLimits = { ...DEFAULT_PARSE_LIMITS, ocr: "auto" };
const OCR_OFF: ParseLimits = { ...DEFAULT_PARSE_LIMITS, ocr: "off" };

function input(path: string, data: Uint8Array, limits = OCR_ON, extra: Partial<ParseInput> = {}): ParseInput {
  return { path, data: new Uint8Array(data), limits, ...extra };
}

const textOf = (document: ParsedDocument): string => document.blocks.map((block) => block.text).join("\n");

describe("OCR of scanned PDFs from the corpus", () => {
  it("reads a scanned text page (issue7200.pdf) with its page number", async () => {
    const document = await pdfParser.parse(input("issue7200.pdf", corpusBytes("pdf.js/pdfs/issue7200.pdf")));
    expect(textOf(document)).toMatch(/Lorem ipsum dolor sit amet/);
    expect(document.ocrPages).toEqual([1]);
    expect(document.blocks.every((block) => block.page === 1)).toBe(true);
  });

  it("reads 1-bit and image-mask scans (images_1bit_grayscale.pdf)", async () => {
    const document = await pdfParser.parse(input("images_1bit_grayscale.pdf", corpusBytes("pdf.js/pdfs/images_1bit_grayscale.pdf")));
    expect(textOf(document)).toMatch(/Image Mask/);
    expect(document.ocrPages).toEqual([1]);
  });

  it("reports a photo with no text (issue5475.pdf) as a scan OCR could not read, without crashing", async () => {
    const error = await chunkpadRejection(pdfParser.parse(input("issue5475.pdf", corpusBytes("pdf.js/pdfs/issue5475.pdf"))));
    expect(error.code).toBe("PARSE_NO_TEXT_LAYER");
    expect(error.message).toContain("OCR passed over page 1: a first look at 72 dpi saw marks but no legible English");
  });

  it("passes over a form in a script the English model cannot read (issue7229.pdf), and says why", async () => {
    // Read in full at 200 dpi, its two pages gave text at confidence 27–29, which was dropped.
    const error = await chunkpadRejection(pdfParser.parse(input("issue7229.pdf", corpusBytes("pdf.js/pdfs/issue7229.pdf"))));
    expect(error.code).toBe("PARSE_NO_TEXT_LAYER");
    expect(error.message).toBe(
      "scanned PDF with no text layer: OCR passed over pages 1–2: a first look at 72 dpi saw marks but no legible English (a photo, a texture, or another script)",
    );
  });

  it("names the setting that turns OCR on when it is off", async () => {
    const error = await chunkpadRejection(pdfParser.parse(input("issue7200.pdf", corpusBytes("pdf.js/pdfs/issue7200.pdf"), OCR_OFF)));
    expect(error.code).toBe("PARSE_NO_TEXT_LAYER");
    expect(error.message).toContain("turn it on (ingest.ocr auto)");
    expect(failureNextSteps(error.code, error.message)).toEqual([{ action: "change-setting", key: "ingest.ocr", value: "auto" }]);
  });
});

describe("OCR of generated scans with known words", () => {
  // Page 1 has a text layer, pages 2 and 3 are scans: OCR text must land on its own page,
  // between the pages around it.
  const mixedPdf = makeScannedPdf([
    { text: ["Quarterly report of the harbour office."] },
    { scan: ["Invoice number 4711 for lighthouse repairs", "was paid in full on the ninth of March."] },
    { scan: ["The granite quarry closes in winter."] },
  ]);

  // Parsed in this process once, by the first test that wants it: each parse OCRs two pages.
  let mixedInProcess: Promise<ParsedDocument> | undefined;
  const parseMixed = () => (mixedInProcess ??= pdfParser.parse(input("mixed.pdf", mixedPdf)));

  it("reads the scanned pages of a mixed PDF and numbers their chunks by page", async () => {
    const document = await parseMixed();
    expect(document.ocrPages).toEqual([2, 3]);
    const pages = document.blocks.map((block) => block.page);
    expect(pages).toEqual([...pages].sort((first, second) => (first ?? 0) - (second ?? 0)));
    const lighthouse = document.blocks.find((block) => /lighthouse/i.test(block.text));
    expect(lighthouse?.page).toBe(2);
    expect(lighthouse?.text).toMatch(/Invoice number 4711/);
    expect(document.blocks.find((block) => /granite quarry/i.test(block.text))?.page).toBe(3);
    expect(document.blocks[0]).toMatchObject({ page: 1, text: "Quarterly report of the harbour office." });
  });

  it("reads scan after scan in one parse worker, which keeps its OCR engine between files", async () => {
    const folder = fs.mkdtempSync(path.join(os.tmpdir(), "chunkpad-ocr-"));
    const second = path.join(folder, "second.pdf");
    fs.writeFileSync(path.join(folder, "mixed.pdf"), mixedPdf);
    fs.writeFileSync(second, makeScannedPdf([{ scan: ["The orchard lantern guides the harbour ships."] }]));
    const runner = createParseRunner({ workers: 1, timeoutMs: 120_000, maxHeapMb: 1024 });
    try {
      const first = await runner.parse({ path: path.join(folder, "mixed.pdf"), limits: OCR_ON });
      const next = await runner.parse({ path: second, limits: OCR_ON });
      const again = await runner.parse({ path: path.join(folder, "mixed.pdf"), limits: OCR_ON });
      expect(first.ocrPages).toEqual([2, 3]);
      expect(textOf(next)).toMatch(/orchard lantern guides the harbour ships/i);
      expect(next.ocrPages).toEqual([1]);
      // The kept engine reads a file exactly as a fresh one did.
      expect(textOf(again)).toBe(textOf(first));
      expect(textOf(first)).toBe(textOf(await parseMixed()));
    } finally {
      await runner.close();
      fs.rmSync(folder, { recursive: true, force: true });
    }
  });

  it("reads small print in full, which a first look at 72 dpi does not pass over", async () => {
    // 12-pixel letters on a 129-dpi scan: about 7 pt on the page, 5 pixels high at 72 dpi.
    const lines = ["The harbour board met on the ninth of March to approve", "the new lighthouse lens and the granite quay repairs."];
    const document = await pdfParser.parse(input("small-print.pdf", makeScannedPdf([{ scan: lines, fontPixels: 12 }])));
    expect(document.ocrPages).toEqual([1]);
    expect(textOf(document)).toMatch(/ninth of March to approve the new lighthouse lens/);
  });

  it("leaves scanned pages unread with a warning naming the setting when OCR is off", async () => {
    const document = await pdfParser.parse(input("mixed.pdf", mixedPdf, OCR_OFF));
    expect(document.ocrPages).toBeUndefined();
    expect(document.warnings.join("\n")).toMatch(/pages 2, 3 have no text layer.*ingest\.ocr/);
  });

  it("stops OCR at the per-file time budget and says which pages were not read", async () => {
    // A deadline too close for even one page: nothing is read, and the message says why.
    const error = await chunkpadRejection(pdfParser.parse(input("scan.pdf", makeScannedPdf([{ scan: ["one"] }, { scan: ["two"] }]), OCR_ON, { deadlineMs: Date.now() + 2_000 })));
    expect(error.code).toBe("PARSE_NO_TEXT_LAYER");
    expect(error.message).toContain("OCR stopped at the per-file time limit: pages 1–2 not read; give it more time with --timeout <seconds> or ingest.perFileTimeoutSeconds");
  });

  it("reads PNG, JPEG and TIFF images, and says when a TIFF has pages it did not read", async () => {
    const lines = ["Meeting notes: the orchard budget", "is approved for next spring."];
    for (const [name, data] of [["note.png", textImagePng(lines)], ["note.jpg", textImageJpeg(lines)]] as const) {
      const document = await imageParser.parse(input(name, data));
      expect(textOf(document), name).toMatch(/orchard budget/);
      expect(document.ocrPages).toEqual([1]);
      expect(document.warnings).toEqual([]);
    }
    const tiff = textImageTiff([lines, ["second page"]]);
    expect(tiffPageCount(tiff)).toBe(2);
    const document = await imageParser.parse(input("scan.tiff", tiff));
    expect(textOf(document)).toMatch(/orchard budget/);
    expect(document.warnings).toEqual(["only the first page of this multi-page TIFF was OCRed; 1 more page was not read"]);
  });

  it("reports an image without text (a picture from the corpus) and an image with OCR off", async () => {
    const picture = await chunkpadRejection(imageParser.parse(input("tiny-picture.png", corpusBytes("mammoth.js/tiny-picture.png"))));
    expect(picture.code).toBe("PARSE_NO_TEXT_LAYER");
    expect(picture.message).toContain("OCR found no legible text");
    const off = await chunkpadRejection(imageParser.parse(input("note.png", textImagePng(["hello"]), OCR_OFF)));
    expect(failureNextSteps(off.code, off.message)).toEqual([{ action: "change-setting", key: "ingest.ocr", value: "auto" }]);
  });
});

describe("describePageRuns", () => {
  it("collapses consecutive pages into ranges", () => {
    expect(describePageRuns([4])).toBe("page 4");
    expect(describePageRuns([1, 2, 3, 7, 9, 10])).toBe("pages 1–3, 7, 9–10");
  });
});
