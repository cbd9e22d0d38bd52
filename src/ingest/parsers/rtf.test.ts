import * as fs from "node:fs";
import * as path from "node:path";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { rejectionOf } from "../../../test/helpers/rejection.js";
import { isChunkpadError } from "../../core/errors.js";
import { DEFAULT_PARSE_LIMITS, type ParsedDocument } from "../../core/types.js";
import { rtfParser } from "./rtf.js";
import { nativeWords } from "../../../test/helpers/pandoc-native.js";

const PANDOC_RTF = path.resolve("../shared/corpus/pandoc/rtf");

function parse(source: string | Uint8Array, signal?: AbortSignal): Promise<ParsedDocument> {
  const data = typeof source === "string" ? new Uint8Array(Buffer.from(source, "latin1")) : source;
  return rtfParser.parse({ path: "/documents/sample.rtf", data, limits: DEFAULT_PARSE_LIMITS, signal });
}

async function textOf(source: string | Uint8Array): Promise<string> {
  return (await parse(source)).blocks.map((block) => block.text).join("\n");
}

function parseError(source: string | Uint8Array, signal?: AbortSignal): Promise<unknown> {
  return rejectionOf(parse(source, signal));
}


describe("rtfParser on pandoc's RTF reader tests", () => {
  const files = fs.readdirSync(PANDOC_RTF).filter((name) => name.endsWith(".rtf") && name !== "image.rtf");

  it.each(files)("%s has the words of its .native tree", async (name) => {
    const words = nativeWords(fs.readFileSync(path.join(PANDOC_RTF, name.replace(/\.rtf$/, ".native")), "utf8"), { bodyOnly: true });
    const text = (await textOf(new Uint8Array(fs.readFileSync(path.join(PANDOC_RTF, name))))).toLowerCase();
    const missing = words.filter((word) => !text.includes(word.toLowerCase()));
    expect(words.length).toBeGreaterThan(0);
    expect(missing, `missing from ${name}`).toEqual([]);
  });

  it("decodes \\'hh accents once, without doubling them", async () => {
    expect(await textOf(new Uint8Array(fs.readFileSync(path.join(PANDOC_RTF, "accent.rtf"))))).toBe("le café où on ne fume pas");
  });

  it("reads \\uN with its \\ucN fallback skipped, negative N included", async () => {
    const text = await textOf(new Uint8Array(fs.readFileSync(path.join(PANDOC_RTF, "unicode.rtf"))));
    expect(text).toBe("\u201chi\u201d\u2018hi\u2019\uf0b7\u03b1\u00e4");
  });

  it("turns Word's heading styles into heading blocks", async () => {
    const document = await parse(new Uint8Array(fs.readFileSync(path.join(PANDOC_RTF, "heading.rtf"))));
    expect(document.blocks).toEqual([
      { kind: "heading", level: 1, text: "Heading 1" },
      { kind: "heading", level: 2, text: "Heading 2" },
      { kind: "heading", level: 3, text: "Heading 3" },
      { kind: "paragraph", text: "Paragraph" },
    ]);
    expect(document.title).toBe("Heading 1");
  });

  it("renders table rows as 'a | b' lines", async () => {
    const document = await parse(new Uint8Array(fs.readFileSync(path.join(PANDOC_RTF, "table_simple.rtf"))));
    expect(document.blocks).toEqual([{ kind: "table", text: "A | B | C | D\nE | F | G | H" }]);
  });

  it("flattens nested tables into their outer cell and keeps text after the table", async () => {
    const document = await parse(new Uint8Array(fs.readFileSync(path.join(PANDOC_RTF, "table_nested.rtf"))));
    expect(document.blocks).toEqual([
      { kind: "table", text: "Level two before Deep A; Deep B Deep C; Deep D Level two after Outer after" },
      { kind: "paragraph", text: "Outside table" },
    ]);
  });

  it("puts footnotes after the body instead of inside its sentences", async () => {
    const document = await parse(new Uint8Array(fs.readFileSync(path.join(PANDOC_RTF, "footnote.rtf"))));
    expect(document.blocks.map((block) => block.text)).toEqual([
      "Mead's landmark study has been amply annotated. It was her work in America during the Second World War, however, that forms the basis for the paper. As others have noted, this period was a turning point for Margaret Mead.",
      "See Sahlins, Bateson, and Geertz for a complete bibliography.",
      "A complete bibliography will be found at the end of this chapter.",
    ]);
  });

  it("takes the title from \\info and groups list items", async () => {
    const document = await parse(new Uint8Array(fs.readFileSync(path.join(PANDOC_RTF, "list_complex.rtf"))));
    expect(document.title).toBe("Text before list");
    expect(document.blocks[0]).toEqual({
      kind: "list",
      text: expect.stringMatching(/^- One\n- Two\n {2}- Three\n {2}- Four\n {4}- Five/) as unknown as string,
    });
    expect(document.blocks.some((block) => block.text === "Out of list!" && block.kind === "paragraph")).toBe(true);
  });

  it("reads pandoc's writer output with headings at every level and its tables", async () => {
    const writer = await parse(new Uint8Array(fs.readFileSync(path.resolve("../shared/corpus/pandoc/writer.rtf"))));
    const headings = writer.blocks.filter((block) => block.kind === "heading").map((block) => `${block.level} ${block.text}`);
    expect(headings.slice(0, 5)).toEqual(["1 Headers", "2 Level 2 with an embedded link", "3 Level 3 with emphasis", "4 Level 4", "5 Level 5"]);
    const tables = await parse(new Uint8Array(fs.readFileSync(path.resolve("../shared/corpus/pandoc/tables.rtf"))));
    expect(tables.blocks[1]).toEqual({ kind: "table", text: "Right | Left | Center | Default\n12 | 12 | 12 | 12\n123 | 123 | 123 | 123\n1 | 1 | 1 | 1" });
  });

  it("reports an RTF holding only a picture as empty", async () => {
    const error = await parseError(new Uint8Array(fs.readFileSync(path.join(PANDOC_RTF, "image.rtf"))));
    expect(isChunkpadError(error, "PARSE_EMPTY")).toBe(true);
  });
});

