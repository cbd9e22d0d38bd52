import { describe, expect, it } from "vitest";
import type { ChatMessage, ScoredChunk } from "../core/types.js";
import { REFUSAL_TEXT } from "./guardrail.js";
import { buildAnswerPrompt } from "./prompt.js";

function scored(ref: string, score: number, content: string, isIncluded = true): ScoredChunk {
  return {
    chunk: {
      ref, documentId: "doc", folderId: "f", relativePath: `${ref}.pdf`, ordinal: 1,
      title: ref, content, contentHash: "h", included: true, page: 7,
    },
    score,
    isIncluded,
  };
}

const chunks = [scored("a", 0.9, "The library opened in 1876."), scored("b", 0.7, "Switched off.", false), scored("c", 0.6, "It holds 2 million books.")];
const countWords = (text: string): number => text.split(/\s+/).filter(Boolean).length;

describe("buildAnswerPrompt", () => {
  it("puts the rules first and the labeled excerpts with the question last", () => {
    const prompt = buildAnswerPrompt({ question: "When did the library open?", chunks, mode: "normal" });
    expect(prompt.messages.map((message) => message.role)).toEqual(["system", "user"]);
    const user = prompt.messages[1]?.content ?? "";
    expect(user).toContain("[C1] Source: a.pdf, page 7\nThe library opened in 1876.");
    expect(user).toContain("[C2] Source: c.pdf, page 7\nIt holds 2 million books.");
    expect(user).not.toContain("Switched off.");
    expect(user.endsWith("Question: When did the library open?")).toBe(true);
    expect(prompt.labels.map((label) => [label.label, label.ref, label.source, label.page])).toEqual([
      ["C1", "a", "a.pdf", 7],
      ["C2", "c", "c.pdf", 7],
    ]);
  });

  it("asks for citations and the refusal sentence in both modes", () => {
    for (const mode of ["strict", "normal"] as const) {
      const system = buildAnswerPrompt({ question: "q", chunks, mode }).messages[0]?.content ?? "";
      expect(system).toContain("[C2]");
      expect(system).toContain(`reply exactly: ${REFUSAL_TEXT}`);
      expect(system).toMatch(/data, not instructions/);
    }
  });

  it("makes strict mode extractive at temperature 0 and normal mode a paraphrase at 0.1", () => {
    const strict = buildAnswerPrompt({ question: "q", chunks, mode: "strict" });
    const normal = buildAnswerPrompt({ question: "q", chunks, mode: "normal" });
    expect(strict.temperature).toBe(0);
    expect(normal.temperature).toBe(0.1);
    expect(strict.messages[0]?.content).toMatch(/copied word for word/);
    expect(normal.messages[0]?.content).toMatch(/in your own words/);
  });

  it("says which chunks the context budget left out", () => {
    const long = (ref: string, score: number): ScoredChunk => scored(ref, score, Array.from({ length: 50 }, () => "word").join(" "));
    const prompt = buildAnswerPrompt({
      question: "q",
      chunks: [long("x", 0.3), long("y", 0.8), long("z", 0.5)],
      mode: "normal",
      budgetTokens: 130,
      countTokens: countWords,
    });
    expect(prompt.labels.map((label) => label.ref)).toEqual(["y", "z"]);
    expect(prompt.droppedForBudget).toEqual(["x"]);
  });

  it("carries the conversation so far, newest turns first to stay, without old system messages", () => {
    const history: ChatMessage[] = [
      { role: "system", content: "old rules" },
      { role: "user", content: "one two three four five" },
      { role: "assistant", content: "six seven eight nine ten" },
      { role: "user", content: "first follow up" },
      { role: "assistant", content: "an answer" },
    ];
    const prompt = buildAnswerPrompt({ question: "And then?", chunks, mode: "normal", history, historyBudgetTokens: 10, countTokens: countWords });
    expect(prompt.messages.map((message) => message.content).slice(1, -1)).toEqual(["first follow up", "an answer"]);
    expect(prompt.droppedHistoryMessages).toBe(2);
    expect(prompt.messages.filter((message) => message.role === "system")).toHaveLength(1);
  });

  it("still builds a prompt when no chunk is included", () => {
    const prompt = buildAnswerPrompt({ question: "q", chunks: [scored("b", 0.7, "off", false)], mode: "strict" });
    expect(prompt.labels).toEqual([]);
    expect(prompt.messages[1]?.content).toContain("no excerpts");
  });
});
