import { openSqlite } from "../store/sqlite/driver.js";
import fc from "fast-check";
import { afterAll, describe, expect, it } from "vitest";
import { formatKeywordQuery } from "../core/keyword-query.js";
import { toConstraintExpressions } from "../store/sqlite/fts-query.js";
import { buildKeywordQuery, buildTextConstraints } from "./normalize.js";

// The expressions the SQLite store hands FTS5 for a query, checked against a real FTS5 table.
function buildFtsQuery(input: string, { operator }: { operator: "AND" | "OR" }): string | null {
  const query = buildKeywordQuery(input, { match: operator === "AND" ? "all" : "any" });
  return query === null ? null : formatKeywordQuery(query);
}

function buildFtsConstraints(input: string) {
  return toConstraintExpressions(buildTextConstraints(input));
}

// The same table shape and tokenizer the store uses.
const database = openSqlite(":memory:");
database.exec(`CREATE VIRTUAL TABLE chunks_fts USING fts5(title, content, tokenize='porter unicode61 remove_diacritics 2')`);
const documents: Record<string, [string, string]> = {
  dogRuns: ["Pets", "The dog runs across the park every morning."],
  catSleeps: ["Pets", "A cat sleeps on the sofa."],
  dogAndCat: ["Pets", "My dog and my cat are friends."],
  runsDog: ["Order", "Nobody runs; the dog sits."],
  classification: ["Libraries", "The Dewey Decimal Classification of books."],
  cafe: ["Travel", "We met at a small café near the station."],
  meaning: ["Philosophy", "On the meaning of life and other questions."],
  mice: ["Lab", "The mouse escaped from its cage."],
};
const insert = database.prepare("INSERT INTO chunks_fts (rowid, title, content) VALUES (?, ?, ?)");
const rowNames = Object.keys(documents);
rowNames.forEach((name, index) => {
  const [title, content] = documents[name] ?? ["", ""];
  insert.run(index + 1, title, content);
});
const select = database.prepare("SELECT rowid FROM chunks_fts WHERE chunks_fts MATCH ? ORDER BY bm25(chunks_fts)");

afterAll(() => database.close());

function search(input: string, operator: "AND" | "OR" = "AND"): string[] | null {
  const expression = buildFtsQuery(input, { operator });
  if (expression === null) return null;
  return (select.all(expression) as Array<{ rowid: number }>).map((row) => rowNames[row.rowid - 1] ?? "?");
}

