import fs from "node:fs";
import { ChunkpadError } from "../../core/errors.js";
import { parseQrels, parseQueries } from "../../search/metrics.js";
import { answerSimilarity } from "../../rag/question-similarity.js";
import { DEFAULT_WRONGFUL_RATE } from "./wrongful-rate.js";
import type { SearchOptions, SearchReport } from "../search/search.js";

/**
 * `chunkpad eval --calibrate`: sets the "I don't know" guardrail's floor from the user's own
 * questions. Every judged query (one with a relevant document in the qrels) is a question the
 * documents answer; each is searched as `ask` searches (keyword, every chunk), and the guardrail's
 * measure of its best chunk is noted (the rarity-weighted share of its words, decision 006). The
 * floor is the highest one that refuses at most `wrongfulRate` of these questions. The keyword
 * measure is the one calibrated: a hybrid `ask` takes the larger of it and the vector measure, so
 * it refuses no more answerable questions than this.
 */

export interface CalibrateGuardrailOptions {
  /** Queries: JSON lines {"_id","text"} or TSV id<TAB>text. */
  queriesPath: string;
  /** Qrels: the judged queries are the answerable questions. */
  qrelsPath: string;
  /** Share of answerable questions the floor may refuse, 0..0.5 (default DEFAULT_WRONGFUL_RATE). */
  wrongfulRate?: number;
  folders?: readonly string[];
  cwd?: string;
  onProgress?: (event: { done: number; total: number }) => void;
}

export interface GuardrailCalibration {
  /** Answerable questions measured. */
  questions: number;
  wrongfulRate: number;
  /** The floor for generation.minSimilarity: at most wrongfulRate of the questions fall below it. */
  floor: number;
  /** Questions the new floor refuses (its wrongful refusals on these questions). */
  refusedAtFloor: number;
  /** The floor configured before, and the questions it refuses. */
  currentFloor: number;
  refusedAtCurrentFloor: number;
}

export interface CalibrateGuardrailDependencies {
  search: (question: string, options: SearchOptions) => Promise<SearchReport>;
  termWeights: (question: string) => Promise<number[]>;
  currentFloor: number;
}

export { DEFAULT_WRONGFUL_RATE };
/** Floors are written with two decimals, rounded down (a floor a hair lower never refuses more). */
const FLOOR_STEPS_PER_UNIT = 100;

export async function calibrateGuardrail(dependencies: CalibrateGuardrailDependencies, options: CalibrateGuardrailOptions): Promise<GuardrailCalibration> {
  const wrongfulRate = options.wrongfulRate ?? DEFAULT_WRONGFUL_RATE;
  if (!(wrongfulRate >= 0 && wrongfulRate <= 0.5)) {
    throw new ChunkpadError("INVALID_ARGUMENT", `The wrongful-refusal rate is a fraction from 0 to 0.5 (0.1 refuses at most one answerable question in ten), not ${wrongfulRate}.`);
  }
  const queries = parseQueries(readInput(options.queriesPath, "queries"));
  const qrels = parseQrels(readInput(options.qrelsPath, "qrels"));
  const questions = [...qrels]
    .filter(([id, judgments]) => queries.has(id) && [...judgments.values()].some((grade) => grade > 0))
    .map(([id]) => queries.get(id) ?? "");
  if (questions.length === 0) {
    throw new ChunkpadError("INVALID_ARGUMENT", "No question in the queries file has a relevant document in the qrels. Calibrating needs questions your documents answer, each with its document listed in --qrels.");
  }
  const measures: number[] = [];
  for (const [index, question] of questions.entries()) {
    const report = await dependencies.search(question, {
      mode: "keyword",
      perDocument: 0,
      ...(options.folders ? { folders: options.folders } : {}),
      ...(options.cwd ? { cwd: options.cwd } : {}),
    });
    const clauseWeights = await dependencies.termWeights(question);
    measures.push(report.results.reduce((best, result) => Math.max(best, answerSimilarity(question, result, "keyword", { clauseWeights })), 0));
    options.onProgress?.({ done: index + 1, total: questions.length });
  }
  const floor = floorFor(measures, wrongfulRate);
  const refused = (at: number) => measures.filter((measure) => measure < at).length;
  return { questions: questions.length, wrongfulRate, floor, refusedAtFloor: refused(floor), currentFloor: dependencies.currentFloor, refusedAtCurrentFloor: refused(dependencies.currentFloor) };
}

/** The highest floor (two decimals) below which at most `rate` of the measures fall. */
export function floorFor(measures: readonly number[], rate: number): number {
  const sorted = [...measures].sort((a, b) => a - b);
  const allowed = Math.floor(rate * sorted.length);
  // Refused: measure < floor. The (allowed + 1)-th lowest measure must stay answered.
  const ceiling = sorted[allowed] ?? 1;
  return Math.max(0, Math.min(1, Math.floor(ceiling * FLOOR_STEPS_PER_UNIT + 1e-9) / FLOOR_STEPS_PER_UNIT));
}

function readInput(filePath: string, what: string): string {
  try {
    return fs.readFileSync(filePath, "utf8");
  } catch (error) {
    throw new ChunkpadError("NOT_FOUND", `Cannot read the ${what} file ${filePath} (${(error as Error).message}). Check the path given to --${what}.`, { cause: error });
  }
}
