// The "I don't know" guardrail on ClapNQ: `npx tsx bench/clapnq-guardrail.ts [floor ...]`.
// Builds a folder with one markdown file per gold passage of all 300 dev questions (150
// answerable, 150 unanswerable, whose passages are on topic but hold no answer), adds it,
// and for every question runs the keyword search `chunkpad ask` runs and the guardrail's
// decision, without any LLM. Prints, per floor, for the plain measure (share of the question's
// words in the best chunk) and the rarity-weighted one `ask` uses now (each word weighed by its
// idf in the folder, squared), the precision and recall of refusals: precision = refused questions that
// were unanswerable / refused questions; recall = unanswerable questions refused / 150. The
// sweep is over the same 300 questions it is reported on (read it as a description). The
// held-out figures are not: the questions are cut in two halves (alternate questions of each
// file), `chunkpad eval --calibrate` (10 % wrongful) runs on the calibration half's answerable
// questions, and the floor it writes is judged on the other half; then the other way round, and
// the mean over 200 random halves. Prints figures only; asserts nothing.
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { pathToFileURL } from "node:url";
import { answerSimilarity, decideRefusal } from "../src/rag/question-similarity.js";
import { floorFor } from "../src/app/answer/calibrate-guardrail.js";
import { defaultConfig } from "../src/app/settings/config.js";
import { openChunkpad, type Chunkpad, type SearchResult } from "../src/index.js";
import { openMainStore } from "../src/store/index.js";
import { questionTermWeights } from "../src/app/answer/term-weights.js";

export interface ClapnqQuestion {
  id: string;
  question: string;
  answerable: boolean;
  /** The gold passage's file in the corpus folder. */
  file: string;
  title: string;
  text: string;
  /** The gold long answer (answerable questions). */
  answer: string;
}

const CLAPNQ_DIR = path.resolve("../shared/ir/clapnq-dev");

interface ClapnqRecord {
  id: string;
  input: string;
  passages: Array<{ title: string; text: string }>;
  output: Array<{ answer: string }>;
}

export function loadClapnq(directory = CLAPNQ_DIR): ClapnqQuestion[] {
  const questions: ClapnqQuestion[] = [];
  for (const kind of ["answerable", "unanswerable"] as const) {
    const lines = fs.readFileSync(path.join(directory, `${kind}.jsonl`), "utf8").split("\n").filter((line) => line.trim() !== "");
    for (const line of lines) {
      const record = JSON.parse(line) as ClapnqRecord;
      const passage = record.passages[0];
      if (!passage) continue;
      questions.push({
        id: record.id,
        question: record.input,
        answerable: kind === "answerable",
        file: `${kind}/${record.id}.md`,
        title: passage.title,
        text: passage.text,
        answer: record.output[0]?.answer ?? "",
      });
    }
  }
  return questions;
}

/** One markdown file per gold passage: the title as a heading, then the passage. */
export function writeClapnqCorpus(folder: string, questions: readonly ClapnqQuestion[]): void {
  for (const question of questions) {
    const target = path.join(folder, question.file);
    fs.mkdirSync(path.dirname(target), { recursive: true });
    fs.writeFileSync(target, `# ${question.title}\n\n${question.text.trim()}\n`);
  }
}

interface Outcome {
  question: ClapnqQuestion;
  results: SearchResult[];
  goldRank: number | null;
  weights: number[];
}

function refusedAt(outcome: Outcome, floor: number, weighted: boolean): boolean {
  return decideRefusal(outcome.question.question, outcome.results, "keyword", floor, weighted ? { clauseWeights: outcome.weights } : {}).refuse;
}

