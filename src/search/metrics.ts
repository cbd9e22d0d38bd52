import { ChunkpadError } from "../core/errors.js";

/**
 * Retrieval evaluation: nDCG@k, recall@k and MRR@k over a run, and parsers for BEIR-format
 * queries and qrels. Pure: callers read the files and pass the text.
 */

/** Query id → ranked document ids, best first. */
export type Run = ReadonlyMap<string, readonly string[]>;
/** Query id → (document id → relevance grade; 0 or less is not relevant). */
export type Qrels = ReadonlyMap<string, ReadonlyMap<string, number>>;

export interface Evaluation {
  /** Queries with at least one relevant document: the ones averaged over. */
  judgedQueries: number;
  /** Judged queries the run has no ranking for; they count as 0 on every metric. */
  missingQueries: number;
  /** Mean per metric, keyed "nDCG@10", "recall@10", "MRR@10", ... */
  means: Record<string, number>;
  perQuery: Map<string, Record<string, number>>;
}

/** The ranking with repeats removed (a document counts once, at its best rank), cut to k. */
function topK(ranked: readonly string[], k: number): string[] {
  const seen = new Set<string>();
  const top: string[] = [];
  for (const documentId of ranked) {
    if (top.length >= k) break;
    if (seen.has(documentId)) continue;
    seen.add(documentId);
    top.push(documentId);
  }
  return top;
}

function gradeOf(judgments: ReadonlyMap<string, number>, documentId: string): number {
  return Math.max(0, judgments.get(documentId) ?? 0);
}

function relevantCount(judgments: ReadonlyMap<string, number>): number {
  let count = 0;
  for (const grade of judgments.values()) if (grade > 0) count += 1;
  return count;
}

/** nDCG@k with linear gain (the grade) and a log2(rank + 1) discount, ideal from the qrels. */
export function ndcgAtK(ranked: readonly string[], judgments: ReadonlyMap<string, number>, k: number): number {
  const discount = (index: number): number => 1 / Math.log2(index + 2);
  const dcg = topK(ranked, k).reduce((sum, documentId, index) => sum + gradeOf(judgments, documentId) * discount(index), 0);
  const idealGrades = [...judgments.values()].filter((grade) => grade > 0).sort((a, b) => b - a).slice(0, k);
  const idealDcg = idealGrades.reduce((sum, grade, index) => sum + grade * discount(index), 0);
  return idealDcg === 0 ? 0 : dcg / idealDcg;
}

/** Share of the relevant documents found in the top k. */
export function recallAtK(ranked: readonly string[], judgments: ReadonlyMap<string, number>, k: number): number {
  const relevant = relevantCount(judgments);
  if (relevant === 0) return 0;
  const found = topK(ranked, k).filter((documentId) => gradeOf(judgments, documentId) > 0).length;
  return found / relevant;
}

/** 1 / rank of the first relevant document in the top k, 0 when none is there. MRR is its mean. */
export function reciprocalRankAtK(ranked: readonly string[], judgments: ReadonlyMap<string, number>, k: number): number {
  const index = topK(ranked, k).findIndex((documentId) => gradeOf(judgments, documentId) > 0);
  return index === -1 ? 0 : 1 / (index + 1);
}

export function metricNames(ks: readonly number[]): string[] {
  return ks.flatMap((k) => [`nDCG@${k}`, `recall@${k}`, `MRR@${k}`]);
}

/** Averages nDCG, recall and MRR at each k over the queries the qrels judge relevant documents for. */
export function evaluateRun(run: Run, qrels: Qrels, ks: readonly number[] = [10]): Evaluation {
  const names = metricNames(ks);
  const totals: Record<string, number> = Object.fromEntries(names.map((name) => [name, 0]));
  const perQuery = new Map<string, Record<string, number>>();
  let missingQueries = 0;

  for (const [queryId, judgments] of qrels) {
    if (relevantCount(judgments) === 0) continue;
    const ranked = run.get(queryId);
    if (ranked === undefined) missingQueries += 1;
    const scores: Record<string, number> = {};
    for (const k of ks) {
      scores[`nDCG@${k}`] = ndcgAtK(ranked ?? [], judgments, k);
      scores[`recall@${k}`] = recallAtK(ranked ?? [], judgments, k);
      scores[`MRR@${k}`] = reciprocalRankAtK(ranked ?? [], judgments, k);
    }
    for (const name of names) totals[name] = (totals[name] ?? 0) + (scores[name] ?? 0);
    perQuery.set(queryId, scores);
  }

  const judgedQueries = perQuery.size;
  const means: Record<string, number> = Object.fromEntries(
    names.map((name) => [name, judgedQueries === 0 ? 0 : (totals[name] ?? 0) / judgedQueries]),
  );
  return { judgedQueries, missingQueries, means, perQuery };
}

