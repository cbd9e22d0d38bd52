// The "I don't know" guardrail on ClapNQ: `npx tsx bench/clapnq-guardrail.ts [floor ...]`.
// Builds a folder with one markdown file per gold passage of all 300 dev questions (150
// answerable, 150 unanswerable, whose passages are on topic but hold no answer), adds it,
// and for every question runs the keyword search `chunkpad ask` runs and the guardrail's
// decision, without any LLM. Prints, per floor, for the plain measure (share of the question's
// words in the best chunk) and the rarity-weighted one `ask` uses now (each word weighed by its
// idf in the folder), the precision and recall of refusals: precision = refused questions that
// were unanswerable / refused questions; recall = unanswerable questions refused / 150. The
// floors are swept on the same 300 questions they are reported on (no held-out split: read the
// sweep as a description, not a tuned result). Prints figures only; asserts nothing.
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { pathToFileURL } from "node:url";
import { decideRefusal } from "../src/rag/question-similarity.js";
import { defaultConfig } from "../src/app/settings/config.js";
import { openChunkpad, type SearchResult } from "../src/index.js";
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

async function runScenario(label: string, corpus: readonly ClapnqQuestion[], questions: readonly ClapnqQuestion[], sweep: readonly number[], configuredFloor: number): Promise<void> {
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
    console.log("");
  } finally {
    await chunkpad.close();
    fs.rmSync(work, { recursive: true, force: true });
  }
}

async function main(): Promise<void> {
  const configuredFloor = defaultConfig().generation.minSimilarity;
  const floors = process.argv.slice(2).map(Number).filter((value) => value >= 0 && value <= 1);
  const sweep = [...new Set([configuredFloor, ...(floors.length > 0 ? floors : [0.3, 0.4, 0.5, 0.6, 0.7, 0.8, 0.9, 1])])].sort((a, b) => a - b);
  const questions = loadClapnq();
  console.log("Guardrail alone, keyword retriever; measure: share of the question's search words in the best chunk.\n");
  await runScenario("A. all 300 gold passages (each unanswerable question's on-topic passage is in the folder)", questions, questions, sweep, configuredFloor);
  const answerableOnly = questions.filter((question) => question.answerable);
  await runScenario("B. only the 150 answerable passages (unanswerable questions are about things the folder lacks)", answerableOnly, questions, sweep, configuredFloor);
}

if (process.argv[1] && import.meta.url === pathToFileURL(path.resolve(process.argv[1])).href) {
  await main();
}
