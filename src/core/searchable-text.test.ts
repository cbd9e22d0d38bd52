import { describe, expect, it } from "vitest";
import { searchableText } from "./searchable-text.js";

const words = (text: string) => searchableText(text).toLowerCase().split(/[^\p{L}\p{N}]+/u).filter(Boolean);

describe("searchableText", () => {
  it("names a lone Greek letter, so TNFα, TNF-α and TNF-alpha meet; Greek text stays Greek", () => {
    expect(words("TNFα")).toEqual(["tnf", "alpha"]);
    expect(words("TNF-α")).toEqual(["tnf", "alpha"]);
    expect(words("NF-κB")).toEqual(["nf", "kappa", "b"]);
    expect(words("Καλημέρα κόσμε")).toEqual(["καλημέρα", "κόσμε"]);
  });

  it("cuts at letter/digit boundaries, so IL6, IL-6 and IL 6 meet", () => {
    expect(words("IL6")).toEqual(["il", "6"]);
    expect(words("IL-6")).toEqual(["il", "6"]);
    expect(words("x86 and COVID19")).toEqual(["x", "86", "and", "covid", "19"]);
    expect(words("1960s")).toEqual(["1960", "s"]);
  });

  it("cuts a Korean word of three syllables or more into syllable pairs, so a compound holds its words", () => {
    expect(words("예산회의가 열립니다")).toEqual(["예산", "산회", "회의", "의가", "열립", "립니", "니다"]);
    expect(words("서울 본사")).toEqual(["서울", "본사"]);
    expect(words("집")).toEqual(["집"]);
  });

  it("gives a camelCase word its words, then itself; names a Latin stand-in for a Greek letter after capitals", () => {
    expect(words("parseQuery")).toEqual(["parse", "query", "parsequery"]);
    expect(words("XMLHttpRequest")).toEqual(["xml", "http", "request", "xmlhttprequest"]);
    expect(words("NFkB")).toEqual(["nf", "kappa", "b", "nfkb"]);
    expect(words("NF-kappaB")).toEqual(["nf", "kappa", "b", "kappab"]);
    expect(words("TNFa")).toEqual(["tnf", "alpha", "tnfa"]);
    // Plurals of abbreviations and plain capitals stay whole.
    expect(words("URLs and IDs at NASA")).toEqual(["urls", "and", "ids", "at", "nasa"]);
  });

  it("changes only the words that need it, exactly as before, in text where most words do not (decision 093)", () => {
    // One camelCase word among plain ones, words beside other letters, digits with and without letters beside them.
    expect(searchableText("The parseQuery call, a façadeBuilder, ÉtéParse and 42 items in 1960s.")).toBe(
      "The parse Query parseQuery call, a façadeBuilder, ÉtéParse and 42 items in 1960 s.",
    );
    expect(searchableText("Chapter 12: 3.14 and 2,000 (n = 40)")).toBe("Chapter 12: 3.14 and 2,000 (n = 40)");
    expect(searchableText("IL6 with TNFα and NFkB")).toBe("IL 6 with TNF alpha  and NF kappa B NFkB");
    expect(searchableText("Καλημέρα 2 κόσμε3")).toBe("Καλημέρα 2 κόσμε 3");
  });

  it("leaves plain words alone and still cuts Chinese", () => {
    expect(searchableText("The heron waits.")).toBe("The heron waits.");
    expect(words("在北京开会")).toContain("北京");
  });
});