async function runScenario(label: string, corpus: readonly ClapnqQuestion[], questions: readonly ClapnqQuestion[], sweep: readonly number[], configuredFloor: number, heldOut: boolean): Promise<void> {
  const work = fs.mkdtempSync(path.join(os.tmpdir(), "chunkpad-clapnq-"));
  const folder = path.join(work, "clapnq");
  writeClapnqCorpus(folder, corpus);
  const chunkpad = openChunkpad({ env: { ...process.env, CHUNKPAD_HOME: path.join(work, "home") } });
  try {
    const report = await chunkpad.processFolder(folder);
    console.log(`${label}`);
    console.log(`  corpus: ${report.processed.length} passages, ${report.chunksWritten} chunks; ${questions.length} questions`);
    const outcomes: Outcome[] = [];
    const store = openMainStore({ path: chunkpad.paths.databasePath });
    for (const question of questions) {
      // As ask searches: every chunk, not grouped per document.
      const search = await chunkpad.search(question.question, { mode: "keyword", perDocument: 0 });
      const index = search.results.findIndex((result) => result.relativePath === question.file);
      outcomes.push({ question, results: search.results, goldRank: index < 0 ? null : index + 1, weights: await questionTermWeights(store, question.question) });
    }
    await store.close();
    const answerable = outcomes.filter((outcome) => outcome.question.answerable);
    const unanswerable = outcomes.filter((outcome) => !outcome.question.answerable);
    const limit = chunkpad.config.search.limit;
    const found = (rank: number) => answerable.filter((outcome) => outcome.goldRank !== null && outcome.goldRank <= rank).length;
    console.log(`  keyword retrieval: gold passage at rank 1 for ${found(1)}/${answerable.length} answerable, in the top ${limit} for ${found(limit)}`);
    const empty = (list: Outcome[]) => list.filter((outcome) => outcome.results.length === 0).length;
    console.log(`  searches that found nothing: ${empty(answerable)} answerable, ${empty(unanswerable)} unanswerable`);
    console.log("         plain share of words                      rarity-weighted (what ask uses)");
    console.log("  floor  refused unans/ans  precision  recall      refused unans/ans  precision  recall");
    for (const floor of sweep) {
      const columns = [false, true].map((weighted) => {
        const refusedUnanswerable = unanswerable.filter((outcome) => refusedAt(outcome, floor, weighted)).length;
        const refusedAnswerable = answerable.filter((outcome) => refusedAt(outcome, floor, weighted)).length;
        const refused = refusedUnanswerable + refusedAnswerable;
        const precision = refused === 0 ? "-" : (refusedUnanswerable / refused).toFixed(2);
        const recall = (refusedUnanswerable / unanswerable.length).toFixed(2);
        return `${`${refusedUnanswerable}/${refusedAnswerable}`.padStart(17)}  ${precision.padStart(9)}  ${recall.padStart(6)}`;
      });
      const mark = floor === configuredFloor ? "  <- configured (generation.minSimilarity)" : "";
      console.log(`  ${floor.toFixed(2).padStart(5)}  ${columns[0]}    ${columns[1]}${mark}`);
    }
    if (heldOut) await printHeldOut(chunkpad, work, outcomes);
    console.log("");
  } finally {
    await chunkpad.close();
    fs.rmSync(work, { recursive: true, force: true });
  }
}

/** Alternate questions of each kind: the calibration half (even positions) and the held-out half. */
function halves(outcomes: readonly Outcome[]): [Outcome[], Outcome[]] {
  const position = new Map<Outcome, number>();
  for (const answerable of [true, false]) outcomes.filter((outcome) => outcome.question.answerable === answerable).forEach((outcome, index) => position.set(outcome, index));
  return [outcomes.filter((outcome) => (position.get(outcome) ?? 0) % 2 === 0), outcomes.filter((outcome) => (position.get(outcome) ?? 0) % 2 === 1)];
}

/** `chunkpad eval --calibrate` on one half's answerable questions: the floor it would write. */
async function calibrateOn(chunkpad: Chunkpad, work: string, outcomes: readonly Outcome[]): Promise<number> {
  const answerable = outcomes.filter((outcome) => outcome.question.answerable);
  const queriesPath = path.join(work, "calibration-queries.jsonl");
  const qrelsPath = path.join(work, "calibration-qrels.tsv");
  fs.writeFileSync(queriesPath, answerable.map((outcome) => JSON.stringify({ _id: outcome.question.id, text: outcome.question.question })).join("\n"));
  fs.writeFileSync(qrelsPath, answerable.map((outcome) => `${outcome.question.id}\t${outcome.question.file}\t1`).join("\n"));
  return (await chunkpad.calibrateGuardrail({ queriesPath, qrelsPath, wrongfulRate: 0.1 })).floor;
}

