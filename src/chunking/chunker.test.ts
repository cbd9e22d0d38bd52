import fs from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { isChunkpadError } from "../core/errors.js";
import { DEFAULT_CHUNKING } from "../core/types.js";
import type { ChunkDraft, ParsedBlock, ParsedDocument } from "../core/types.js";
import { assembleText } from "./assemble.js";
import { CHUNK_TOKEN_TOLERANCE, chunkDocument } from "./chunker.js";
import { createSheetBuilder } from "../ingest/parsers/spreadsheet.js";
import { countTokens } from "./tokens.js";

const WORDS = "river stone cloud market lantern copper garden signal harbor meadow ledger violet".split(" ");

/** Deterministic pseudo-random prose: sentences of 6..20 words. */
function prose(seed: number, sentences: number): string {
  let state = seed;
  const next = (): number => (state = (state * 48271) % 2147483647);
  const out: string[] = [];
  for (let sentence = 0; sentence < sentences; sentence++) {
    const length = 6 + (next() % 15);
    const words = Array.from({ length }, () => WORDS[next() % WORDS.length]);
    out.push(`${words.join(" ")}.`);
  }
  return out.join(" ");
}

const doc = (blocks: ParsedBlock[]): ParsedDocument => ({ blocks, warnings: [] });
const limit = DEFAULT_CHUNKING.chunkSizeTokens + CHUNK_TOKEN_TOLERANCE;

function expectOffsetsPointAtContent(document: ParsedDocument, chunks: ChunkDraft[]): void {
  const { text } = assembleText(document);
  for (const chunk of chunks) {
    expect(text.slice(chunk.meta.charStart, chunk.meta.charEnd)).toBe(chunk.content);
  }
}

