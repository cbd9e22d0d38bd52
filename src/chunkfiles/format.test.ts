import fc from "fast-check";
import { describe, expect, it } from "vitest";
import type { ChunkDraft, ChunkMeta } from "../core/types.js";
import { normalizeChunkContent, parseChunkFile, readChunkFileText, renderChunkFile } from "./format.js";

describe("renderChunkFile", () => {
  it("writes numbered sections with a metadata comment and a header line", () => {
    const text = renderChunkFile(
      [
        { content: "First chunk.", meta: { page: 3, charStart: 0, charEnd: 12, section: "Intro" } },
        { content: "Second\n\nchunk.", meta: { page: 3, pageEnd: 4, slide: 2, sheet: "Q1", charStart: 10, charEnd: 25 } },
        { content: "No metadata.", meta: {} },
      ],
      { source: "docs/report.pdf" },
    );
    expect(text).toBe(
      [
        '<!-- chunkpad source="docs/report.pdf" -->',
        "",
        "## Chunk 1",
        '<!-- page=3 chars=0-12 section="Intro" -->',
        "First chunk.",
        "",
        "## Chunk 2",
        '<!-- pages=3-4 slide=2 sheet="Q1" chars=10-25 -->',
        "Second",
        "",
        "chunk.",
        "",
        "## Chunk 3",
        "No metadata.",
        "",
      ].join("\n"),
    );
  });

  it('escapes content lines that would read as "## Chunk" headings', () => {
    const content = "## Chunk 7\n\\## Chunk\n\\\\## chunk 2\n### Chunk stays\n## Chunking stays";
    const text = renderChunkFile([{ content, meta: {} }]);
    expect(text.split("\n").slice(1, 6)).toEqual(["\\## Chunk 7", "\\\\## Chunk", "\\\\\\## chunk 2", "### Chunk stays", "\\## Chunking stays"]);
    expect(parseChunkFile(text)).toEqual([{ content, meta: {} }]);
  });

  it('keeps a section containing quotes and "-->" inside the comment', () => {
    const section = 'He said "stop" --> then <!-- left\\';
    const text = renderChunkFile([{ content: "x", meta: { section, sheet: "a-->b" } }]);
    const commentLine = text.split("\n")[1]!;
    expect(commentLine.indexOf("-->")).toBe(commentLine.length - 3);
    expect(parseChunkFile(text)).toEqual([{ content: "x", meta: { section, sheet: "a-->b" } }]);
  });

  it("does not take a chunk's own leading comment for metadata", () => {
    const chunks: ChunkDraft[] = [{ content: "<!-- page=9 -->\ntext", meta: {} }, { content: "<!-- note -->", meta: { page: 1 } }];
    expect(parseChunkFile(renderChunkFile(chunks))).toEqual(chunks);
  });
});

