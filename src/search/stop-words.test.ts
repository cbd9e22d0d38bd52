import { describe, expect, it } from "vitest";
import { STOP_WORDS, isStopWord } from "./stop-words.js";

describe("stop words", () => {
  it("holds TakeNote's list, lower-case", () => {
    expect(STOP_WORDS.size).toBe(127);
    for (const word of ["the", "what", "is", "of", "don", "s", "t", "should", "now"]) expect(isStopWord(word)).toBe(true);
    expect(isStopWord("The")).toBe(false);
  });

  it("keeps content words", () => {
    for (const word of ["dog", "near", "title", "library", "would"]) expect(isStopWord(word)).toBe(false);
  });
});
