import fc from "fast-check";
import { describe, expect, it } from "vitest";
import type { ParsedBlock } from "../core/types.js";
import { assembleText } from "./assemble.js";
import { chunkDocument } from "./chunker.js";
import { countTokens } from "./tokens.js";

const word = fc.oneof(
  { weight: 12, arbitrary: fc.constantFrom("the", "river", "ledger", "lantern", "copper", "harbor", "42", "e.g.", "U.S.", "don't") },
  { weight: 3, arbitrary: fc.constantFrom("end.", "why?", "stop!", "(aside)", "“quoted.”", "a|b", "-", "—") },
  { weight: 2, arbitrary: fc.constantFrom("東京の図書館", "です。", "漢字かな交じり文", "😀", "👨‍👩‍👧") },
  { weight: 1, arbitrary: fc.constantFrom("\n", "\n\n", "  ") },
  { weight: 1, arbitrary: fc.string({ unit: fc.constantFrom("a", "b", "Z", "9", "/", "="), minLength: 20, maxLength: 400 }) },
);

const block: fc.Arbitrary<ParsedBlock> = fc
  .record({
    kind: fc.constantFrom<ParsedBlock["kind"]>("paragraph", "paragraph", "paragraph", "heading", "list", "table", "code", "quote"),
    words: fc.array(word, { minLength: 0, maxLength: 120 }),
    level: fc.integer({ min: 1, max: 6 }),
    page: fc.option(fc.integer({ min: 1, max: 50 }), { nil: undefined }),
    withHeader: fc.boolean(),
  })
  .map(({ kind, words, level, page, withHeader }) => {
    const result: ParsedBlock = { kind, text: words.join(" ") };
    if (kind === "heading") result.level = level;
    // A table's first line as its header, as the spreadsheet and markdown-table parsers give it.
    const firstLine = result.text.trim().split("\n")[0]?.trim();
    if (kind === "table" && withHeader && firstLine) result.header = firstLine;
    if (page !== undefined) result.page = page;
    return result;
  });

const options = fc
  .integer({ min: 32, max: 160 })
  .chain((size) => fc.record({ chunkSizeTokens: fc.constant(size), chunkOverlapTokens: fc.integer({ min: 0, max: size - 1 }) }));

const squash = (text: string): string => text.replace(/\s+/g, "");

describe("chunkDocument properties", () => {
  it("keeps chunks within the limit, with offsets in order, covering every word in order", () => {
    fc.assert(
      fc.property(fc.array(block, { maxLength: 25 }), options, (blocks, chunking) => {
        const document = { blocks, warnings: [] };
        const { text, spans } = assembleText(document);
        const chunks = chunkDocument(document, chunking);
        // A chunk that starts inside a table with a header begins with that header line.
        const withoutHeader = (content: string, charStart: number): string => {
          const header = [...spans].reverse().find((span) => span.start <= charStart)?.block.header;
          return header && content.startsWith(`${header}\n`) && !text.startsWith(content, charStart) ? content.slice(header.length + 1) : content;
        };

        let previousStart = -1;
        let previousEnd = 0;
        let covered = "";
        for (const chunk of chunks) {
          const { charStart = -1, charEnd = -1 } = chunk.meta;
          expect(countTokens(chunk.content)).toBeLessThanOrEqual(chunking.chunkSizeTokens);
          expect(chunk.content.length).toBeGreaterThan(0);
          expect(chunk.content).toBe(chunk.content.trim());
          expect(text.slice(charStart, charEnd)).toBe(withoutHeader(chunk.content, charStart));
          expect(charStart).toBeGreaterThan(previousStart);
          expect(charEnd).toBeGreaterThan(previousEnd);
          expect(charEnd).toBeLessThanOrEqual(text.length);
          // Nothing but whitespace between one chunk's end and the next chunk's start.
          if (charStart > previousEnd) expect(text.slice(previousEnd, charStart).trim()).toBe("");
          // Overlap starts at a word, never between two ASCII letters or digits.
          if (charStart < previousEnd) expect(/[A-Za-z0-9]/.test(text[charStart - 1] ?? "") && /[A-Za-z0-9]/.test(text[charStart] ?? "")).toBe(false);
          covered += text.slice(Math.max(charStart, previousEnd), charEnd);
          previousStart = charStart;
          previousEnd = charEnd;
        }
        expect(text.slice(previousEnd).trim()).toBe("");
        expect(squash(covered)).toBe(squash(text));
      }),
      { numRuns: 150 },
    );
  });

  it("gives each chunk pages that bound its blocks' pages", () => {
    fc.assert(
      fc.property(fc.array(block, { maxLength: 15 }), options, (blocks, chunking) => {
        const document = { blocks, warnings: [] };
        const { spans } = assembleText(document);
        for (const chunk of chunkDocument(document, chunking)) {
          const pages = spans
            .filter((span) => span.end > chunk.meta.charStart! && span.start < chunk.meta.charEnd!)
            .flatMap((span) => (span.block.page === undefined ? [] : [span.block.page]));
          expect(chunk.meta.page).toBe(pages[0]);
          const highest = pages.length > 0 ? Math.max(...pages) : undefined;
          expect(chunk.meta.pageEnd).toBe(highest !== undefined && highest > pages[0]! ? highest : undefined);
        }
      }),
      { numRuns: 100 },
    );
  });
});
