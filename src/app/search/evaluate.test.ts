import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { corpusIdOf, evaluateSearch, parseEvaluationModes } from "./evaluate.js";
import type { SearchOptions, SearchReport, SearchResult } from "./search.js";

const cleanups: Array<() => void> = [];
afterEach(() => {
  for (const cleanup of cleanups.splice(0)) cleanup();
});

function files(queries: string, qrels: string) {
  const directory = fs.mkdtempSync(path.join(os.tmpdir(), "chunkpad-eval-"));
  cleanups.push(() => fs.rmSync(directory, { recursive: true, force: true }));
  fs.writeFileSync(path.join(directory, "queries.jsonl"), queries);
  fs.writeFileSync(path.join(directory, "qrels.tsv"), qrels);
  return { queriesPath: path.join(directory, "queries.jsonl"), qrelsPath: path.join(directory, "qrels.tsv") };
}

/** A search that answers from a table and records what it was asked. */
function fakeSearch(answers: Record<string, string[]>) {
  const calls: Array<{ query: string; options: SearchOptions }> = [];
  const search = async (query: string, options: SearchOptions): Promise<SearchReport> => {
    calls.push({ query, options });
    const results = (answers[query] ?? []).map((relativePath) => ({ relativePath }) as SearchResult);
    return { query, requestedMode: options.mode ?? "auto", mode: options.mode ?? "keyword", fusion: null, keywordQuery: null, relaxedPhrases: [], notices: [], coverage: null, rerank: null, results };
  };
  return { search, calls };
}

const QUERIES = ['{"_id": "1", "text": "heron river"}', '{"_id": "2", "text": "revenue"}', '{"_id": "3", "text": "unjudged"}'].join("\n");
const QRELS = "query-id\tcorpus-id\tscore\n1\t10\t1\n1\t11\t1\n2\t20\t1\n";

describe("evaluateSearch", () => {
  it("maps chunk hits to corpus ids (first rank per document) and scores each mode", async () => {
    const { search, calls } = fakeSearch({
      "heron river": ["docs/10.md", "docs/10.md", "docs/99.md", "docs/11.md"],
      revenue: ["docs/5.md", "docs/20.md"],
    });
    const report = await evaluateSearch({ search, vectorReadiness: async () => ({ ready: false, reason: "no vectors" }) }, { ...files(QUERIES, QRELS), modes: ["keyword"] });
    expect(report).toMatchObject({ queryCount: 3, judgedQueryCount: 2 });
    const [keyword] = report.modes;
    expect(keyword?.skipped).toBeNull();
    // query 1: relevant at ranks 1 and 3 of 3 distinct docs; query 2: at rank 2
    expect(keyword?.metrics?.["recall@10"]).toBeCloseTo(1, 6);
    expect(keyword?.metrics?.["MRR@10"]).toBeCloseTo((1 + 0.5) / 2, 6);
    const ndcgQuery1 = (1 + 1 / Math.log2(4)) / (1 + 1 / Math.log2(3));
    const ndcgQuery2 = 1 / Math.log2(3);
    expect(keyword?.metrics?.["nDCG@10"]).toBeCloseTo((ndcgQuery1 + ndcgQuery2) / 2, 6);
    // only judged queries run, each with limit 100 and no score floor
    expect(calls.map((call) => call.query).sort()).toEqual(["heron river", "revenue"]);
    expect(calls[0]?.options).toMatchObject({ mode: "keyword", limit: 100, minScore: 0 });
  });

  it("skips vector modes with the reason when vectors cannot be used", async () => {
    const { search, calls } = fakeSearch({});
    const report = await evaluateSearch(
      { search, vectorReadiness: async () => ({ ready: false, reason: 'No chunks are embedded yet. Run "chunkpad embed".' }) },
      { ...files(QUERIES, QRELS), modes: ["vector", "hybrid-rrf"] },
    );
    expect(report.modes.map((mode) => [mode.mode, mode.metrics])).toEqual([["vector", null], ["hybrid-rrf", null]]);
    expect(report.modes[0]?.skipped).toMatch(/chunkpad embed/);
    expect(calls).toEqual([]);
  });

  it("names the file it cannot read", async () => {
    const { search } = fakeSearch({});
    const paths = files(QUERIES, QRELS);
    await expect(evaluateSearch({ search, vectorReadiness: async () => ({ ready: false, reason: "" }) }, { ...paths, qrelsPath: "/nope/qrels.tsv" })).rejects.toThrow(
      /qrels file \/nope\/qrels.tsv/,
    );
  });
});

describe("corpus ids and modes", () => {
  it("takes the file name without extension", () => {
    expect(corpusIdOf("docs/123.md")).toBe("123");
    expect(corpusIdOf("a.b/doc-7.txt")).toBe("doc-7");
    expect(corpusIdOf("README")).toBe("README");
  });
  it("parses a mode list and names the valid modes on a typo", () => {
    expect(parseEvaluationModes("keyword, hybrid-rrf")).toEqual(["keyword", "hybrid-rrf"]);
    expect(() => parseEvaluationModes("keyword,hybrid")).toThrow(/hybrid-weighted/);
  });
});
