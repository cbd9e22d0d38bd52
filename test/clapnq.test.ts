import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { loadClapnq, writeClapnqCorpus, type ClapnqQuestion } from "../bench/clapnq-guardrail.js";
import { openChunkpad, REFUSAL_TEXT, type AnswerResult, type Chunkpad } from "../src/index.js";
import { cliEnv, makeTempDir, runCli } from "./helpers/cli.js";
import { startAnthropicServer } from "./helpers/llm-servers/anthropic-server.js";
import type { ScriptedServer } from "./helpers/llm-servers/scripted-server.js";

/**
 * The guardrail and citation flow on ClapNQ (../shared/ir/clapnq-dev), end to end with the
 * keyword retriever and a scripted LLM speaking Anthropic's wire protocol. The folder holds
 * the gold passages of the 150 answerable questions, so the 150 unanswerable ones ask about
 * things the documents lack. The scripted "model" answers the way a faithful one would: from
 * the gold passage, citing its label, or "I don't know" when that passage was not given.
 * bench/clapnq-guardrail.ts prints the figures, also for a folder holding every gold passage.
 */

const questions = loadClapnq();
const answerable = questions.filter((question) => question.answerable);
const unanswerable = questions.filter((question) => !question.answerable);

let anthropic: ScriptedServer;
let chunkpad: Chunkpad;
const home = makeTempDir("clapnq-home");
const folder = path.join(makeTempDir("clapnq-docs"), "clapnq");

interface Asked {
  question: ClapnqQuestion;
  answer: AnswerResult;
  /** Requests the LLM server received for this question. */
  requests: number;
}

/** Runs the ask flow; when it is about to call the LLM, scripts the reply from the labels it will send. */
async function ask(question: ClapnqQuestion): Promise<Asked> {
  const before = anthropic.requests.length;
  let answer: AnswerResult | undefined;
  for await (const event of chunkpad.ask(question.question, { mode: "keyword" })) {
    if (event.type === "answer-start") {
      const gold = event.labels.find((label) => label.source === question.file);
      const reply = gold && question.answerable ? `${question.answer.slice(0, 120)} [${gold.label}]` : REFUSAL_TEXT;
      anthropic.script({ reply: "text", deltas: [reply.slice(0, 20), reply.slice(20)] });
    }
    if (event.type === "done") answer = event.answer;
  }
  if (!answer) throw new Error(`no answer for ${question.id}`);
  return { question, answer, requests: anthropic.requests.length - before };
}

beforeAll(async () => {
  anthropic = await startAnthropicServer();
  writeClapnqCorpus(folder, answerable);
  const added = await runCli(["add", folder], { home });
  expect(added.code, added.stderr).toBe(0);
  chunkpad = openChunkpad({ env: cliEnv(home, { ANTHROPIC_BASE_URL: anthropic.url, ANTHROPIC_API_KEY: "test-key", CHUNKPAD_KEYCHAIN: "off" }) });
});
afterAll(async () => {
  await chunkpad?.close();
  await anthropic.close();
});

describe("ClapNQ: grounded answers and the guardrail", () => {
  it("answers answerable questions with valid citations of the gold passage's document", async () => {
    const results: Asked[] = [];
    for (const question of answerable) results.push(await ask(question));
    const cited = results.filter(({ answer, question }) => answer.citations.some((label) => label.source === question.file));
    for (const { answer, question } of cited) {
      expect(answer.invalidCitations).toEqual([]);
      expect(answer.citations.every((label) => label.source === question.file && label.ref.includes(`:${question.file}#`))).toBe(true);
      expect(answer.text.length).toBeGreaterThan(REFUSAL_TEXT.length);
    }
    // Keyword search puts the gold passage among the chunks for all 150; the guardrail wrongly
    // refuses some: the 0.47 floor trades about 15 % of these (decision 047) for most off-topic questions.
    const refused = results.filter(({ answer }) => answer.refused);
    expect(cited.length + refused.length).toBe(answerable.length);
    expect(refused.length).toBeLessThanOrEqual(24);
    for (const { requests } of refused) expect(requests).toBe(0);
  });

  it("refuses some unanswerable questions without calling the LLM; the model declines the others", async () => {
    const results: Asked[] = [];
    for (const question of unanswerable) results.push(await ask(question));
    const refused = results.filter(({ answer }) => answer.refused);
    // The folder holds only the answerable passages: most of these are about what it lacks.
    expect(refused.length).toBeGreaterThanOrEqual(100);
    for (const { answer, requests } of refused) {
      expect(requests).toBe(0);
      expect(answer).toMatchObject({ text: REFUSAL_TEXT, provider: null, citations: [] });
    }
    for (const { answer, requests } of results.filter(({ answer }) => !answer.refused)) {
      expect(requests).toBe(1);
      expect(answer).toMatchObject({ text: REFUSAL_TEXT, provider: "anthropic", citations: [], invalidCitations: [] });
    }
  });

  it("through the CLI, a refused question shows the nearest chunks and never reaches the server", async () => {
    const target = (await firstRefused())?.question;
    expect(target).toBeDefined();
    anthropic.reset();
    const result = await runCli(["ask", "--mode", "keyword", target?.question ?? ""], { home, env: { ANTHROPIC_BASE_URL: anthropic.url, ANTHROPIC_API_KEY: "test-key" } });
    expect(result.code, result.stderr).toBe(0);
    expect(result.stdout).toBe(`${REFUSAL_TEXT}\n`);
    expect(result.stderr).toMatch(/Chunks found \(keyword search\):\n +1\. /);
    expect(anthropic.requests).toHaveLength(0);
  });
});

async function firstRefused(): Promise<Asked | undefined> {
  for (const question of unanswerable) {
    const asked = await ask(question);
    if (asked.answer.refused) return asked;
  }
  return undefined;
}
