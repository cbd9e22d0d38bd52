import { describe, expect, it } from "vitest";
import { isChunkpadError } from "../core/errors.js";
import { evaluateRun, ndcgAtK, parseQrels, parseQueries, recallAtK, reciprocalRankAtK } from "./metrics.js";

const judgments = new Map([
  ["d1", 3],
  ["d2", 2],
  ["d3", 0],
  ["d4", 1],
]);

describe("ndcgAtK", () => {
  it("is 1 for the ideal ranking", () => {
    expect(ndcgAtK(["d1", "d2", "d4"], judgments, 10)).toBeCloseTo(1);
  });

  it("matches a hand computation with graded relevance", () => {
    // DCG = 0/log2(2) + 3/log2(3) + 1/log2(4) ; IDCG@3 = 3/1 + 2/log2(3) + 1/log2(4)
    const dcg = 3 / Math.log2(3) + 1 / 2;
    const idealDcg = 3 + 2 / Math.log2(3) + 1 / 2;
    expect(ndcgAtK(["x", "d1", "d4"], judgments, 3)).toBeCloseTo(dcg / idealDcg, 10);
  });

  it("cuts both the run and the ideal at k", () => {
    // Only rank 1 counts; the ideal at k = 1 is the grade-3 document.
    expect(ndcgAtK(["d2", "d1"], judgments, 1)).toBeCloseTo(2 / 3);
  });

  it("counts a repeated document once", () => {
    expect(ndcgAtK(["d1", "d1"], new Map([["d1", 1], ["d2", 1]]), 2)).toBeCloseTo(1 / (1 + 1 / Math.log2(3)));
  });

  it("is 0 when nothing is relevant", () => {
    expect(ndcgAtK(["d1"], new Map([["d1", 0]]), 10)).toBe(0);
  });
});

describe("recallAtK and reciprocalRankAtK", () => {
  it("count relevant documents found in the top k", () => {
    expect(recallAtK(["d3", "d1", "x", "d4"], judgments, 2)).toBeCloseTo(1 / 3);
    expect(recallAtK(["d3", "d1", "x", "d4"], judgments, 10)).toBeCloseTo(2 / 3);
  });

  it("take the rank of the first relevant document within k", () => {
    expect(reciprocalRankAtK(["d3", "x", "d4"], judgments, 10)).toBeCloseTo(1 / 3);
    expect(reciprocalRankAtK(["d3", "x", "d4"], judgments, 2)).toBe(0);
  });
});

describe("evaluateRun", () => {
  const qrels = new Map([
    ["q1", new Map([["a", 1], ["b", 1]])],
    ["q2", new Map([["c", 1]])],
    ["q3", new Map([["d", 0]])],
    ["q4", new Map([["e", 1]])],
  ]);
  const run = new Map([
    ["q1", ["a", "x", "b"]],
    ["q2", ["x", "c"]],
    ["q3", ["d"]],
    ["unjudged", ["a"]],
  ]);

  it("averages over queries with a relevant document, counting missing runs as 0", () => {
    const evaluation = evaluateRun(run, qrels, [1, 10]);
    expect(evaluation.judgedQueries).toBe(3);
    expect(evaluation.missingQueries).toBe(1);
    expect(evaluation.means["MRR@10"]).toBeCloseTo((1 + 1 / 2 + 0) / 3);
    expect(evaluation.means["recall@1"]).toBeCloseTo((1 / 2 + 0 + 0) / 3);
    expect(evaluation.means["recall@10"]).toBeCloseTo((1 + 1 + 0) / 3);
    const q1Ndcg = (1 + 1 / 2) / (1 + 1 / Math.log2(3));
    const q2Ndcg = 1 / Math.log2(3);
    expect(evaluation.means["nDCG@10"]).toBeCloseTo((q1Ndcg + q2Ndcg) / 3);
    expect(evaluation.perQuery.get("q2")?.["MRR@10"]).toBeCloseTo(0.5);
    expect(evaluation.perQuery.has("q3")).toBe(false);
  });

  it("returns zeros for no judged queries", () => {
    expect(evaluateRun(run, new Map(), [10]).means).toEqual({ "nDCG@10": 0, "recall@10": 0, "MRR@10": 0 });
  });
});

describe("parseQueries", () => {
  it("reads BEIR JSON lines", () => {
    const text = '{"_id": "1", "text": "What is a library?", "metadata": {}}\n\n{"id": 2, "text": "Dewey"}\n';
    expect(parseQueries(text)).toEqual(new Map([["1", "What is a library?"], ["2", "Dewey"]]));
  });

  it("reads TSV with or without a header", () => {
    expect(parseQueries("query-id\ttext\r\n1\tWhat is a library?\r\n2\tDewey\r\n")).toEqual(new Map([["1", "What is a library?"], ["2", "Dewey"]]));
    expect(parseQueries("1\tWhat is a library?")).toEqual(new Map([["1", "What is a library?"]]));
  });

  it("says which line is wrong", () => {
    expect(() => parseQueries('{"_id": "1", "text": "ok"}\n{"_id": "2"}')).toThrow(/line 2/);
    const thrown = ((): unknown => {
      try {
        parseQueries("1 no tab here");
      } catch (error) {
        return error;
      }
      return undefined;
    })();
    expect(isChunkpadError(thrown, "INVALID_ARGUMENT")).toBe(true);
    expect(String(thrown)).toMatch(/line 1/);
  });
});

describe("parseQrels", () => {
  it("reads BEIR TSV with a header", () => {
    const qrels = parseQrels("query-id\tcorpus-id\tscore\n1\t28\t1\n1\t35\t2\n2\t7\t0\n");
    expect(qrels.get("1")).toEqual(new Map([["28", 1], ["35", 2]]));
    expect(qrels.get("2")).toEqual(new Map([["7", 0]]));
  });

  it("reads TREC's four columns and keeps the higher of repeated grades", () => {
    const qrels = parseQrels("1 0 28 1\n1 0 28 2\n1 0 28 0\n");
    expect(qrels.get("1")).toEqual(new Map([["28", 2]]));
  });

  it("rejects a malformed line after the first", () => {
    expect(() => parseQrels("1\t28\t1\n1\t35\tvery\n")).toThrow(/qrels line 2/);
  });
});