describe("rtfParser character decoding", () => {
  it("reads \\'hh in the declared single-byte code page", async () => {
    expect(await textOf(String.raw`{\rtf1\ansi\ansicpg1251 \'cf\'f0\'e8\'e2\'e5\'f2}`)).toBe("Привет");
    expect(await textOf(String.raw`{\rtf1\ansi \'93quoted\'94 \'80}`)).toBe("\u201cquoted\u201d \u20ac");
  });

  it("joins \\'hh pairs into one character in double-byte code pages", async () => {
    expect(await textOf(String.raw`{\rtf1\ansi\ansicpg932 \'93\'fa\'96\'7b\'8c\'ea}`)).toBe("日本語");
    expect(await textOf(String.raw`{\rtf1\ansi\ansicpg936 \'d6\'d0\'ce\'c4}`)).toBe("中文");
    // a trail byte in the printable ASCII range may be written literally
    expect(await textOf(String.raw`{\rtf1\ansi\ansicpg932 \'83A\'83C OK}`)).toBe("アイ OK");
  });

  it("reads UTF-8 code page 65001 and warns about code pages it does not know", async () => {
    expect(await textOf(String.raw`{\rtf1\ansi\ansicpg65001 \'e6\'97\'a5\'e6\'9c\'ac}`)).toBe("日本");
    const unknown = await parse(String.raw`{\rtf1\ansi\ansicpg99999 caf\'e9}`);
    expect(unknown.blocks).toEqual([{ kind: "paragraph", text: "café" }]);
    expect(unknown.warnings).toEqual(["unknown code page 99999; 8-bit characters were read as Western (1252)"]);
  });

  it("uses a font's charset when it differs from the document's code page", async () => {
    const rtf = String.raw`{\rtf1\ansi\ansicpg1252\deff0{\fonttbl{\f0\fcharset0 Arial;}{\f1\fcharset204 Arial Cyr;}{\f2\fcharset128 MS Mincho;}}` +
      String.raw`\pard caf\'e9 {\f1 \'cf\'f0\'e8\'e2\'e5\'f2} {\f2 \'82\'a0}\par}`;
    expect(await textOf(rtf)).toBe("café Привет あ");
  });

  it("reads raw 8-bit bytes in the code page too", async () => {
    const bytes = new Uint8Array([...Buffer.from(String.raw`{\rtf1\ansi\ansicpg1250 `, "latin1"), 0x9a, 0xe8, 0x7d]);
    expect(await textOf(bytes)).toBe("šč");
  });

  it("skips \\uc fallbacks of every shape: characters, \\'hh, and counts from \\ucN", async () => {
    expect(await textOf(String.raw`{\rtf1\ansi \u8364?\u8364\'80{\uc2\u1488\'e0\'e0}{\uc0\u1489}x}`)).toBe("€€אבx");
    // a surrogate pair written as two \u words
    expect(await textOf(String.raw`{\rtf1\ansi \u-10179?\u-8704?}`)).toBe("😀");
  });

  it("honours \\~ \\- \\_ and the escaped braces and backslash", async () => {
    expect(await textOf(String.raw`{\rtf1 a\~b co\-operate non\_breaking \{x\} back\\slash}`)).toBe("a\u00a0b cooperate non\u2011breaking {x} back\\slash");
  });

  it("keeps \\line as a line break and \\tab as a tab inside a paragraph", async () => {
    const document = await parse(String.raw`{\rtf1 first\line second\tab third\par next\par}`);
    expect(document.blocks).toEqual([
      { kind: "paragraph", text: "first\nsecond\tthird" },
      { kind: "paragraph", text: "next" },
    ]);
  });

  it("reads control words for typographic characters", async () => {
    expect(await textOf(String.raw`{\rtf1 \ldblquote a\rdblquote\emdash b\endash c\bullet}`)).toBe("\u201ca\u201d\u2014b\u2013c\u2022");
  });
});