function refusalCounts(outcomes: readonly Outcome[], floor: number): string {
  const refused = (answerable: boolean) => outcomes.filter((outcome) => outcome.question.answerable === answerable && refusedAt(outcome, floor, true));
  const total = (answerable: boolean) => outcomes.filter((outcome) => outcome.question.answerable === answerable).length;
  const share = (answerable: boolean) => `${refused(answerable).length}/${total(answerable)} (${((100 * refused(answerable).length) / total(answerable)).toFixed(1)} %)`;
  return `unanswerable refused ${share(false)}, answerable refused ${share(true)}`;
}

async function printHeldOut(chunkpad: Chunkpad, work: string, outcomes: readonly Outcome[]): Promise<void> {
  const [first, second] = halves(outcomes);
  console.log("  held out (rarity-weighted measure; the floor is what `eval --calibrate --wrongful-rate 0.1` writes):");
  for (const [name, calibration, heldOut] of [["even", first, second], ["odd", second, first]] as const) {
    const floor = await calibrateOn(chunkpad, work, calibration);
    console.log(`    calibrated on the ${name} half: floor ${floor.toFixed(2)}; held-out half: ${refusalCounts(heldOut, floor)}`);
  }
  // The same, over random halves (floorFor is what calibrateGuardrail applies to the measures).
  const measureOf = (outcome: Outcome) => outcome.results.reduce((best, result) => Math.max(best, answerSimilarity(outcome.question.question, result, "keyword", { clauseWeights: outcome.weights })), 0);
  const measured = outcomes.map((outcome) => ({ answerable: outcome.question.answerable, measure: measureOf(outcome) }));
  let seed = 20_261_126;
  const random = () => (seed = (seed * 1_103_515_245 + 12_345) % 2_147_483_648) / 2_147_483_648;
  const shuffled = <T>(items: readonly T[]) => items.map((item) => [random(), item] as const).sort((a, b) => a[0] - b[0]).map(([, item]) => item);
  const rounds = 200;
  let refusedAnswerable = 0;
  let refusedUnanswerable = 0;
  for (let round = 0; round < rounds; round += 1) {
    const answerable = shuffled(measured.filter((entry) => entry.answerable).map((entry) => entry.measure));
    const unanswerable = shuffled(measured.filter((entry) => !entry.answerable).map((entry) => entry.measure));
    const floor = floorFor(answerable.slice(0, answerable.length >> 1), 0.1);
    const heldAnswerable = answerable.slice(answerable.length >> 1);
    const heldUnanswerable = unanswerable.slice(unanswerable.length >> 1);
    refusedAnswerable += heldAnswerable.filter((measure) => measure < floor).length / heldAnswerable.length;
    refusedUnanswerable += heldUnanswerable.filter((measure) => measure < floor).length / heldUnanswerable.length;
  }
  console.log(`    mean over ${rounds} random halves: unanswerable refused ${((100 * refusedUnanswerable) / rounds).toFixed(1)} %, answerable refused ${((100 * refusedAnswerable) / rounds).toFixed(1)} %`);
  const floor = await calibrateOn(chunkpad, work, outcomes);
  console.log(`    calibrated on all 150 answerable: floor ${floor.toFixed(2)} (${refusalCounts(outcomes, floor)})`);
}

async function main(): Promise<void> {
  const configuredFloor = defaultConfig().generation.minSimilarity;
  const floors = process.argv.slice(2).map(Number).filter((value) => value >= 0 && value <= 1);
  const sweep = [...new Set([configuredFloor, ...(floors.length > 0 ? floors : [0.3, 0.4, 0.5, 0.6, 0.7, 0.8, 0.9, 1])])].sort((a, b) => a - b);
  const questions = loadClapnq();
  console.log("Guardrail alone, keyword retriever; measure: share of the question's search words in the best chunk.\n");
  await runScenario("A. all 300 gold passages (each unanswerable question's on-topic passage is in the folder)", questions, questions, sweep, configuredFloor, true);
  const answerableOnly = questions.filter((question) => question.answerable);
  await runScenario("B. only the 150 answerable passages (unanswerable questions are about things the folder lacks)", answerableOnly, questions, sweep, configuredFloor, false);
}

if (process.argv[1] && import.meta.url === pathToFileURL(path.resolve(process.argv[1])).href) {
  await main();
}
