import fs from "node:fs";
import path from "node:path";
import { ChunkpadError } from "../../core/errors.js";
import { evaluateRun, parseQrels, parseQueries } from "../../search/metrics.js";
import type { FusionMethod, SearchMode, SearchOptions, SearchReport } from "./search.js";
import type { VectorReadiness } from "./search-vector.js";
import { EVALUATION_METRICS, EVALUATION_MODES, type EvaluationMode } from "./evaluation-modes.js";

/**
 * `chunkpad eval`: runs BEIR-style queries through the search use case in each mode and scores
 * the rankings against the qrels. A hit on docs/123.md counts as corpus id "123" (the file
 * name without its extension). Results are grouped per document (one result per document, at
 * its best chunk's rank), so the metrics are document-level and recall@100 means 100 documents.
 */

export { EVALUATION_METRICS, EVALUATION_MODES, parseEvaluationModes, type EvaluationMode } from "./evaluation-modes.js";

/** Documents fetched per query, for recall@100. */
const EVALUATION_LIMIT = 100;

export interface EvaluateOptions {
  /** Queries: JSON lines {"_id","text"} or TSV id<TAB>text. */
  queriesPath: string;
  /** Qrels: query-id<TAB>corpus-id<TAB>score (BEIR), or TREC's four columns. */
  qrelsPath: string;
  modes?: readonly EvaluationMode[];
  folders?: readonly string[];
  cwd?: string;
  onProgress?: (event: { mode: EvaluationMode; done: number; total: number }) => void;
}

export interface ModeEvaluation {
  mode: EvaluationMode;
  /** Why the mode did not run (no vectors, no model), or null. */
  skipped: string | null;
  /** Queries with relevant documents in the qrels: the ones averaged over. */
  judgedQueries: number;
  /** Judged queries the queries file lacks; they count as 0. */
  missingQueries: number;
  metrics: Record<(typeof EVALUATION_METRICS)[number], number> | null;
  durationMs: number;
}

export interface EvaluationReport {
  queryCount: number;
  judgedQueryCount: number;
  modes: ModeEvaluation[];
}

export interface EvaluateDependencies {
  search: (query: string, options: SearchOptions) => Promise<SearchReport>;
  vectorReadiness: () => Promise<VectorReadiness>;
  now?: () => number;
}

const MODE_SETTINGS: Record<EvaluationMode, { mode: SearchMode; fusion?: FusionMethod }> = {
  keyword: { mode: "keyword" },
  vector: { mode: "vector" },
  "hybrid-weighted": { mode: "hybrid", fusion: "weighted" },
  "hybrid-rrf": { mode: "hybrid", fusion: "rrf" },
};

/** "docs/123.md" → "123". */
export function corpusIdOf(relativePath: string): string {
  const name = path.posix.basename(relativePath);
  const dot = name.lastIndexOf(".");
  return dot > 0 ? name.slice(0, dot) : name;
}

export async function evaluateSearch(dependencies: EvaluateDependencies, options: EvaluateOptions): Promise<EvaluationReport> {
  const now = dependencies.now ?? Date.now;
  const queries = parseQueries(readInput(options.queriesPath, "queries"));
  const qrels = parseQrels(readInput(options.qrelsPath, "qrels"));
  const judged = [...qrels].filter(([, judgments]) => [...judgments.values()].some((grade) => grade > 0)).map(([id]) => id);
  const toRun = judged.filter((id) => queries.has(id));
  const modes = options.modes && options.modes.length > 0 ? options.modes : EVALUATION_MODES;

  const report: EvaluationReport = { queryCount: queries.size, judgedQueryCount: judged.length, modes: [] };
  let readiness: VectorReadiness | undefined;
  for (const mode of modes) {
    const settings = MODE_SETTINGS[mode];
    const started = now();
    if (settings.mode !== "keyword") {
      readiness ??= await dependencies.vectorReadiness();
      if (!readiness.ready) {
        report.modes.push({ mode, skipped: readiness.reason, judgedQueries: judged.length, missingQueries: 0, metrics: null, durationMs: 0 });
        continue;
      }
    }
    const run = new Map<string, string[]>();
    for (const [index, queryId] of toRun.entries()) {
      const text = queries.get(queryId) ?? "";
      const result = await dependencies.search(text, {
        ...settings,
        limit: EVALUATION_LIMIT,
        perDocument: 1,
        minScore: 0,
        ...(options.folders ? { folders: options.folders } : {}),
        ...(options.cwd ? { cwd: options.cwd } : {}),
      });
      run.set(queryId, result.results.map((row) => corpusIdOf(row.relativePath)));
      options.onProgress?.({ mode, done: index + 1, total: toRun.length });
    }
    const evaluation = evaluateRun(run, qrels, [10, 100]);
    const metrics = Object.fromEntries(EVALUATION_METRICS.map((name) => [name, evaluation.means[name] ?? 0])) as ModeEvaluation["metrics"];
    report.modes.push({ mode, skipped: null, judgedQueries: evaluation.judgedQueries, missingQueries: evaluation.missingQueries, metrics, durationMs: now() - started });
  }
  return report;
}

function readInput(filePath: string, what: string): string {
  try {
    return fs.readFileSync(filePath, "utf8");
  } catch (error) {
    throw new ChunkpadError("NOT_FOUND", `Cannot read the ${what} file ${filePath} (${(error as Error).message}). Check the path given to --${what}.`, { cause: error });
  }
}