describe("readChunkFileText", () => {
  it("reads the header, and files without one", () => {
    const withHeader = readChunkFileText('<!-- chunkpad source="a \\"b\\".txt" -->\n\n## Chunk 1\nhello\n');
    expect(withHeader).toEqual({ source: 'a "b".txt', chunks: [{ content: "hello", meta: {} }], warnings: [] });
    expect(readChunkFileText("## Chunk 1\nhello\n")).toEqual({ chunks: [{ content: "hello", meta: {} }], warnings: [] });
  });

  it("accepts CRLF line endings and a byte order mark", () => {
    const text = '\uFEFF## Chunk 1\r\n<!-- page=2 -->\r\nline one\r\nline two\r\n\r\n## Chunk 2\r\nnext\r\n';
    expect(parseChunkFile(text)).toEqual([
      { content: "line one\nline two", meta: { page: 2 } },
      { content: "next", meta: {} },
    ]);
  });

  it("keeps text written before the first heading, and says so", () => {
    const result = readChunkFileText("My notes about this file.\n\n## Chunk 1\nfirst\n\n## Chunk 2\nsecond\n");
    expect(result.chunks.map((chunk) => chunk.content)).toEqual(["My notes about this file.\n\nfirst", "second"]);
    expect(result.warnings).toHaveLength(1);
    const noHeadings = readChunkFileText("Just some text\nI pasted.\n");
    expect(noHeadings.chunks).toEqual([{ content: "Just some text\nI pasted.", meta: {} }]);
    expect(noHeadings.warnings).toHaveLength(1);
  });

  it("renumbers chunks by position after a hand edit split a chunk", () => {
    const text = "## Chunk 1\na\n\n## Chunk 3\nb, first half\n\n## Chunk 3\nb, second half\n\n## Chunk 2\nc\n\n## Chunk\nd\n";
    const result = readChunkFileText(text);
    expect(result.chunks.map((chunk) => chunk.content)).toEqual(["a", "b, first half", "b, second half", "c", "d"]);
    expect(result.warnings.join(" ")).toMatch(/numbered by their position/);
    expect(renderChunkFile(result.chunks)).toContain("## Chunk 5\nd");
  });

  it("leaves out chunks emptied by hand, ignores unknown metadata keys and bad values", () => {
    const text = '## Chunk 1\n<!-- page=x future=1 section="S" -->\nkept\n\n## Chunk 2\n\n   \n## Chunk 3\nalso kept\n';
    const result = readChunkFileText(text);
    expect(result.chunks).toEqual([{ content: "kept", meta: { section: "S" } }, { content: "also kept", meta: {} }]);
    expect(result.warnings.join(" ")).toMatch(/1 empty chunk section was left out/);
  });

  it("treats a comment that is not key=value metadata as content", () => {
    expect(readChunkFileText("## Chunk 1\n<!-- TODO: check this -->\nbody\n")).toEqual({ chunks: [{ content: "<!-- TODO: check this -->\nbody", meta: {} }], warnings: [] });
  });

  it("keeps a metadata comment broken by hand as text, and says so", () => {
    const unclosed = readChunkFileText('## Chunk 1\n<!-- page=3 section="Intro\nbody\n');
    expect(unclosed.chunks).toEqual([{ content: '<!-- page=3 section="Intro\nbody', meta: {} }]);
    expect(unclosed.warnings).toEqual(['The metadata comment under "## Chunk 1" could not be read (it is not closed with -->); it was kept as text of the chunk.']);
    const malformed = readChunkFileText('## Chunk 2\n<!-- page=3 section="Intro -->\nbody\n');
    expect(malformed.warnings.join(" ")).toMatch(/under "## Chunk 2" could not be read \(a value is malformed\)/);
  });
});

const contentLine = fc.oneof(
  fc.constantFrom("## Chunk 7", "\\## Chunk", "\\\\## Chunk 1", "## chunk", "<!--", "-->", "<!-- page=3 -->", "", "  ", "trailing  ", "\t", "# title"),
  fc.string({ unit: "grapheme", maxLength: 30 }),
  fc.string({ maxLength: 30 }),
);

const content = fc
  .array(contentLine, { minLength: 1, maxLength: 8 })
  .map((lines) => normalizeChunkContent(lines.join("\n")))
  .filter((text) => text.length > 0);

const text = fc.oneof(fc.string({ unit: "grapheme", maxLength: 20 }), fc.constantFrom('say "hi" -->', "<!-- x -->", "a\nb", "\u2028", "\\"));
const count = fc.nat({ max: 100_000 });

const meta: fc.Arbitrary<ChunkMeta> = fc.record(
  { page: count, pageEnd: count, slide: count, sheet: text, charStart: count, charEnd: count, section: text },
  { requiredKeys: [] },
).map((record) => ({ ...record }));

describe("chunk file round trip", () => {
  it("parseChunkFile(renderChunkFile(chunks)) gives back the chunks", () => {
    fc.assert(
      fc.property(fc.array(fc.record({ content, meta }).map((chunk) => ({ ...chunk })), { maxLength: 6 }), fc.option(text.map((source) => ({ source })), { nil: undefined }), (chunks, header) => {
        const rendered = renderChunkFile(chunks, header);
        const result = readChunkFileText(rendered);
        expect(result.chunks).toStrictEqual(chunks);
        expect(result.warnings).toEqual([]);
        expect(result.source).toBe(header?.source);
        // CRLF line endings (an editor on Windows) read the same, except content's own "\r".
        if (!rendered.includes("\r")) expect(parseChunkFile(rendered.replace(/\n/g, "\r\n"))).toStrictEqual(chunks);
      }),
      { numRuns: 300 },
    );
  });

  it("content normalisation is what a round trip does to any content", () => {
    fc.assert(
      fc.property(fc.string({ maxLength: 60 }), (raw) => {
        const expected = normalizeChunkContent(raw);
        const parsed = parseChunkFile(renderChunkFile([{ content: raw, meta: { page: 1 } }]));
        expect(parsed).toStrictEqual(expected.length > 0 ? [{ content: expected, meta: { page: 1 } }] : []);
      }),
      { numRuns: 300 },
    );
  });
});