describe("buildFtsQuery", () => {
  it("builds TakeNote's form: lemmas, stop words gone, prefix on 3+ characters, AND", () => {
    expect(buildFtsQuery("What are the running dogs of NY?", { operator: "AND" })).toBe('"run"* AND "dog"* AND "ny"');
    expect(buildFtsQuery("running dogs", { operator: "OR" })).toBe('"run"* OR "dog"*');
  });

  it("finds a dog that runs when asked about running dogs", () => {
    expect(search("running dogs")).toEqual(expect.arrayContaining(["dogRuns", "runsDog"]));
    expect(search("running dogs")).not.toContain("catSleeps");
  });

  it("needs every word with AND and any word with OR", () => {
    expect(search("dog unicorn")).toEqual([]);
    expect(search("dog unicorn", "OR")).toEqual(expect.arrayContaining(["dogRuns", "dogAndCat", "runsDog"]));
  });

  it("matches word beginnings and irregular forms", () => {
    expect(search("classif")).toEqual(["classification"]);
    expect(search("mice")).toEqual(["mice"]);
  });

  it("finds a natural-language question's content words", () => {
    expect(search("What is the meaning of life?")).toEqual(["meaning"]);
  });

  it("returns null when only stop words, punctuation or nothing is typed", () => {
    expect(buildFtsQuery("what is the", { operator: "AND" })).toBeNull();
    expect(buildFtsQuery("  ?!  ", { operator: "AND" })).toBeNull();
    expect(buildFtsQuery("", { operator: "OR" })).toBeNull();
  });

  it("keeps quoted phrases in order", () => {
    expect(search('"dog runs"')).toEqual(["dogRuns"]);
    expect(search('"runs dog"')).toEqual([]);
  });

  it("excludes -words, also with the OR fallback", () => {
    expect(search("dog -cat")).toEqual(expect.arrayContaining(["dogRuns", "runsDog"]));
    expect(search("dog -cat")).not.toContain("dogAndCat");
    expect(search("dog sofa -cat", "OR")).not.toContain("dogAndCat");
    expect(search("dog sofa -cat", "OR")).not.toContain("catSleeps");
    expect(search('dog -"my cat"')).not.toContain("dogAndCat");
  });

  it("keeps a quoted phrase required in the OR fallback; the loose words only rank there", () => {
    expect(buildFtsQuery('unicorn park "dog runs"', { operator: "OR" })).toBe('("unicorn"* OR "park"* OR "dog runs") AND "dog runs"');
    expect(search('unicorn park "dog runs"', "OR")).toEqual(["dogRuns"]);
    expect(search('unicorn "my dog"', "OR")).toEqual(["dogAndCat"]);
    expect(search('unicorn "dog runs"', "OR")).toEqual(["dogRuns"]);
  });

  it("gives the phrases and exclusions every mode must honour, matching as the keyword stage does", () => {
    expect(buildFtsConstraints("dog park")).toEqual({ required: null, excluded: null });
    const constraints = buildFtsConstraints('dogs "the dog runs" "my dog" -Cats -"the sofa"');
    expect(constraints).toEqual({ required: '"the dog runs" AND "my dog"', excluded: '"cats" OR "the sofa"' });
    // Stemming and folding as in the index: -cats drops a chunk that says "cat".
    const excluded = (select.all(constraints.excluded) as Array<{ rowid: number }>).map((row) => rowNames[row.rowid - 1]);
    expect(excluded.sort()).toEqual(["catSleeps", "dogAndCat"]);
  });

  it("excludes whole words, not prefixes", () => {
    expect(search("classification -class")).toEqual(["classification"]);
  });

  it("returns null for a query of only exclusions", () => {
    expect(buildFtsQuery("-cat -dog", { operator: "AND" })).toBeNull();
  });

  it("matches across diacritics both ways", () => {
    expect(search("cafe")).toEqual(["cafe"]);
    expect(search("CAFÉ")).toEqual(["cafe"]);
  });

  it("treats typed FTS5 syntax as plain words", () => {
    const equivalents: Array<[string, string]> = [
      ["dog AND", "dog"],
      ["NOT dog", "dog"],
      ["dog OR", "dog"],
      ["(dog", "dog"],
      ["dog^", "dog"],
      ["*dog", "dog"],
      ['dog"', "dog"],
      ["title:dog", "title dog"],
      ["{title content}: park", "title content park"],
      ["NEAR(dog runs, 2)", "near dog runs 2"],
    ];
    expect(search("dog")).toHaveLength(3);
    for (const [typed, words] of equivalents) expect(search(typed), typed).toEqual(search(words));
    expect(search("NEAR")).toEqual(["cafe"]);
  });

  it("keeps very long input to a bounded query", () => {
    const expression = buildFtsQuery("dog ".repeat(50_000) + Array.from({ length: 500 }, (_, index) => `w${index}`).join(" "), { operator: "AND" });
    // 32 different words; a repeated word counts at most 8 times.
    expect((expression ?? "").split(" AND ").length).toBeLessThanOrEqual(32 + 7);
  });
});

describe("buildFtsQuery never produces an FTS5 syntax error", () => {
  const matchWorks = (input: string): void => {
    for (const operator of ["AND", "OR"] as const) {
      const expression = buildFtsQuery(input, { operator });
      if (expression !== null) select.all(expression);
    }
  };
  const syntaxPieces = fc.constantFrom(
    "AND", "OR", "NOT", "NEAR", "and", "not", "NEAR(", ")", "(", '"', '""', "-", "--", "*", "^", ":", "title:", "content:",
    "{title}", "{", "}", "+", ",", ".", "'", "’", "\\", "\u0000", "\u0007", "\n", "\t", " ", "  ", "dog", "runs", "the", "é",
    "e\u0301", "😀", "👍🏽", "中文", "\u200b", "\ufeff", "\uffff", "\ud800", "10", "-dog", '-"', "a", "x*", "NEAR(a b, 3)",
  );
  const syntaxHeavy = fc.array(syntaxPieces, { maxLength: 40 }).map((pieces) => pieces.join(""));
  const syntaxSpaced = fc.array(syntaxPieces, { maxLength: 40 }).map((pieces) => pieces.join(" "));

  it.each([
    ["fc.string", fc.string({ maxLength: 200 })],
    ["full unicode (binary) strings", fc.string({ unit: "binary", maxLength: 200 })],
    ["FTS5 syntax pieces", syntaxHeavy],
    ["FTS5 syntax pieces with spaces", syntaxSpaced],
  ])("for %s", (_name, arbitrary) => {
    fc.assert(fc.property(arbitrary, (input) => matchWorks(input)), { numRuns: 500 });
  });
});
