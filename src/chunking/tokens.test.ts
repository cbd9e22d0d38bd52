import { describe, expect, it } from "vitest";
import { countTokens, decodeTokens, encodeTokens, LONG_RUN_CHARS, splitAtTokenLimit } from "./tokens.js";

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

  it("counts ordinary long text exactly", () => {
    const text = "Chunkpad turns a folder of documents into a searchable knowledge base. ".repeat(200);
    expect(countTokens(text)).toBe(encodeTokens(text).length);
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
