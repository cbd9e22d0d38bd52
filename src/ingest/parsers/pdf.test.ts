import { readFileSync } from "node:fs";
import { resolve } from "node:path";
import { runInNewContext } from "node:vm";
import { describe, expect, it } from "vitest";
import { failureNextSteps } from "../../core/next-step.js";
import { chunkpadRejection } from "../../../test/helpers/rejection.js";
import { DEFAULT_PARSE_LIMITS, type ParseInput } from "../../core/types.js";
import { pdfParser } from "./pdf.js";

const PDF_DIRECTORY = resolve("../shared/corpus/pdf.js/pdfs");

function input(name: string, extra: Partial<ParseInput> = {}): ParseInput {
  return { path: `${PDF_DIRECTORY}/${name}`, data: readFileSync(`${PDF_DIRECTORY}/${name}`), limits: DEFAULT_PARSE_LIMITS, ...extra };
}

describe("pdfParser", () => {
  it("reads a paper: title, a level-1 heading, paragraphs in reading order with pages", async () => {
    const document = await pdfParser.parse(input("tracemonkey.pdf"));
    expect(document.pageCount).toBe(14);
    expect(document.title).toBe("Trace-based Just-in-Time Type Specialization for Dynamic Languages");
    expect(document.blocks[0]).toEqual({
      kind: "heading",
      level: 1,
      page: 1,
      text: "Trace-based Just-in-Time Type Specialization for Dynamic Languages",
    });
    const abstract = document.blocks.findIndex((block) => block.text.startsWith("Dynamic languages such as JavaScript are more difficult"));
    const introduction = document.blocks.findIndex((block) => block.text.startsWith("Dynamic languages such as JavaScript, Python, and Ruby"));
    expect(abstract).toBeGreaterThan(0);
    expect(introduction).toBeGreaterThan(abstract);
    // Lines of a paragraph are joined into one block, not one block per line.
    expect(document.blocks[abstract]?.text).toContain("that identifies frequently executed loop traces at run-time and then generates machine code");
    expect(document.warnings).toEqual([]);
  });

  it("leaves the thread's built-ins to the other parsers: pdf.js's bundled core-js does not replace push or JSON", async () => {
    // Its Array.prototype.push, run in JavaScript, made every parser in a parse worker slower once a PDF had been read.
    await pdfParser.parse(input("tracemonkey.pdf"));
    // Another realm's toString tells a built-in from a polyfill (core-js also replaces this realm's).
    const sourceOf = runInNewContext("Function.prototype.toString") as (this: unknown) => string;
    for (const builtIn of [Array.prototype.push, JSON.parse, JSON.stringify, Function.prototype.toString]) {
      expect(sourceOf.call(builtIn)).toMatch(/^function \w+\(\) \{ \[native code\] \}$/);
    }
  });

  it("extracts CJK text through the bundled CMaps", async () => {
    const document = await pdfParser.parse(input("issue16538.pdf"));
    expect(document.blocks.map((block) => block.text).join("")).toContain("リスク中立確率");
  });

  it("leaves the caller's bytes intact (pdf.js would detach them) and accepts a Buffer", async () => {
    const data = readFileSync(`${PDF_DIRECTORY}/franz.pdf`);
    const before = data.byteLength;
    const first = await pdfParser.parse({ path: "franz.pdf", data, limits: DEFAULT_PARSE_LIMITS });
    const second = await pdfParser.parse({ path: "franz.pdf", data, limits: DEFAULT_PARSE_LIMITS });
    expect(data.byteLength).toBe(before);
    expect(second.blocks).toEqual(first.blocks);
  });

  it("asks for a password when a PDF is encrypted, and says how to give it", async () => {
    const error = await chunkpadRejection(pdfParser.parse(input("issue6010_1.pdf")));
    expect(error.code).toBe("PARSE_ENCRYPTED");
    expect(error.message).toContain("encrypted: password required");
    expect(failureNextSteps(error.code, error.message)).toEqual([{ action: "give-password" }]);
  });

  it("opens an encrypted PDF with its password and refuses a wrong one", async () => {
    const document = await pdfParser.parse(input("issue6010_1.pdf", { password: "abc" }));
    expect(document.blocks.map((block) => block.text)).toEqual(["Issue 6010"]);
    const error = await chunkpadRejection(pdfParser.parse(input("issue6010_1.pdf", { password: "abd" })));
    expect(error.code).toBe("PARSE_WRONG_PASSWORD");
  });

  it("opens a PDF encrypted with an empty user password without asking", async () => {
    const document = await pdfParser.parse(input("issue9972-1.pdf"));
    expect(document.blocks.length).toBeGreaterThan(0);
  });

  it("reports a scanned PDF as having no text layer when OCR is off, naming the setting", async () => {
    const error = await chunkpadRejection(pdfParser.parse(input("issue7200.pdf")));
    expect(error.code).toBe("PARSE_NO_TEXT_LAYER");
    expect(error.message).toContain("turn it on (ingest.ocr auto)");
  });

  it("reports a PDF of blank pages as empty, and a 0-byte file too", async () => {
    expect((await chunkpadRejection(pdfParser.parse(input("empty.pdf")))).code).toBe("PARSE_EMPTY");
    const zero = await chunkpadRejection(pdfParser.parse({ path: "zero.pdf", data: new Uint8Array(), limits: DEFAULT_PARSE_LIMITS }));
    expect(zero.code).toBe("PARSE_EMPTY");
  });

  it("says a blank one-page PDF has no text on its only page, not on 1 pages", async () => {
    const error = await chunkpadRejection(pdfParser.parse(input("bug1782186.pdf", { password: "Hello" })));
    expect(error.code).toBe("PARSE_EMPTY");
    expect(error.message).toMatch(/^no text on its only page/);
  });

  it("reports bytes that are not a PDF as malformed", async () => {
    const data = new TextEncoder().encode("this is a text file that was renamed to .pdf\n".repeat(20));
    const error = await chunkpadRejection(pdfParser.parse({ path: "renamed.pdf", data, limits: DEFAULT_PARSE_LIMITS }));
    expect(error.code).toBe("PARSE_MALFORMED");
    expect(error.message).toContain("re-export or re-download");
  });

  it("reports a truncated PDF as malformed", async () => {
    const whole = readFileSync(`${PDF_DIRECTORY}/tracemonkey.pdf`);
    const error = await chunkpadRejection(pdfParser.parse({ path: "cut.pdf", data: whole.subarray(0, 400), limits: DEFAULT_PARSE_LIMITS }));
    expect(["PARSE_MALFORMED", "PARSE_EMPTY"]).toContain(error.code);
  });

  it("goes on past pages that fail to read, and says which", async () => {
    const document = await pdfParser.parse(input("poppler-90-0-fuzzed.pdf"));
    expect(document.pageCount).toBe(16);
    expect(document.warnings).toContainEqual(expect.stringMatching(/^pages 12, 16 could not be read \(.+\); their text is missing$/));
    expect(document.blocks.some((block) => block.page === 14)).toBe(true);
  });

  it("warns about pages without text in a document that has text", async () => {
    const document = await pdfParser.parse(input("vertical.pdf"));
    expect(document.warnings).toEqual([expect.stringContaining("pages 2, 3 have no text layer")]);
  });

  it("stops with PARSE_TIMEOUT when the time limit's signal fires", async () => {
    const signal = AbortSignal.abort(new DOMException("time limit", "TimeoutError"));
    const error = await chunkpadRejection(pdfParser.parse(input("tracemonkey.pdf", { signal })));
    expect(error.code).toBe("PARSE_TIMEOUT");
  });

  it("stops with CANCELLED when aborted while reading", async () => {
    const controller = new AbortController();
    const parsing = pdfParser.parse(input("freeculture.pdf", { signal: controller.signal }));
    controller.abort();
    const error = await chunkpadRejection(parsing);
    expect(error.code).toBe("CANCELLED");
  });
});
