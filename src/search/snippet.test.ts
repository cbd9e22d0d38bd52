import { describe, expect, it } from "vitest";
import { makeSnippet, snippetWords } from "./snippet.js";

const filler = (words: number) => Array.from({ length: words }, (_, index) => `word${index}`).join(" ");

describe("makeSnippet", () => {
  it("shows a short chunk whole, with whitespace collapsed", () => {
    expect(makeSnippet("Rain all week,\n\n  the river rose.", ["river"])).toBe("Rain all week, the river rose.");
  });

  it("centres a long chunk on the first matched word, marking cut ends", () => {
    const content = `${filler(80)} the aardvark campaign grew revenue ${filler(80)}`;
    const snippet = makeSnippet(content, ["aardvark"], 120);
    expect(snippet).toContain("aardvark campaign");
    expect(snippet.startsWith("…")).toBe(true);
    expect(snippet.endsWith("…")).toBe(true);
    expect(snippet.length).toBeLessThanOrEqual(122);
    // cut at word boundaries, never mid-word
    expect(snippet).toMatch(/^…word\d+ /);
  });

  it("matches a prefix of a longer word, ignoring case and accents", () => {
    const content = `${filler(60)} Le Café servait des CROISSANTS chauds ${filler(60)}`;
    expect(makeSnippet(content, ["cafe"], 100)).toContain("Café");
    expect(makeSnippet(content, ["croissant"], 100)).toContain("CROISSANTS");
  });

  it("does not match inside another word", () => {
    const content = `${filler(10)} scatter ${filler(60)} cat ${filler(60)}`;
    const snippet = makeSnippet(content, ["cat"], 100);
    expect(snippet).toMatch(/ cat /);
    expect(snippet).not.toContain("scatter");
  });

  it("finds a Korean word inside a longer one, as keyword search does", () => {
    const content = `${"다른 내용입니다. ".repeat(20)}다음 주 월요일에 예산회의가 열립니다. ${"다른 내용입니다. ".repeat(20)}`;
    expect(makeSnippet(content, snippetWords("회의는 언제"), 80)).toContain("예산회의가");
    expect(makeSnippet(content, snippetWords("예산회의는"), 80)).toContain("예산회의가");
  });

  it("starts at the chunk start when no query word occurs (a vector hit)", () => {
    const content = `Opening line of the chunk. ${filler(100)}`;
    const snippet = makeSnippet(content, ["unrelated"], 80);
    expect(snippet.startsWith("Opening line of the chunk.")).toBe(true);
    expect(snippet.endsWith("…")).toBe(true);
  });
});

describe("snippetWords", () => {
  it("gives the normalized words the keyword search looked for, without stop words or exclusions", () => {
    expect(snippetWords('The Rivers "flood plain" -dam')).toEqual(["river", "flood plain", "flood", "plain"]);
  });
});
