import fs from "node:fs";
import path from "node:path";
import { createRequire } from "node:module";
import { describe, expect, it } from "vitest";
import type * as Cl100kModule from "gpt-tokenizer/encoding/cl100k_base";
import { countTokens, createSliceCounter, decodeTokens, encodeTokens, LONG_RUN_CHARS, splitAtTokenLimit } from "./tokens.js";

/** gpt-tokenizer itself, as the chunk sizes were counted before (its count, special tokens as plain text). */
const library = createRequire(import.meta.url)("gpt-tokenizer/encoding/cl100k_base") as typeof Cl100kModule;
const libraryCount = (text: string) => library.countTokens(text, { disallowedSpecial: new Set<string>() });

/** The repository's markdown and the shared corpus's text files smaller than maxBytes. */
function textFiles(maxBytes: number): string[] {
  const files = [path.resolve("README.md"), ...fs.readdirSync("docs/decisions").map((name) => path.resolve("docs/decisions", name))];
  const corpus = path.resolve("../shared/corpus");
  const visit = (directory: string) => {
    for (const entry of fs.readdirSync(directory, { withFileTypes: true })) {
      const full = path.join(directory, entry.name);
      if (entry.isDirectory()) visit(full);
      else if (/\.(md|txt|markdown|html?|rtf|tsv)$/i.test(entry.name) && fs.statSync(full).size < maxBytes) files.push(full);
    }
  };
  if (fs.existsSync(corpus)) visit(corpus);
  return files;
}

/** Real text in many scripts: the repository's markdown, the shared corpus's text files, and hand-picked lines. */
function realTexts(): string[] {
  const files = textFiles(2_000_000);
  const lines = [
    "Ünïcödé façade — naïve café, Straße, Ærøskøbing, Ελληνικά: TNFα and NF-κB; Кириллица, עברית, العربية.",
    "漢字かな交じり文と한국어 예산회의, ภาษาไทย, हिन्दी, 👨‍👩‍👧 family 🎉🎉, 𝔘𝔫𝔦𝔠𝔬𝔡𝔢 astral, \u0000\u0001 controls \uE000 private.",
    "We'll see; they're done, I'VE said it's John's. 1234567 12.5% $3,000 x86 IL6 snake_case camelCase\r\n\r\n  \t  \n",
    "trailing spaces   \n\n\n   leading\ttabs\t\t and <|endoftext|> <|fim_prefix|> as plain text   ",
  ];
  const texts = [...lines];
  for (const file of files) {
    const text = fs.readFileSync(file, "utf8");
    // Whole paragraphs and single lines, the sizes the chunker counts; long runs are sliced on purpose, so kept short.
    for (const paragraph of text.split(/\n\s*\n/)) if (paragraph.length > 0 && paragraph.length <= LONG_RUN_CHARS) texts.push(paragraph);
    texts.push(...text.split("\n").filter((line) => line.length > 0 && line.length <= LONG_RUN_CHARS).slice(0, 200));
  }
  return texts;
}

describe("countTokens", () => {
  it("counts cl100k_base tokens", () => {
    expect(countTokens("")).toBe(0);
    expect(countTokens("hello world")).toBe(2);
    expect(countTokens("The quick brown fox jumps over the lazy dog.")).toBe(10);
  });

  it("counts special-token strings in a document as plain text instead of throwing", () => {
    expect(countTokens("before <|endoftext|> after")).toBeGreaterThan(3);
    expect(decodeTokens(encodeTokens("a <|endoftext|> b"))).toBe("a <|endoftext|> b");
  });

  it("counts a long run without spaces close to the exact count", () => {
    const blob = "QUJDRA".repeat(1500); // 9000 characters, one pre-token
    const exact = encodeTokens(blob).length;
    const counted = countTokens(blob);
    const slices = Math.ceil(blob.length / LONG_RUN_CHARS);
    expect(Math.abs(counted - exact)).toBeLessThanOrEqual(slices);
  });

  it("gives gpt-tokenizer's own count on real text in every script, the first time and when counted again", () => {
    const texts = realTexts();
    expect(texts.length).toBeGreaterThan(3_000);
    const differing = texts.filter((text) => countTokens(text) !== libraryCount(text) || countTokens(text) !== libraryCount(text));
    expect(differing).toEqual([]);
    expect(texts.some((text) => /\P{ASCII}/u.test(text))).toBe(true);
  });

  it("counts ordinary long text exactly", () => {
    const text = "Chunkpad turns a folder of documents into a searchable knowledge base. ".repeat(200);
    expect(countTokens(text)).toBe(encodeTokens(text).length);
  });
});