// ---------------------------------------------------------------------------------------------
// BEIR-format files

function invalidLine(file: string, lineNumber: number, expected: string): ChunkpadError {
  return new ChunkpadError(
    "INVALID_ARGUMENT",
    `${file} line ${lineNumber}: expected ${expected}. Fix or remove that line and run again.`,
    { details: { file, lineNumber } },
  );
}

function numberedLines(text: string): Array<{ line: string; lineNumber: number }> {
  return text
    .replace(/^\uFEFF/, "")
    .split(/\r?\n/)
    .map((line, index) => ({ line, lineNumber: index + 1 }))
    .filter(({ line }) => line.trim() !== "");
}

const QUERY_HEADER_IDS = new Set(["_id", "id", "qid", "query-id", "query_id", "queryid"]);

/**
 * Queries as BEIR ships them: JSON lines `{"_id": "1", "text": "..."}` (`id` accepted too),
 * or TSV `id<TAB>text` with an optional header line. The format is told by the first line.
 */
export function parseQueries(text: string): Map<string, string> {
  const lines = numberedLines(text);
  const queries = new Map<string, string>();
  const isJsonLines = lines[0]?.line.trimStart().startsWith("{") ?? false;
  for (const [position, { line, lineNumber }] of lines.entries()) {
    if (isJsonLines) {
      const expected = 'a JSON object with "_id" and "text"';
      let record: unknown;
      try {
        record = JSON.parse(line);
      } catch {
        throw invalidLine("queries", lineNumber, expected);
      }
      const fields = (typeof record === "object" && record !== null ? record : {}) as Record<string, unknown>;
      const id = fields._id ?? fields.id;
      if ((typeof id !== "string" && typeof id !== "number") || typeof fields.text !== "string") {
        throw invalidLine("queries", lineNumber, expected);
      }
      queries.set(String(id), fields.text);
      continue;
    }
    const tab = line.indexOf("\t");
    if (tab === -1) throw invalidLine("queries", lineNumber, "query-id<TAB>text");
    const id = line.slice(0, tab).trim();
    if (position === 0 && QUERY_HEADER_IDS.has(id.toLowerCase())) continue;
    queries.set(id, line.slice(tab + 1).trim());
  }
  return queries;
}

/**
 * Qrels as BEIR ships them: `query-id<TAB>corpus-id<TAB>score` with an optional header line;
 * TREC's `query-id iteration corpus-id score` (4 columns, any whitespace) is read too.
 * A pair judged twice keeps its higher grade.
 */
export function parseQrels(text: string): Map<string, Map<string, number>> {
  const qrels = new Map<string, Map<string, number>>();
  for (const [position, { line, lineNumber }] of numberedLines(text).entries()) {
    const fields = line.includes("\t") ? line.split("\t").map((field) => field.trim()) : line.trim().split(/\s+/);
    const columns = fields.length === 4 ? [fields[0], fields[2], fields[3]] : fields;
    const [queryId, documentId, gradeText] = columns;
    const grade = Number(gradeText);
    if (columns.length !== 3 || !queryId || !documentId || gradeText === undefined || gradeText === "" || !Number.isFinite(grade)) {
      if (position === 0 && columns.length === 3) continue; // the header line
      throw invalidLine("qrels", lineNumber, "query-id<TAB>corpus-id<TAB>score");
    }
    let judgments = qrels.get(queryId);
    if (judgments === undefined) {
      judgments = new Map();
      qrels.set(queryId, judgments);
    }
    judgments.set(documentId, Math.max(grade, judgments.get(documentId) ?? -Infinity));
  }
  return qrels;
}
