import { describe, expect, it } from "vitest";
import { MAX_QUERY_WORDS, meaningText, parseQuery } from "./query-parse.js";

const terms = (input: string): string[] => parseQuery(input).include.map((clause) => clause.words.join(" "));

describe("parseQuery", () => {
  it("lower-cases, lemmatizes and drops stop words", () => {
    expect(terms("What are the Running Dogs doing?")).toEqual(["run", "dog"]);
  });

  it("folds Latin diacritics but keeps other scripts whole", () => {
    expect(terms("Café NAÏVE")).toEqual(["cafe", "naive"]);
    expect(terms("हिन्दी")).toEqual(["हिन्दी"]);
  });

  it("cuts Chinese and Japanese runs into words as the index does; quoted, they stay a phrase", () => {
    const clauses = (query: string) => parseQuery(query).include.map((clause) => `${clause.kind}:${clause.words.join(" ")}`);
    expect(clauses("東京都の会議")).toEqual(["term:東京", "term:都", "term:の", "term:会議"]);
    expect(clauses("北京 budget")).toEqual(["term:北京", "term:budget"]);
    expect(clauses('"東京都"')).toEqual(["phrase:東京 都"]);
    expect(parseQuery("会議 -東京都").exclude).toEqual([{ kind: "phrase", words: ["東京", "都"] }]);
  });

  it("searches a Korean word without the particle attached to it, when two syllables remain", () => {
    expect(terms("서울에서 회의는 언제입니까")).toEqual(["서울", "회의", "언제"]);
    expect(terms("고양이 나이")).toEqual(["고양", "나이"]);
  });

  it("searches a Korean word of three syllables or more as the phrase of its syllable pairs, without its particle", () => {
    const clauses = (query: string) => parseQuery(query).include.map((clause) => `${clause.kind}:${clause.words.join(" ")}`);
    expect(clauses("예산회의는 언제")).toEqual(["phrase:예산 산회 회의", "term:언제"]);
    // Not a quoted phrase: it ranks, and the any-word list searches its pairs (search/normalize.ts).
    expect(parseQuery("예산회의는").include[0]?.identifier).toBe(true);
    expect(clauses('"예산회의가"')).toEqual(["phrase:예산 산회 회의 의가"]);
  });

  it("searches a camelCase identifier as the phrase of its words and itself, as the index holds it", () => {
    expect(parseQuery("parseQuery").include).toEqual([{ kind: "phrase", words: ["parse", "query", "parsequery"], identifier: true }]);
    expect(parseQuery("NF-kappaB").include).toEqual([{ kind: "phrase", words: ["nf", "kappa", "b", "kappab"], identifier: true }]);
    expect(terms("JavaScript")).toEqual(["java script javascript"]);
    expect(terms("URLs")).toEqual(["url"]);
  });

  it("splits on apostrophes like the index does, dropping the stop-word halves", () => {
    expect(terms("the user's guide, don't panic")).toEqual(["user", "guide", "panic"]);
    expect(terms("O’Brien")).toEqual(["o", "brien"]);
  });

  it("keeps quoted phrases exact, stop words included", () => {
    expect(parseQuery('"The Who" tour').include).toEqual([
      { kind: "phrase", words: ["the", "who"] },
      { kind: "term", words: ["tour"] },
    ]);
  });

  it("reads an unpaired quote as a plain character, not as the start of a phrase", () => {
    expect(parseQuery('dog "big red').include).toEqual([
      { kind: "term", words: ["dog"] },
      { kind: "term", words: ["big"] },
      { kind: "term", words: ["red"] },
    ]);
    expect(terms('"a" b "c d" e"')).toEqual(["a", "b", "c d", "e"]);
    expect(parseQuery('"heron" "').include).toEqual([{ kind: "phrase", words: ["heron"] }]);
  });

  it("reads a minus before a number as part of the number, not as an exclusion", () => {
    const parsed = parseQuery("stored at -80 °C -frozen");
    expect(terms("stored at -80 °C -frozen")).toEqual(["store", "80", "c"]);
    expect(parsed.exclude).toEqual([{ kind: "term", words: ["frozen"] }]);
  });

  it("reads -word and -\"phrase\" as exclusions, taken as typed", () => {
    const parsed = parseQuery('dogs -cats -"big dog" -the');
    expect(parsed.include).toEqual([{ kind: "term", words: ["dog"] }]);
    expect(parsed.exclude).toEqual([
      { kind: "term", words: ["cats"] },
      { kind: "phrase", words: ["big", "dog"] },
      { kind: "term", words: ["the"] },
    ]);
  });

  it("reads an identifier or a symbol's spelling as a phrase of its words, as the index cuts it; a hyphenated word stays loose words", () => {
    expect(parseQuery("e-mail - x").exclude).toEqual([]);
    expect(terms("e-mail - x")).toEqual(["e", "mail", "x"]);
    expect(terms("on-line COVID-19")).toEqual(["line", "covid 19"]);
    expect(parseQuery("snake_case IL6 IL-6 TNFα NF-κB").include).toEqual([
      { kind: "phrase", words: ["snake", "case"], identifier: true },
      { kind: "phrase", words: ["il", "6"], identifier: true },
      { kind: "phrase", words: ["tnf", "alpha"], identifier: true },
      { kind: "phrase", words: ["nf", "kappa", "b"], identifier: true },
    ]);
    expect(terms("the user's guide")).toEqual(["user", "guide"]);
  });

  it("keeps a repeated word once for each time it was typed, so it weighs more; repeated phrases and exclusions once", () => {
    expect(terms("dog dogs DOG cat")).toEqual(["dog", "dog", "dog", "cat"]);
    expect(terms('"big dog" "big dog"')).toEqual(["big dog"]);
    expect(parseQuery("x -cat -cats -cat").exclude).toEqual([{ kind: "term", words: ["cat"] }, { kind: "term", words: ["cats"] }]);
  });

  it("caps the number of words and says so", () => {
    const parsed = parseQuery(Array.from({ length: 100 }, (_, index) => `x${"y".repeat(index + 1)}`).join(" "));
    expect(parsed.include).toHaveLength(MAX_QUERY_WORDS);
    expect(parsed.truncated).toBe(true);
    expect(parseQuery("dog").truncated).toBe(false);
    const word = (index: number) => `x${"y".repeat(index + 1)}`;
    const quoted = parseQuery(`"${Array.from({ length: 40 }, (_, index) => word(index)).join(" ")}"`);
    expect(quoted.include).toEqual([{ kind: "phrase", words: Array.from({ length: MAX_QUERY_WORDS }, (_, index) => word(index)) }]);
    expect(quoted.truncated).toBe(true);
  });
});

describe("compatibility forms", () => {
  it("folds full-width letters into the words the index holds", () => {
    expect(parseQuery("ＧＩＲＡＦＦＥＳ").include).toEqual(parseQuery("giraffes").include);
  });

  it("embeds the query without its exclusions and quote marks", () => {
    expect(meaningText('river -heron "at dawn" -"grey bird"')).toBe("river at dawn");
    expect(meaningText("-heron")).toBe("-heron");
    expect(parseQuery('river -heron "at dawn"').meaning).toBe("river at dawn");
  });
});
