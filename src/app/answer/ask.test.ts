import { describe, expect, it } from "vitest";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { ChunkpadError } from "../../core/errors.js";
import type { ChatMessage, ChatOptions, ChatStreamPart, LlmClient } from "../../core/types.js";
import { REFUSAL_TEXT } from "../../rag/guardrail.js";
import { openChatStore, type ChatStore } from "../../store/index.js";
import { askQuestion, type AskDependencies, type AskEvent } from "./ask.js";
import { createChatSession } from "./ask-session.js";
import { defaultConfig, type ChunkpadConfig } from "../settings/config.js";
import type { LlmSelection } from "./llm-setup.js";
import type { SearchMode, SearchOptions, SearchReport, SearchResult } from "../search/search.js";

// Fakes implement the interfaces and record their calls; the chat database is real SQLite.

function searchResult(ref: string, content: string, extra: Partial<SearchResult> = {}): SearchResult {
  const relativePath = ref.slice(ref.indexOf(":") + 1, ref.lastIndexOf("#"));
  return {
    chunk: {
      ref, documentId: `doc-${relativePath}`, folderId: "f", relativePath, ordinal: 1,
      title: relativePath, content, contentHash: "h", included: true,
    },
    score: 1,
    isIncluded: true,
    ref,
    documentId: `doc-${relativePath}`,
    documentTitle: relativePath,
    relativePath,
    folderId: "f",
    folderPath: "/docs",
    location: null,
    section: null,
    snippet: content,
    relevancePercent: 100,
    ...extra,
  };
}

interface FakeSearch {
  calls: Array<{ question: string; options: SearchOptions }>;
  search: AskDependencies["search"];
}

function fakeSearch(results: SearchResult[], mode: SearchMode = "keyword"): FakeSearch {
  const calls: FakeSearch["calls"] = [];
  return {
    calls,
    search: async (question, options) => {
      calls.push({ question, options });
      const report: SearchReport = { query: question, requestedMode: "auto", mode, fusion: null, keywordQuery: null, relaxedPhrases: [], notices: [], coverage: null, rerank: null, results: results.map((result) => ({ ...result })) };
      return report;
    },
  };
}

interface FakeLlm {
  /** Every chatStream call: the messages and options it was given. */
  calls: Array<{ messages: ChatMessage[]; options: ChatOptions }>;
  selections: LlmSelection[];
  llm: AskDependencies["llm"];
}

/** Answers each call with the next scripted list of parts (the last one repeats). */
function fakeLlm(...scripts: ChatStreamPart[][]): FakeLlm {
  const calls: FakeLlm["calls"] = [];
  const selections: LlmSelection[] = [];
  const client = (selection: LlmSelection): LlmClient => ({
    provider: selection.provider,
    model: selection.model,
    chat: () => Promise.reject(new ChunkpadError("INTERNAL", "not used")),
    chatStream(messages, options = {}) {
      calls.push({ messages, options });
      const parts = scripts[Math.min(calls.length - 1, scripts.length - 1)] ?? [];
      return (async function* () {
        yield* parts;
      })();
    },
  });
  return {
    calls,
    selections,
    llm: {
      select: async (choice = {}) => ({ provider: choice.provider ?? "anthropic", model: choice.model ?? "claude-test", chosenBy: choice.provider ? "option" : "automatic" }),
      client: async (selection) => {
        selections.push(selection);
        return client(selection);
      },
    },
  };
}

function textAnswer(...deltas: string[]): ChatStreamPart[] {
  return [...deltas.map((text) => ({ type: "text-delta" as const, text })), { type: "finish", reason: "stop" }];
}

function tempChatStore(): ChatStore {
  const directory = fs.mkdtempSync(path.join(os.tmpdir(), "chunkpad-ask-"));
  return openChatStore({ path: path.join(directory, "chunkpad_chat.db") });
}

