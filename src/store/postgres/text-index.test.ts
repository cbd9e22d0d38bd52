import { describe, expect, it } from "vitest";
import { indexText, tokenize, toTsquery } from "./text-index.js";

describe("the PostgreSQL keyword index's words (made in Node as FTS5 makes them)", () => {
  it("folds case and diacritics, stems English words, and cuts CJK runs into words", () => {
    expect(tokenize("Café RUNNING runs")).toEqual(["cafe", "run", "run"]);
    expect(tokenize("我们明天在北京开会")).toContain("北京");
  });

  it("weights title words double and keeps title and content apart for phrases", () => {
    const indexed = indexText("River", "The river rises");
    expect(indexed.frequencies.get("river")).toBe(3);
    expect(indexed.length).toBe(4);
    expect(indexed.vector).toMatch(/'river':1A,\d+/);
  });

  it("quotes every word, so no input is tsquery syntax", () => {
    expect(toTsquery({ terms: [{ word: "it's", prefix: true }], match: "all", phrases: [], exclude: [["o'brien"]] })).toBe("(('it' <-> 's':*)) & !('o' <-> 'brien')");
    expect(toTsquery({ terms: [{ word: "*", prefix: false }], match: "all", phrases: [], exclude: [] })).toBeNull();
  });
});
