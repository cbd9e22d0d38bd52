import { describe, expect, it } from "vitest";
import type { ScoredChunk } from "../core/types.js";
import { answerSimilarity, decideRefusal, keywordCoverage, rarity } from "./question-similarity.js";

function scored(content: string, extra: Partial<ScoredChunk> = {}): ScoredChunk {
  return {
    chunk: { ref: "f:a.md#1", documentId: "d", folderId: "f", relativePath: "a.md", ordinal: 1, title: "a", content, contentHash: "h", included: true },
    score: 1,
    isIncluded: true,
    ...extra,
  };
}

describe("keywordCoverage", () => {
  it("is the share of the question's search words the text holds, stop words left out", () => {
    // Search words: warranty, last, long (what, does, the, how are stop words).
    expect(keywordCoverage("How long does the warranty last?", "The warranty lasts two years.")).toBeCloseTo(2 / 3);
    expect(keywordCoverage("How long does the warranty last?", "A long warranty lasts.")).toBe(1);
    expect(keywordCoverage("How long does the warranty last?", "Penguins live in Antarctica.")).toBe(0);
  });

  it("matches the way keyword search does: by prefix, by lemma, and phrases in order", () => {
    expect(keywordCoverage("forecasting averages", "Forecast the average demand.")).toBe(1);
    expect(keywordCoverage("geese", "A goose flew by.")).toBe(1);
    expect(keywordCoverage('"date of purchase"', "from the date of purchase")).toBe(1);
    expect(keywordCoverage('"purchase date"', "from the date of purchase")).toBe(0);
    expect(keywordCoverage("Café", "the cafe opens")).toBe(1);
  });

  it("counts a longer word that only starts with the question's word for half, a Korean word with a particle whole", () => {
    // Search words: capital, peru. "capitalize" is matched by keyword search, but is not the word.
    expect(keywordCoverage("What is the capital of Peru?", "Capitalize the first letter of every sentence.")).toBeCloseTo(0.25);
    expect(keywordCoverage("What is the capital of Peru?", "Lima is the capital of Peru.")).toBe(1);
    expect(keywordCoverage("서울 날씨", "서울에서 날씨가 좋다")).toBe(1);
  });

  it("is 0 for a question with no searchable word", () => {
    expect(keywordCoverage("what is it?", "what is it")).toBe(0);
  });
});

describe("answerSimilarity", () => {
  const question = "penguins survive antarctic winter warranty";
  it("does not trust the fused score, which is 1.0 for the best keyword hit", () => {
    expect(answerSimilarity(question, scored("the warranty"), "keyword")).toBeCloseTo(0.2);
  });
  it("uses 1 - cosine distance for vector search, and the better of the two for hybrid", () => {
    expect(answerSimilarity(question, scored("the warranty", { distance: 0.4 }), "vector")).toBeCloseTo(0.6);
    expect(answerSimilarity(question, scored("penguins survive antarctic winter", { distance: 0.9 }), "hybrid")).toBeCloseTo(0.8);
    expect(answerSimilarity(question, scored("nothing", { distance: 0.3 }), "hybrid")).toBeCloseTo(0.7);
    expect(answerSimilarity(question, scored("the warranty"), "vector")).toBe(0);
  });
  it("counts a pinned chunk as a match: the user chose the document", () => {
    expect(answerSimilarity(question, scored("unrelated", { pinned: true }), "keyword")).toBe(1);
  });
});

describe("decideRefusal", () => {
  it("refuses when the best included chunk holds too few of the question's words", () => {
    const results = [scored("the warranty"), scored("penguins in antarctic winter survive", { isIncluded: false })];
    expect(decideRefusal("penguins survive antarctic winter warranty", results, "keyword", 0.25)).toMatchObject({ refuse: true, reason: "below-similarity-floor" });
    expect(decideRefusal("warranty", results, "keyword", 0.25)).toMatchObject({ refuse: false, bestSimilarity: 1 });
  });
});

describe("rarity-weighted coverage", () => {
  const chunk = (content: string): ScoredChunk => ({ chunk: { content } as ScoredChunk["chunk"], score: 1, isIncluded: true });

  it("counts a rare word for more than common ones, so sharing only common words is not enough", () => {
    const question = "when did the river flood the valley";
    // Clauses: river, flood, valley ("when", "did", "the" are stop words); "river" and "valley" are everywhere, "flood" is rare.
    const weights = [rarity(90, 100), rarity(2, 100), rarity(80, 100)];
    const onlyCommon = chunk("The river runs through the valley.");
    expect(keywordCoverage(question, onlyCommon.chunk.content)).toBeCloseTo(2 / 3, 5);
    expect(keywordCoverage(question, onlyCommon.chunk.content, weights)).toBeLessThan(0.3);
    expect(decideRefusal(question, [onlyCommon], "keyword", 0.3, { clauseWeights: weights })).toMatchObject({ refuse: true });
    expect(decideRefusal(question, [chunk("The flood of 1927 covered everything.")], "keyword", 0.3, { clauseWeights: weights })).toMatchObject({ refuse: false });
  });

  it("refuses a chunk that holds a question's everyday words but not its one rare name", () => {
    // Clauses: found, heron, society, vienna; "heron" is in 2 of 1000 chunks, the others in 40 each.
    const question = "who founded the heron society in vienna";
    const weights = [rarity(40, 1000), rarity(2, 1000), rarity(40, 1000), rarity(40, 1000)];
    const everyday = chunk("The society was founded in Vienna in 1897.");
    const named = chunk("The Heron Society met in Vienna.");
    // Weighed by idf the everyday chunk held 62 % of the question and passed; by idf squared, 46 %.
    expect(decideRefusal(question, [everyday], "keyword", 0.47, { clauseWeights: weights })).toMatchObject({ refuse: true });
    expect(decideRefusal(question, [named], "keyword", 0.47, { clauseWeights: weights })).toMatchObject({ refuse: false });
  });

  it("keeps a separate floor for vector similarity", () => {
    const near = { ...chunk("unrelated words"), distance: 0.45 };
    expect(decideRefusal("penguins", [near], "vector", 0.3)).toMatchObject({ refuse: false });
    expect(decideRefusal("penguins", [near], "vector", 0.3, { minVectorSimilarity: 0.6 })).toMatchObject({ refuse: true });
    expect(decideRefusal("penguins", [near], "hybrid", 0.3, { minVectorSimilarity: 0.5 })).toMatchObject({ refuse: false });
  });
});