describe("rtfParser structure", () => {
  it("skips font, colour and style tables, info, pictures, headers, footers and field codes", async () => {
    const rtf = [
      String.raw`{\rtf1\ansi{\fonttbl{\f0 Times New Roman;}}{\colortbl;\red255\green0\blue0;}`,
      String.raw`{\stylesheet{\s0 Normal;}}{\info{\author Jane Roe}{\title The Report}{\company ACME}}`,
      String.raw`{\header HEADER TEXT\par}{\footer FOOTER TEXT\par}{\*\generator Writer 1.0;}{\*\madeup unknown text}`,
      String.raw`{\pict\pngblip 89504e470d0a1a0a}{\*\bkmkstart mark}`,
      String.raw`Body {\field{\*\fldinst HYPERLINK "http://example.com"}{\fldrslt visible link}} end.\par`,
      String.raw`{\object{\*\objdata 0102}{\result object result}}\par}`,
    ].join("\n");
    const document = await parse(rtf);
    expect(document.title).toBe("The Report");
    expect(document.blocks.map((block) => block.text)).toEqual(["Body visible link end.", "object result"]);
  });

  it("skips \\bin payloads even when they hold braces", async () => {
    expect(await textOf(String.raw`{\rtf1 before {\*\blob\bin6 }}}{{{}after\par}`)).toBe("before after");
  });

  it("drops hidden text", async () => {
    expect(await textOf(String.raw`{\rtf1 shown {\v hidden }again\v secret\v0  tail\par}`)).toBe("shown again tail");
  });

  it("makes headings from \\outlinelevelN and from stylesheet 'heading N' styles", async () => {
    const rtf = String.raw`{\rtf1{\stylesheet{\s0 Normal;}{\s2\outlinelevel1 heading 2;}{\s7 Heading 3;}{\*\cs9 heading 1 Char;}}` +
      String.raw`\pard\outlinelevel0 Chapter\par\pard\s2 Section\par\pard\s7 Subsection\par\pard\s9 Body text\par}`;
    expect((await parse(rtf)).blocks).toEqual([
      { kind: "heading", level: 1, text: "Chapter" },
      { kind: "heading", level: 2, text: "Section" },
      { kind: "heading", level: 3, text: "Subsection" },
      { kind: "paragraph", text: "Body text" },
    ]);
  });

  it("ends a table at the first paragraph outside it", async () => {
    const rtf = String.raw`{\rtf1 Intro\par\trowd\cellx1000\cellx2000\pard\intbl Name\cell Value\cell\row` +
      String.raw`\trowd\pard\intbl a{\par}b\cell c\cell\row\pard After\par}`;
    expect((await parse(rtf)).blocks).toEqual([
      { kind: "paragraph", text: "Intro" },
      { kind: "table", text: "Name | Value\na b | c" },
      { kind: "paragraph", text: "After" },
    ]);
  });

  it("reads a document with a hundred thousand nested groups without overflowing the stack", async () => {
    const depth = 100_000;
    const document = await parse(`{\\rtf1 start ${"{".repeat(depth)}deep${"}".repeat(depth)} end\\par}`);
    expect(document.blocks.map((block) => block.text)).toEqual(["start end"]);
    expect(document.warnings.join(" ")).toMatch(/nested deeper/);
  });

  it("reads a large document completely", async () => {
    const paragraph = String.raw`\pard Paragraph number N with caf\'e9 and \u8364?.\par` + "\n";
    const count = 60_000;
    const rtf = `{\\rtf1\\ansi ${Array.from({ length: count }, (_, index) => paragraph.replace("N", String(index))).join("")}}`;
    expect(rtf.length).toBeGreaterThan(2 * 1024 * 1024);
    const document = await parse(rtf);
    expect(document.blocks).toHaveLength(count);
    expect(document.blocks[count - 1]?.text).toBe(`Paragraph number ${count - 1} with café and €.`);
  });

  it("stops with PARSE_TIMEOUT when the time limit has passed", async () => {
    const rtf = `{\\rtf1 ${"text ".repeat(600_000)}}`;
    const controller = new AbortController();
    controller.abort();
    expect(isChunkpadError(await parseError(rtf, controller.signal), "PARSE_TIMEOUT")).toBe(true);
  });

  it("tolerates unbalanced braces", async () => {
    expect(await textOf(String.raw`{\rtf1 unclosed {\b bold`)).toBe("unclosed bold");
    expect(await textOf(String.raw`{\rtf1 text}} trailing}`)).toBe("text trailing");
  });

  it("refuses input that is not RTF, and reports an RTF with no text as empty", async () => {
    const notRtf = await parseError("Just some plain text pretending to be RTF.");
    expect(isChunkpadError(notRtf, "PARSE_MALFORMED")).toBe(true);
    expect((notRtf as Error).message).toMatch(/not an RTF document/);
    expect(isChunkpadError(await parseError(String.raw`{\rtf1{\fonttbl{\f0 Arial;}}\par\par}`), "PARSE_EMPTY")).toBe(true);
  });

  it("leaves the file's path out of its messages (the report already names the file)", async () => {
    const messages = [await parseError("Just some plain text pretending to be RTF."), await parseError(String.raw`{\rtf1\par}`)].map((error) => (error as Error).message);
    for (const message of messages) expect(message).not.toMatch(/\.rtf\b/);
  });

  it("accepts a byte-order mark and leading blank lines", async () => {
    expect(await textOf(new Uint8Array([0xef, 0xbb, 0xbf, ...Buffer.from("\r\n{\\rtf1 hello}", "latin1")]))).toBe("hello");
  });

  it("never crashes on arbitrary mixes of RTF syntax: it reads text or reports the file empty", async () => {
    const piece = fc.constantFrom(
      "{", "}", "\\par ", "\\u-3913?", "\\u8364 ", "\\'e9", "\\'8", "\\uc2 ", "\\uc0 ", "\\*\\foo ", "\\bin3 ", "\\bin99999 ",
      "\\cell ", "\\row ", "\\nestcell ", "\\nestrow ", "{\\fonttbl", "{\\stylesheet", "{\\info", "{\\title ", "{\\footnote ",
      "\\s1 ", "\\intbl ", "\\ls1 ", "\\ansicpg932 ", "\\ansicpg65001 ", "\\f1 ", "\\v ", "text", " ", "\\", "\\~", "\u00e9", "\u6587",
    );
    await fc.assert(
      fc.asyncProperty(fc.array(piece, { maxLength: 200 }), async (pieces) => {
        const data = new Uint8Array(Buffer.from(`{\\rtf1 ${pieces.join("")}`, "utf8"));
        const result = await parse(data).then(
          (document) => document.blocks.every((block) => block.text.trim() !== ""),
          (error: unknown) => isChunkpadError(error, "PARSE_EMPTY"),
        );
        expect(result).toBe(true);
      }),
      { numRuns: 300 },
    );
  });

  it("never hangs or crashes on random bytes after the header", async () => {
    await fc.assert(
      fc.asyncProperty(fc.uint8Array({ maxLength: 2_000 }), async (bytes) => {
        const data = new Uint8Array([...Buffer.from("{\\rtf1\\ansicpg932 ", "latin1"), ...bytes]);
        const result = await parse(data).then(
          () => true,
          (error: unknown) => isChunkpadError(error, "PARSE_EMPTY"),
        );
        expect(result).toBe(true);
      }),
      { numRuns: 300 },
    );
  });
});