function dependencies(search: FakeSearch, llm: FakeLlm, chats: ChatStore, generation: Partial<ChunkpadConfig["generation"]> = {}): AskDependencies {
  const config = defaultConfig();
  config.generation = { ...config.generation, ...generation };
  return { search: search.search, getConfig: () => config, llm: llm.llm, chats: () => chats };
}

async function collect<T>(events: AsyncIterable<T>): Promise<T[]> {
  const all: T[] = [];
  for await (const event of events) all.push(event);
  return all;
}

function answerOf(events: AskEvent[]) {
  const done = events.find((event) => event.type === "done");
  if (done?.type !== "done") throw new Error("no done event");
  return done.answer;
}

const userPrompt = (call: { messages: ChatMessage[] } | undefined): string => call?.messages.at(-1)?.content ?? "";

const WARRANTY = searchResult("f:warranty.md#1", "The warranty lasts two years from the date of purchase.");
const RETURNS = searchResult("f:returns.md#1", "Returns are accepted within 30 days; the warranty does not cover misuse.", { score: 0.6, relevancePercent: 60 });

describe("askQuestion", () => {
  it("streams a cited answer from the chunks found, and stores question and answer", async () => {
    const chats = tempChatStore();
    const llm = fakeLlm(textAnswer("The warranty lasts ", "two years [C1]."));
    const events = await collect(askQuestion(dependencies(fakeSearch([WARRANTY, RETURNS]), llm, chats), "How long is the warranty?"));

    expect(events.map((event) => event.type)).toEqual(["chunks", "answer-start", "text-delta", "text-delta", "done"]);
    const answer = answerOf(events);
    expect(answer).toMatchObject({ text: "The warranty lasts two years [C1].", refused: false, incomplete: false, invalidCitations: [], answerMode: "normal" });
    expect(answer.citations.map((label) => [label.label, label.ref, label.source])).toEqual([["C1", "f:warranty.md#1", "warranty.md"]]);
    expect(userPrompt(llm.calls[0])).toContain("[C1] Source: warranty.md\nThe warranty lasts two years");
    expect(llm.calls[0]?.options.temperature).toBe(0.1);

    const stored = await chats.getConversation(answer.conversationId ?? "");
    expect(stored?.title).toBe("How long is the warranty?");
    expect(stored?.messages.map((message) => [message.role, message.content, message.chunkRefs, message.incomplete])).toEqual([
      ["user", "How long is the warranty?", ["f:warranty.md#1", "f:returns.md#1"], false],
      ["assistant", "The warranty lasts two years [C1].", ["f:warranty.md#1", "f:returns.md#1"], false],
    ]);
    expect(stored?.messages[1]).toMatchObject({ provider: "anthropic", model: "claude-test" });
  });

  it("refuses without calling the LLM when the best chunk is below the floor, and still shows the chunks", async () => {
    const llm = fakeLlm(textAnswer("never"));
    // The fused score of the best keyword hit is always 1.0; only 1 of the question's 5 search words is in it.
    const events = await collect(askQuestion(dependencies(fakeSearch([WARRANTY]), llm, tempChatStore()), "penguins survive antarctic winter warranty"));
    expect(events.map((event) => event.type)).toEqual(["chunks", "refused", "done"]);
    expect(events[0]).toMatchObject({ chunks: [{ ref: "f:warranty.md#1" }] });
    expect(answerOf(events)).toMatchObject({ text: REFUSAL_TEXT, refused: true, refusal: { reason: "below-similarity-floor", bestSimilarity: 0.2 } });
    expect(llm.calls).toHaveLength(0);
    expect(llm.selections).toHaveLength(0);
  });

  it("says what to do about a refusal as steps, and the floor it suggests answers the question", async () => {
    const question = "penguins survive antarctic winter warranty";
    const refused = answerOf(await collect(askQuestion(dependencies(fakeSearch([WARRANTY]), fakeLlm(), tempChatStore()), question)));
    expect(refused.refusal?.message).toMatch(/below the \d+% answer floor/);
    expect(refused.refusal?.nextSteps).toEqual([{ action: "rephrase" }, { action: "change-setting", key: "generation.minSimilarity", value: "0.20" }]);
    const suggested = refused.refusal?.nextSteps.find((step) => step.action === "change-setting");
    const lowered = { minSimilarity: Number(suggested?.action === "change-setting" ? suggested.value : NaN) };
    const answered = answerOf(await collect(askQuestion(dependencies(fakeSearch([WARRANTY]), fakeLlm(textAnswer("Two years [C1].")), tempChatStore(), lowered), question)));
    expect(answered).toMatchObject({ refused: false, text: "Two years [C1]." });
    // A vector floor of its own is another scale: the step names the setting without a value.
    const ownVectorFloor = answerOf(await collect(askQuestion(dependencies(fakeSearch([{ ...WARRANTY, distance: 0.9 }], "vector"), fakeLlm(), tempChatStore(), { minVectorSimilarity: 0.9 }), question)));
    expect(ownVectorFloor.refusal?.nextSteps).toEqual([{ action: "rephrase" }, { action: "change-setting", key: "generation.minSimilarity" }]);
  });

  it("judges vector and hybrid searches by vector similarity too", async () => {
    const near = { ...WARRANTY, distance: 0.3 };
    const far = { ...WARRANTY, distance: 0.9 };
    const question = "penguins survive antarctic winter warranty";
    const run = (result: SearchResult, mode: SearchMode) => collect(askQuestion(dependencies(fakeSearch([result], mode), fakeLlm(textAnswer("ok [C1]")), tempChatStore()), question));
    expect(answerOf(await run(near, "hybrid")).refused).toBe(false);
    expect(answerOf(await run(far, "hybrid")).refused).toBe(true);
    expect(answerOf(await run(far, "vector")).refused).toBe(true);
  });

  it("sends strict mode at temperature 0, from the option or the config", async () => {
    const llm = fakeLlm(textAnswer("Two years [C1]."));
    await collect(askQuestion(dependencies(fakeSearch([WARRANTY]), llm, tempChatStore()), "warranty", { strict: true }));
    await collect(askQuestion(dependencies(fakeSearch([WARRANTY]), llm, tempChatStore(), { mode: "strict" }), "warranty"));
    expect(llm.calls.map((call) => call.options.temperature)).toEqual([0, 0]);
    expect(llm.calls[0]?.messages[0]?.content).toContain("copied word for word");
  });

  it("flags citations the model invented instead of showing them as sources", async () => {
    const llm = fakeLlm(textAnswer("Two years [C1][C7]."));
    const answer = answerOf(await collect(askQuestion(dependencies(fakeSearch([WARRANTY, RETURNS]), llm, tempChatStore()), "warranty")));
    expect(answer.citations.map((label) => label.label)).toEqual(["C1"]);
    expect(answer.invalidCitations).toEqual(["C7"]);
  });

  it("keeps a partial answer cut off mid-stream, marked incomplete, in the answer and in the database", async () => {
    const chats = tempChatStore();
    const cut = new ChunkpadError("LLM_STREAM_INTERRUPTED", "The answer was cut off mid-stream; the partial answer is kept.");
    const llm = fakeLlm([{ type: "text-delta", text: "The warranty lasts " }, { type: "error", error: cut }]);
    const answer = answerOf(await collect(askQuestion(dependencies(fakeSearch([WARRANTY]), llm, chats), "warranty")));
    expect(answer).toMatchObject({ text: "The warranty lasts ", incomplete: true, error: { code: "LLM_STREAM_INTERRUPTED" } });
    expect((await chats.getConversation(answer.conversationId ?? ""))?.messages[1]).toMatchObject({ content: "The warranty lasts ", incomplete: true });
  });

  it("stores nothing for an answer that failed before any text (a rejected key)", async () => {
    const chats = tempChatStore();
    const llm = fakeLlm([{ type: "error", error: new ChunkpadError("LLM_AUTH", "Anthropic rejected the API key (401).") }]);
    const answer = answerOf(await collect(askQuestion(dependencies(fakeSearch([WARRANTY]), llm, chats), "warranty")));
    expect(answer).toMatchObject({ text: "", incomplete: true, error: { code: "LLM_AUTH" }, conversationId: null });
    expect(await chats.listConversations()).toEqual([]);
  });

  it("passes the provider and model asked for", async () => {
    const llm = fakeLlm(textAnswer("ok [C1]"));
    await collect(askQuestion(dependencies(fakeSearch([WARRANTY]), llm, tempChatStore()), "warranty", { provider: "ollama", model: "qwen2.5" }));
    expect(llm.selections).toEqual([{ provider: "ollama", model: "qwen2.5", chosenBy: "option" }]);
  });

  it("rejects an empty question before searching", async () => {
    const search = fakeSearch([WARRANTY]);
    await expect(collect(askQuestion(dependencies(search, fakeLlm(), tempChatStore()), "  "))).rejects.toMatchObject({ code: "INVALID_ARGUMENT" });
    expect(search.calls).toHaveLength(0);
  });
});