describe("createSliceCounter", () => {
  /** Whole documents: the repository's markdown, the shared corpus's text files, and the hand-picked lines run together. */
  function wholeTexts(): string[] {
    const lines = realTexts().slice(0, 4);
    return [lines.join("\n\n"), lines.join(" "), lines.join("\n"), lines.join("\t"), ...textFiles(200_000).map((file) => fs.readFileSync(file, "utf8"))];
  }

  it("counts every slice of a document, with or without a prefix, exactly as countTokens counts the slice (decision 093)", () => {
    let seed = 93;
    const random = () => ((seed = (seed * 1_103_515_245 + 12_345) % 2 ** 31) / 2 ** 31);
    const differing: string[] = [];
    let slices = 0;
    for (const text of wholeTexts()) {
      const counter = createSliceCounter(text);
      // Slices of every length a chunker asks for, starting and ending anywhere: at spaces, newlines, inside words.
      for (let sample = 0; sample < 150; sample++) {
        const start = Math.floor(random() * text.length);
        const end = Math.min(text.length, start + 1 + Math.floor(random() ** 2 * 3000));
        const prefix = sample % 3 === 0 ? "| a | b |\n" : "";
        slices++;
        if (counter.count(start, end, prefix) !== countTokens(prefix + text.slice(start, end))) differing.push(JSON.stringify(text.slice(start, end).slice(0, 80)));
      }
    }
    expect(slices).toBeGreaterThan(5_000);
    expect(differing).toEqual([]);
  });

  it("counts slices across the windows a long document is read in, as countTokens counts them", () => {
    const text = fs.readdirSync("docs/decisions").map((name) => fs.readFileSync(path.resolve("docs/decisions", name), "utf8")).join("\n\n");
    expect(text.length).toBeGreaterThan(4 * 65_536);
    const counter = createSliceCounter(text);
    const differing: number[] = [];
    for (let window = 65_536; window < text.length; window += 65_536) {
      for (const [start, end] of [[window - 3_000, window + 3_000], [window - 40, window + 900], [window - 1_500, window + 7]]) {
        if (counter.count(start as number, end as number) !== countTokens(text.slice(start, end))) differing.push(window);
      }
    }
    expect(differing).toEqual([]);
  });

  it("counts slices cut at each line and paragraph of a document, where a cut could join a newline to the text before it", () => {
    const text = "A first line.\nA second one, with 12345 digits.\n\nA paragraph: it's here.\n\n  indented\tand\ttabbed;\r\nWindows line. 漢字かな交じり文 and more text here.\n".repeat(20);
    const counter = createSliceCounter(text);
    const cuts = [...text.matchAll(/\s/gu)].map((match) => match.index);
    const differing = cuts.flatMap((start) => cuts.filter((end) => end > start && end - start < 400).map((end) => [start, end] as const))
      .filter(([start, end]) => counter.count(start, end) !== countTokens(text.slice(start, end)) || counter.count(start + 1, end + 1) !== countTokens(text.slice(start + 1, end + 1)));
    expect(differing).toEqual([]);
  });
});

describe("splitAtTokenLimit", () => {
  it("returns text that fits as one piece", () => {
    expect(splitAtTokenLimit("short text", 10)).toEqual([{ start: 0, end: 10, tokens: 2 }]);
    expect(splitAtTokenLimit("", 10)).toEqual([]);
  });

  it("splits a blob into contiguous pieces within the limit", () => {
    const blob = "aGVsbG8gd29ybGQ".repeat(400);
    const pieces = splitAtTokenLimit(blob, 50);
    expect(pieces.length).toBeGreaterThan(10);
    expect(pieces.map((piece) => blob.slice(piece.start, piece.end)).join("")).toBe(blob);
    for (const piece of pieces) {
      expect(countTokens(blob.slice(piece.start, piece.end))).toBeLessThanOrEqual(50);
      expect(piece.tokens).toBe(countTokens(blob.slice(piece.start, piece.end)));
    }
  });

  it("never cuts inside an emoji sequence or a CJK character", () => {
    const family = "👨‍👩‍👧";
    const text = `${family}漢字`.repeat(300);
    const pieces = splitAtTokenLimit(text, 40);
    expect(pieces.length).toBeGreaterThan(1);
    for (const piece of pieces) {
      expect(text.slice(piece.start, piece.end)).toMatch(/^(漢字|字|👨‍👩‍👧|漢)+$/u);
      expect(text.slice(piece.start, piece.end).startsWith("\u200d")).toBe(false);
      expect(piece.tokens).toBeLessThanOrEqual(40);
    }
  });
});
