import fs from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { buildEml, buildMsg, mailFixture } from "../../../test/helpers/documents.js";
import { isChunkpadError } from "../../core/errors.js";
import { DEFAULT_PARSE_LIMITS, type ParsedDocument } from "../../core/types.js";
import { loadParserFor, supportedExtensions } from "../registry.js";
import { checkTextQuality } from "../text-quality.js";

/**
 * One suite, every parser in the registry (as the store's and the LLM clients'): a real
 * document of its format gives text in blocks with sane pages; no bytes at all give a PARSE_*
 * error that says what is wrong, never an exception of the library underneath; random bytes are
 * refused by the parser or by the text checks that run after every parser.
 * A format added to the registry without a sample here fails "has a sample for every format".
 */

const CORPUS = path.resolve("../shared/corpus");
const corpus = (relative: string) => (): Uint8Array => fs.readFileSync(path.join(CORPUS, relative));
const text = (value: string) => (): Uint8Array => new TextEncoder().encode(value);
const mail = mailFixture({ subject: "Heron survey", body: "The heron waits by the river at dawn.", attachments: [] });

/** One small real document per parser, by the parser's first extension. */
const SAMPLES: Record<string, () => Uint8Array> = {
  ".pdf": corpus("pdf.js/pdfs/tracemonkey.pdf"),
  ".docx": corpus("mammoth.js/comments.docx"),
  ".doc": corpus("msoffcrypto-tool/outputs/rc4cryptoapi_password_plain.doc"),
  ".odt": corpus("officeParser/files/test.odt"),
  ".rtf": corpus("pandoc/rtf/accent.rtf"),
  ".pptx": corpus("officeParser/files/test.pptx"),
  ".ppt": corpus("msoffcrypto-tool/inputs/plain.ppt"),
  ".odp": corpus("officeParser/files/test.odp"),
  ".xlsx": corpus("officeParser/files/test.xlsx"),
  ".xls": corpus("msoffcrypto-tool/inputs/plain.xls"),
  ".ods": corpus("officeParser/files/test.ods"),
  ".html": text("<html><head><title>Herons</title></head><body><h1>Herons</h1><p>The heron waits by the river at dawn.</p></body></html>"),
  ".md": text("# Herons\n\nThe heron waits by the river at dawn.\n"),
  ".txt": text("The heron waits by the river at dawn.\n"),
  ".epub": corpus("officeParser/files/test.epub"),
  ".eml": text(buildEml(mail)),
  ".msg": () => buildMsg(mail),
};
/** OCR reads images: seconds each, so the picture is in the corpus project (ocr.test.ts), not here. */
const SLOW = new Set([".png"]);

/** The same pseudo-random bytes every run. */
function randomBytes(length: number, seed = 7): Uint8Array {
  const bytes = new Uint8Array(length);
  let state = seed;
  for (let index = 0; index < length; index++) {
    state = (state * 1103515245 + 12345) >>> 0;
    bytes[index] = state >>> 24;
  }
  return bytes;
}

/** Each parser once, by the first of its extensions that the registry maps to it. */
async function parsers(): Promise<Array<{ extension: string; parse: (data: Uint8Array) => Promise<ParsedDocument> }>> {
  const seen = new Set<string>();
  const found: Array<{ extension: string; parse: (data: Uint8Array) => Promise<ParsedDocument> }> = [];
  for (const extension of supportedExtensions()) {
    const parser = await loadParserFor(`sample${extension}`);
    if (!parser || seen.has(parser.name)) continue;
    seen.add(parser.name);
    found.push({ extension, parse: (data) => parser.parse({ path: `/documents/sample${extension}`, data, limits: DEFAULT_PARSE_LIMITS, signal: AbortSignal.timeout(60_000) }) });
  }
  return found;
}

const all = await parsers();
const tested = all.filter(({ extension }) => !SLOW.has(extension));

describe("Parser conformance", () => {
  it("has a sample for every format in the registry", () => {
    expect(all.map(({ extension }) => extension).filter((extension) => !SLOW.has(extension) && SAMPLES[extension] === undefined)).toEqual([]);
  });

  it.skip.each([...SLOW])("%s (skipped here: OCR takes seconds a page; the corpus project's ocr.test.ts reads images)", () => undefined);

  describe.each(tested)("$extension", ({ extension, parse }) => {
    it("reads a real document into blocks of text with pages in range", async () => {
      const document = await parse((SAMPLES[extension] as () => Uint8Array)());
      const blocks = document.blocks.filter((block) => block.text.trim() !== "");
      expect(blocks.length).toBeGreaterThan(0);
      for (const block of document.blocks) {
        if (block.page === undefined) continue;
        expect(block.page).toBeGreaterThanOrEqual(1);
        if (document.pageCount !== undefined) expect(block.page).toBeLessThanOrEqual(document.pageCount);
      }
      expect(Array.isArray(document.warnings)).toBe(true);
    });

    it("says what is wrong with a file of no bytes, with a PARSE_ code", async () => {
      const error = await parse(new Uint8Array()).then(() => null, (failure: unknown) => failure);
      expect(isChunkpadError(error), String(error)).toBe(true);
      expect((error as { code: string }).code).toMatch(/^PARSE_/);
    });

    it("never indexes random bytes: a PARSE_ error from the parser or the text checks after it (text formats excepted)", async () => {
      const outcome = await parse(randomBytes(4096)).then(
        (document) => {
          try {
            return { document: checkTextQuality(document) };
          } catch (error) {
            return { error };
          }
        },
        (error: unknown) => ({ error }),
      );
      if ("error" in outcome) {
        expect(isChunkpadError(outcome.error), String(outcome.error)).toBe(true);
        expect((outcome.error as { code: string; message: string }).code).toMatch(/^PARSE_/);
        expect((outcome.error as { message: string }).message.length).toBeGreaterThan(10);
      } else {
        // Only formats that are text at heart may take any bytes.
        expect([".txt", ".md", ".html", ".rtf", ".eml"]).toContain(extension);
      }
    });
  });
});