describe("chat session", () => {
  it("regenerates from the chunks still switched on, without searching again", async () => {
    const search = fakeSearch([WARRANTY, RETURNS]);
    const llm = fakeLlm(textAnswer("Two years [C1]."), textAnswer("Misuse is not covered [C1]."));
    const chats = tempChatStore();
    const session = await createChatSession(dependencies(search, llm, chats));
    await collect(session.ask("What does the warranty cover?"));
    expect(session.toggle(1).isIncluded).toBe(false);
    const answer = answerOf(await collect(session.regenerate()));

    expect(search.calls).toHaveLength(1);
    expect(userPrompt(llm.calls[0])).toContain("The warranty lasts two years");
    expect(userPrompt(llm.calls[1])).not.toContain("The warranty lasts two years");
    expect(userPrompt(llm.calls[1])).toContain("[C1] Source: returns.md");
    // The regenerated answer's [C1] is the returns chunk.
    expect(answer.citations.map((label) => label.ref)).toEqual(["f:returns.md#1"]);
    const stored = await chats.getConversation(session.conversationId ?? "");
    expect(stored?.messages.map((message) => message.role)).toEqual(["user", "assistant", "assistant"]);
    expect(stored?.messages[2]?.chunkRefs).toEqual(["f:returns.md#1"]);
  });

  it("puts the earlier turns in the prompt, citations removed, and forgets them on reset", async () => {
    const llm = fakeLlm(textAnswer("Two years [C1]."), textAnswer("Thirty days [C2]."), textAnswer("Fresh."));
    const session = await createChatSession(dependencies(fakeSearch([WARRANTY, RETURNS]), llm, tempChatStore()));
    await collect(session.ask("How long is the warranty?"));
    await collect(session.ask("And how long for returns?"));
    expect(llm.calls[1]?.messages.slice(1, 3)).toEqual([
      { role: "user", content: "How long is the warranty?" },
      { role: "assistant", content: "Two years." },
    ]);
    const first = session.conversationId;
    session.reset();
    await collect(session.ask("How long is the warranty?"));
    expect(llm.calls[2]?.messages.map((message) => message.role)).toEqual(["system", "user"]);
    expect(session.conversationId).not.toBe(first);
  });

  it("searches with the pinned documents and the chosen provider", async () => {
    const search = fakeSearch([WARRANTY]);
    const llm = fakeLlm(textAnswer("ok [C1]"));
    const session = await createChatSession(dependencies(search, llm, tempChatStore()));
    session.pin("returns.md");
    session.setProvider("openai", "gpt-test");
    await collect(session.ask("warranty"));
    session.unpin();
    await collect(session.ask("warranty"));
    expect(search.calls.map((call) => call.options.pins)).toEqual([["returns.md"], []]);
    expect(llm.selections[0]).toMatchObject({ provider: "openai", model: "gpt-test" });
  });

  it("refuses without calling the LLM when every chunk is switched off", async () => {
    const llm = fakeLlm(textAnswer("Two years [C1]."));
    const session = await createChatSession(dependencies(fakeSearch([WARRANTY]), llm, tempChatStore()));
    await collect(session.ask("How long is the warranty?"));
    session.toggle(1);
    const events = await collect(session.regenerate());
    expect(events[0]).toMatchObject({ type: "refused", reason: "no-included-chunks", nextSteps: [{ action: "switch-sources-on" }], message: "Every chunk is switched off." });
    expect(llm.calls).toHaveLength(1);
  });

  it("says what to do for a chunk number that is not there or a regenerate before any question", async () => {
    const session = await createChatSession(dependencies(fakeSearch([WARRANTY]), fakeLlm(), tempChatStore()));
    expect(() => session.toggle(1)).toThrow(/ask a question first/);
    await expect(collect(session.regenerate())).rejects.toMatchObject({ code: "INVALID_ARGUMENT" });
  });

  it("continues a stored conversation with its turns", async () => {
    const chats = tempChatStore();
    const llm = fakeLlm(textAnswer("Two years [C1]."), textAnswer("Yes."));
    const first = await createChatSession(dependencies(fakeSearch([WARRANTY]), llm, chats));
    await collect(first.ask("How long is the warranty?"));
    const again = await createChatSession(dependencies(fakeSearch([WARRANTY]), llm, chats), { conversationId: first.conversationId ?? "" });
    await collect(again.ask("Is that from purchase?"));
    expect(llm.calls[1]?.messages.slice(1, 3).map((message) => message.content)).toEqual(["How long is the warranty?", "Two years."]);
    expect((await chats.getConversation(first.conversationId ?? ""))?.messages).toHaveLength(4);
  });

  it("keeps the question's sources, relevance and toggles in the chat store; a reopened chat regenerates from them", async () => {
    const chats = tempChatStore();
    const search = fakeSearch([WARRANTY, RETURNS], "hybrid");
    const llm = fakeLlm(textAnswer("Two years [C1]."), textAnswer("Misuse [C1]."), textAnswer("Two years again [C1]."));
    const first = await createChatSession(dependencies(search, llm, chats));
    await collect(first.ask("What does the warranty cover?"));
    first.toggle(1);
    await collect(first.regenerate());
    const [question] = (await chats.getConversation(first.conversationId ?? ""))?.messages ?? [];
    expect(question?.sources).toEqual({
      searchMode: "hybrid",
      chunks: [
        { ref: "f:warranty.md#1", included: false, scores: { score: 1 } },
        { ref: "f:returns.md#1", included: true, scores: { score: 0.6 } },
      ],
    });

    // Another process (a restarted server): the chunks come back from the store as they are now.
    const restored = { ...dependencies(search, llm, chats), restoreSources: async () => ({ searchMode: "hybrid" as const, chunks: [{ ...WARRANTY, isIncluded: false }, { ...RETURNS }] }) };
    const again = await createChatSession(restored, { conversationId: first.conversationId ?? "" });
    expect(again.chunks.map((chunk) => chunk.isIncluded)).toEqual([false, true]);
    again.setIncluded([1]);
    const answer = answerOf(await collect(again.regenerate()));
    expect(search.calls).toHaveLength(1);
    expect(userPrompt(llm.calls[2])).toContain("The warranty lasts two years");
    expect(userPrompt(llm.calls[2])).not.toContain("Returns are accepted");
    expect(answer.citations.map((label) => label.ref)).toEqual(["f:warranty.md#1"]);
    const stored = (await chats.getConversation(first.conversationId ?? ""))?.messages ?? [];
    expect(stored[0]?.sources?.chunks.map((chunk) => chunk.included)).toEqual([true, false]);
    expect(() => again.setIncluded([3])).toThrow(/from 1 to 2/);
  });
});