describe("chunkDocument", () => {
  it("rejects options that cannot work", () => {
    const document = doc([{ kind: "paragraph", text: "text" }]);
    for (const options of [
      { chunkSizeTokens: 31, chunkOverlapTokens: 0 },
      { chunkSizeTokens: 100, chunkOverlapTokens: 100 },
      { chunkSizeTokens: 100, chunkOverlapTokens: -1 },
      { chunkSizeTokens: 100.5, chunkOverlapTokens: 10 },
    ]) {
      let caught: unknown;
      try {
        chunkDocument(document, options);
      } catch (error) {
        caught = error;
      }
      expect(isChunkpadError(caught, "INVALID_ARGUMENT")).toBe(true);
    }
  });

  it("makes nothing from an empty document and one chunk from a short one", () => {
    expect(chunkDocument(doc([]), DEFAULT_CHUNKING)).toEqual([]);
    expect(chunkDocument(doc([{ kind: "paragraph", text: "   " }]), DEFAULT_CHUNKING)).toEqual([]);
    const chunks = chunkDocument(doc([{ kind: "heading", text: "Notes", level: 1 }, { kind: "paragraph", text: "  Buy milk.  " }]), DEFAULT_CHUNKING);
    expect(chunks).toEqual([{ content: "# Notes\n\nBuy milk.", meta: { charStart: 0, charEnd: 18, section: "Notes" } }]);
  });

  it("keeps every chunk of a long document within the size limit and mostly well filled", () => {
    const blocks: ParsedBlock[] = [];
    for (let index = 0; index < 120; index++) blocks.push({ kind: "paragraph", text: prose(index + 1, 1 + (index % 9)) });
    const document = doc(blocks);
    const chunks = chunkDocument(document, DEFAULT_CHUNKING);
    expect(chunks.length).toBeGreaterThan(20);
    const sizes = chunks.map((chunk) => countTokens(chunk.content));
    expect(Math.max(...sizes)).toBeLessThanOrEqual(limit);
    const average = sizes.reduce((sum, size) => sum + size, 0) / sizes.length;
    expect(average).toBeGreaterThan(DEFAULT_CHUNKING.chunkSizeTokens * 0.6);
    expectOffsetsPointAtContent(document, chunks);
  });

  it("repeats the end of each chunk at the start of the next, starting at a word", () => {
    const document = doc([{ kind: "paragraph", text: prose(7, 200) }]);
    const chunks = chunkDocument(document, DEFAULT_CHUNKING);
    const { text } = assembleText(document);
    expect(chunks.length).toBeGreaterThan(3);
    for (let index = 1; index < chunks.length; index++) {
      const previous = chunks[index - 1]!.meta;
      const current = chunks[index]!.meta;
      expect(current.charStart!).toBeLessThan(previous.charEnd!);
      const overlap = text.slice(current.charStart, previous.charEnd);
      expect(countTokens(overlap)).toBeGreaterThan(DEFAULT_CHUNKING.chunkOverlapTokens / 3);
      expect(countTokens(overlap)).toBeLessThanOrEqual(DEFAULT_CHUNKING.chunkOverlapTokens + 1);
      // Starts at a word, and with this prose (sentences of at most ~22 tokens) at a sentence.
      expect(text[current.charStart! - 1]).toBe(" ");
      expect(text[current.charStart! - 2]).toBe(".");
    }
  });

  it("starts a chunk at each heading once the chunk is reasonably full, with the right section", () => {
    const blocks: ParsedBlock[] = [];
    for (let section = 1; section <= 6; section++) {
      blocks.push({ kind: "heading", text: `Part ${section}`, level: 2 });
      blocks.push({ kind: "paragraph", text: prose(section, 5) });
      blocks.push({ kind: "paragraph", text: prose(section + 10, 4) });
    }
    const chunks = chunkDocument(doc(blocks), DEFAULT_CHUNKING);
    expect(chunks.map((chunk) => chunk.content.split("\n")[0])).toEqual([1, 2, 3, 4, 5, 6].map((n) => `## Part ${n}`));
    expect(chunks.map((chunk) => chunk.meta.section)).toEqual([1, 2, 3, 4, 5, 6].map((n) => `Part ${n}`));
  });

  it("keeps a small section with the next one and never ends a chunk on a heading", () => {
    const blocks: ParsedBlock[] = [
      { kind: "heading", text: "Title", level: 1 },
      { kind: "paragraph", text: "A short introduction." },
      { kind: "heading", text: "Body", level: 2 },
      { kind: "paragraph", text: prose(3, 60) },
      { kind: "heading", text: "Tail", level: 2 },
      { kind: "paragraph", text: prose(4, 60) },
    ];
    const chunks = chunkDocument(doc(blocks), { chunkSizeTokens: 200, chunkOverlapTokens: 30 });
    expect(chunks[0]!.content.startsWith("# Title\n\nA short introduction.\n\n## Body\n\n")).toBe(true);
    for (const chunk of chunks) expect(chunk.content.split("\n").at(-1)).not.toMatch(/^#+ /);
    const sections = chunks.map((chunk) => chunk.meta.section);
    expect(sections[0]).toBe("Title");
    expect(sections.filter((section) => section === "Tail").length).toBeGreaterThan(1);
    const firstTail = chunks.findIndex((chunk) => chunk.meta.section === "Tail");
    expect(chunks[firstTail]!.content.startsWith("## Tail")).toBe(true);
  });

  it("gives each chunk the nearest heading at or above its start", () => {
    const blocks: ParsedBlock[] = [{ kind: "paragraph", text: prose(1, 30) }];
    for (let section = 1; section <= 4; section++) {
      blocks.push({ kind: "heading", text: `Chapter ${section}`, level: 1 });
      blocks.push({ kind: "paragraph", text: prose(section * 3, 10 + section * 15) });
    }
    const document = doc(blocks);
    const { text } = assembleText(document);
    const chunks = chunkDocument(document, { chunkSizeTokens: 150, chunkOverlapTokens: 20 });
    expect(chunks[0]!.meta.section).toBeUndefined();
    for (const chunk of chunks.slice(1)) {
      const before = text.slice(0, chunk.meta.charStart!) + chunk.content.split("\n")[0];
      const headings = [...before.matchAll(/^# (.*)$/gm)];
      expect(chunk.meta.section).toBe(headings.at(-1)?.[1]);
    }
  });

  it("carries page numbers, with pageEnd when a chunk spans pages", () => {
    const blocks: ParsedBlock[] = [];
    for (let page = 1; page <= 12; page++) {
      blocks.push({ kind: "paragraph", text: prose(page, 4), page });
      blocks.push({ kind: "paragraph", text: prose(page + 50, 5), page });
    }
    const document = doc(blocks);
    const { spans } = assembleText(document);
    const chunks = chunkDocument(document, DEFAULT_CHUNKING);
    const pageAt = (offset: number): number => spans.filter((span) => span.start <= offset).at(-1)!.block.page!;
    for (const chunk of chunks) {
      const first = pageAt(chunk.meta.charStart!);
      const last = pageAt(chunk.meta.charEnd! - 1);
      expect(chunk.meta.page).toBe(first);
      expect(chunk.meta.pageEnd).toBe(last > first ? last : undefined);
    }
    expect(chunks.some((chunk) => chunk.meta.pageEnd !== undefined)).toBe(true);
    expect(chunks.at(-1)!.meta.pageEnd ?? chunks.at(-1)!.meta.page).toBe(12);
  });

  it("carries slides and sheets and never mixes two in one chunk", () => {
    const slides = chunkDocument(
      doc([1, 2, 3].flatMap((slide) => [
        { kind: "heading" as const, text: `Slide ${slide}`, level: 1, slide },
        { kind: "list" as const, text: `- point ${slide}a\n- point ${slide}b`, slide },
      ])),
      DEFAULT_CHUNKING,
    );
    expect(slides.map((chunk) => [chunk.meta.slide, chunk.content])).toEqual([
      [1, "# Slide 1\n\n- point 1a\n- point 1b"],
      [2, "# Slide 2\n\n- point 2a\n- point 2b"],
      [3, "# Slide 3\n\n- point 3a\n- point 3b"],
    ]);
    const sheets = chunkDocument(
      doc([
        { kind: "table", text: "name | qty\napple | 3", sheet: "Fruit" },
        { kind: "table", text: "name | qty\nleek | 5", sheet: "Veg \"green\"" },
      ]),
      DEFAULT_CHUNKING,
    );
    expect(sheets.map((chunk) => chunk.meta.sheet)).toEqual(["Fruit", "Veg \"green\""]);
    expect(sheets[1]!.content).toBe("name | qty\nleek | 5");
  });

  it("keeps a chunk within the limit when its first word counts more without the space before it", () => {
    // Found by the property test (seed 585232084): " harbor ..." is 32 tokens as a unit, but the
    // chunk starts at "harbor", which BPE splits differently: 33 tokens.
    const document: ParsedDocument = { blocks: [{ kind: "paragraph", text: "end. harbor 9aZ9a=ZaZ/aa9aa9aZa/aa/a 漢字かな交じり文" }], warnings: [] };
    const chunks = chunkDocument(document, { chunkSizeTokens: 32, chunkOverlapTokens: 0 });
    for (const chunk of chunks) expect(countTokens(chunk.content)).toBeLessThanOrEqual(32);
    expect(chunks.map((chunk) => chunk.content).join("").replace(/\s+/g, "")).toBe(assembleText(document).text.replace(/\s+/g, ""));
  });

  it("repeats a long sheet's header row at the top of every chunk, within the token limit", () => {
    const sheet = createSheetBuilder("Orders");
    sheet.addRow(["Order id", "Customer", "City", "Amount (EUR)"]);
    for (let row = 1; row <= 400; row++) sheet.addRow([`A-${row}`, `${WORDS[row % WORDS.length]} ${WORDS[(row * 7) % WORDS.length]} Ltd`, "Lyon", `${row * 3}.50`]);
    const document = doc(sheet.finish().blocks);
    const chunks = chunkDocument(document, DEFAULT_CHUNKING);
    expect(chunks.length).toBeGreaterThan(5);
    const header = "Order id | Customer | City | Amount (EUR)";
    for (const chunk of chunks) {
      expect(chunk.content.startsWith(header) || chunk.content.startsWith(`# Orders\n\n${header}`)).toBe(true);
      expect(countTokens(chunk.content)).toBeLessThanOrEqual(limit);
    }
    // Every data row still appears exactly once, and nothing else repeats.
    const rows = chunks.flatMap((chunk) => chunk.content.split("\n").filter((line) => line.startsWith("A-")));
    expect(rows).toHaveLength(400);
    expect(new Set(rows).size).toBe(400);
  });

  it("repeats a markdown table's header lines in a chunk that starts inside the table", () => {
    const rows = Array.from({ length: 120 }, (_, index) => `| ${WORDS[index % WORDS.length]} ${index} | ${prose(index + 1, 1)} |`);
    const header = "| Term | Meaning |\n| --- | --- |";
    const chunks = chunkDocument(doc([{ kind: "table", text: [header, ...rows].join("\n"), header }]), DEFAULT_CHUNKING);
    expect(chunks.length).toBeGreaterThan(2);
    for (const chunk of chunks) expect(chunk.content.startsWith(`${header}\n| `)).toBe(true);
  });

  it("splits one huge paragraph with no punctuation at words", () => {
    const words = Array.from({ length: 6000 }, (_, index) => `${WORDS[index % WORDS.length]}${index % 7}`);
    const document = doc([{ kind: "paragraph", text: words.join(" ") }]);
    const chunks = chunkDocument(document, DEFAULT_CHUNKING);
    expect(chunks.length).toBeGreaterThan(10);
    for (const chunk of chunks) {
      expect(countTokens(chunk.content)).toBeLessThanOrEqual(limit);
      // Whole words only at both ends.
      expect(chunk.content).toMatch(/^[a-z]+\d( [a-z]+\d)*$/);
    }
    expectOffsetsPointAtContent(document, chunks);
  });

  it("splits CJK text without spaces within the limit and loses nothing", () => {
    const sentence = "私たちは東京の小さな図書館で古い地図を調べています";
    const document = doc([{ kind: "paragraph", text: sentence.repeat(400) }, { kind: "paragraph", text: `${sentence}。`.repeat(100) }]);
    const chunks = chunkDocument(document, DEFAULT_CHUNKING);
    expect(chunks.length).toBeGreaterThan(5);
    for (const chunk of chunks) expect(countTokens(chunk.content)).toBeLessThanOrEqual(limit);
    expectOffsetsPointAtContent(document, chunks);
    const { text } = assembleText(document);
    expect(chunks[0]!.meta.charStart).toBe(0);
    expect(chunks.at(-1)!.meta.charEnd).toBe(text.length);
    for (let index = 1; index < chunks.length; index++) {
      expect(chunks[index]!.meta.charStart!).toBeLessThanOrEqual(chunks[index - 1]!.meta.charEnd! + 2);
    }
  });

  it("splits an over-long table row at words", () => {
    const longRow = Array.from({ length: 500 }, (_, index) => `cell${index}`).join(" | ");
    const document = doc([{ kind: "table", text: `head | head\n${longRow}\nlast | row` }]);
    const chunks = chunkDocument(document, { chunkSizeTokens: 100, chunkOverlapTokens: 10 });
    for (const chunk of chunks) expect(countTokens(chunk.content)).toBeLessThanOrEqual(100);
    expect(chunks[0]!.content.startsWith("head | head")).toBe(true);
    expect(chunks.at(-1)!.content.endsWith("last | row")).toBe(true);
    expectOffsetsPointAtContent(document, chunks);
  });

  it("is deterministic", () => {
    const blocks: ParsedBlock[] = [{ kind: "heading", text: "Same", level: 1 }, { kind: "paragraph", text: prose(9, 120) }];
    expect(chunkDocument(doc(blocks), DEFAULT_CHUNKING)).toEqual(chunkDocument(doc(blocks), DEFAULT_CHUNKING));
  });

  it("chunks a real markdown document within the limit, with sections from its headings", () => {
    const source = fs.readFileSync(path.resolve("../shared/corpus/officeParser/files/test.md"), "utf8");
    const blocks: ParsedBlock[] = [];
    let paragraph: string[] = [];
    const flush = (): void => {
      if (paragraph.length > 0) blocks.push({ kind: "paragraph", text: paragraph.join("\n") });
      paragraph = [];
    };
    for (const line of source.split("\n")) {
      const heading = /^(#{1,6}) (.*)$/.exec(line);
      if (heading || line.trim() === "") flush();
      if (heading) blocks.push({ kind: "heading", text: heading[2]!, level: heading[1]!.length });
      else if (line.trim() !== "") paragraph.push(line);
    }
    flush();
    const document = doc(blocks);
    const chunks = chunkDocument(document, DEFAULT_CHUNKING);
    expect(chunks.length).toBeGreaterThan(20);
    for (const chunk of chunks) expect(countTokens(chunk.content)).toBeLessThanOrEqual(limit);
    const sections = new Set(chunks.map((chunk) => chunk.meta.section));
    expect(sections).toContain("**Tables** {#tables}");
    expect(sections).toContain("**Images** {#images}");
    for (const chunk of chunks.filter((candidate) => candidate.content.startsWith("#"))) {
      expect(chunk.content.split("\n")[0]).toBe(`${"#".repeat(chunk.content.indexOf(" "))} ${chunk.meta.section}`);
    }
    expectOffsetsPointAtContent(document, chunks);
  });
});
