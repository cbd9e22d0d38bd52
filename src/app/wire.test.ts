import { describe, expect, it } from "vitest";
import type { AnswerResult, AskEvent } from "./answer/ask.js";
import type { SearchReport, SearchResult } from "./search/search.js";
import { ChunkpadError } from "../core/errors.js";
import {
  createAnswerCollector,
  toAskFailureEvents,
  toAskStreamEvents,
  toDownloadProgressEvent,
  toEmbedProgressEvent,
  toErrorJson,
  toPlainJson,
  toProcessProgressEvent,
  toSearchJson,
  type AskStreamEvent,
} from "./wire.js";

/** Every value reachable from `value`, with its path, to look for what JSON cannot carry. */
function leaves(value: unknown, at = "$"): Array<[string, unknown]> {
  if (Array.isArray(value)) return value.flatMap((item, index) => leaves(item, `${at}[${index}]`));
  if (typeof value === "object" && value !== null && Object.getPrototypeOf(value) === Object.prototype) {
    return Object.entries(value).flatMap(([key, item]) => leaves(item, `${at}.${key}`));
  }
  return [[at, value]];
}

function expectPlainJson(value: unknown): void {
  for (const [at, leaf] of leaves(value)) {
    expect(leaf === null || ["string", "number", "boolean"].includes(typeof leaf), `${at} is ${String(leaf)}`).toBe(true);
  }
  // Round trip: what a face prints is exactly what a reader gets back.
  expect(JSON.parse(JSON.stringify(value))).toEqual(value);
}

const chunkRecord = { ref: "f1:notes.md#1", content: "The river floods.", updatedAt: new Date("2026-01-02T03:04:05Z"), stale: undefined };

const result = (extra: Partial<SearchResult> = {}): SearchResult =>
  ({
    chunk: chunkRecord,
    score: 0.5,
    isIncluded: true,
    ref: "f1:notes.md#1",
    documentId: "d1",
    documentTitle: "Notes",
    relativePath: "notes.md",
    folderId: "f1",
    folderPath: "/docs",
    location: null,
    section: "Rivers",
    snippet: "The river floods.",
    relevancePercent: 50,
    ...extra,
  }) as unknown as SearchResult;

const searchReport: SearchReport = {
  query: "river",
  requestedMode: "auto",
  mode: "keyword",
  fusion: null,
  keywordQuery: '"river"',
  relaxedPhrases: [],
  notices: [],
  coverage: null,
  rerank: null,
  results: [result(), result({ keywordScore: 1.5, pinned: true })],
};

describe("toPlainJson", () => {
  it("turns Dates, Maps, Sets, typed arrays and errors into JSON and leaves undefined fields out", () => {
    const plain = toPlainJson({
      when: new Date("2026-01-02T03:04:05Z"),
      counts: new Map([["pdf", 2]]),
      tags: new Set(["a"]),
      vector: new Float32Array([0.5, 1]),
      failure: new ChunkpadError("NOT_FOUND", "no such chunk"),
      missing: undefined,
      infinite: Number.POSITIVE_INFINITY,
    });
    expect(plain).toEqual({
      when: "2026-01-02T03:04:05.000Z",
      counts: { pdf: 2 },
      tags: ["a"],
      vector: [0.5, 1],
      failure: { code: "NOT_FOUND", message: "no such chunk", retryable: false },
      infinite: null,
    });
    expectPlainJson(plain);
  });
});

describe("report shapes", () => {
  it("tags a search report with its schema and keeps it plain JSON, stable across runs", () => {
    const json = toSearchJson(searchReport);
    expect(json.schema).toBe("chunkpad.search/3");
    expect(json.results[1]).toMatchObject({ keywordScore: 1.5, pinned: true, relativePath: "notes.md" });
    expect("distance" in json.results[0]!).toBe(false);
    expectPlainJson(json);
    expect(JSON.stringify(toSearchJson(searchReport))).toBe(JSON.stringify(json));
  });
});

describe("errors on the wire", () => {
  it("gives the code, the message with its next step, and whether a retry may help", () => {
    expect(toErrorJson(new ChunkpadError("LLM_RATE_LIMITED", "Slow down; try again in a minute."))).toEqual({
      code: "LLM_RATE_LIMITED",
      message: "Slow down; try again in a minute.",
      retryable: true,
    });
    expect(toErrorJson(new TypeError("x is undefined"))).toEqual({ code: "INTERNAL", message: "x is undefined", retryable: false });
    expect(toErrorJson(new ChunkpadError("LLM_BAD_RESPONSE", "odd", { isRetryable: false })).retryable).toBe(true);
  });
});

describe("the ask stream", () => {
  const answer: AnswerResult = {
    question: "How long?",
    text: "Two years [C1].",
    answerMode: "grounded",
    refused: false,
    incomplete: false,
    labels: [{ label: "C1", ref: "f1:notes.md#1", source: "notes.md" }],
    citations: [{ label: "C1", ref: "f1:notes.md#1", source: "notes.md" }],
    invalidCitations: [],
    droppedForBudget: [],
    provider: "anthropic",
    model: "claude",
    conversationId: "c1",
    messageId: "m1",
  } as unknown as AnswerResult;

  const coreEvents: AskEvent[] = [
    { type: "chunks", search: searchReport, chunks: searchReport.results },
    { type: "answer-start", provider: "anthropic", model: "claude", temperature: 0.2, labels: answer.labels },
    { type: "text-delta", text: "Two years " },
    { type: "text-delta", text: "[C1]." },
    { type: "done", answer },
  ];

  it("maps core events to wire events and ends with a final event holding the whole answer", () => {
    const collector = createAnswerCollector("How long?");
    const wire = coreEvents.flatMap((event) => toAskStreamEvents(event, collector));
    expect(wire.map((event) => event.type)).toEqual(["chunks", "answer-start", "text-delta", "text-delta", "citation", "final"]);
    const final = wire.at(-1) as Extract<AskStreamEvent, { type: "final" }>;
    expect(final.answer).toMatchObject({ schema: "chunkpad.answer/3", answer: "Two years [C1].", error: null, refusal: null, usage: null, searchMode: "keyword" });
    expect(final.answer.chunks.map((chunk) => chunk.number)).toEqual([1, 2]);
    for (const event of wire) expectPlainJson(event);
  });

  it("puts an error event before the final one when the answer stream failed", () => {
    const collector = createAnswerCollector("How long?");
    const failed = { ...answer, incomplete: true, error: new ChunkpadError("LLM_STREAM_INTERRUPTED", "The answer was cut off; ask again.") };
    const wire = toAskStreamEvents({ type: "done", answer: failed }, collector);
    expect(wire.slice(-2)).toMatchObject([
      { type: "error", error: { code: "LLM_STREAM_INTERRUPTED", retryable: true } },
      { type: "final", answer: { incomplete: true, error: { code: "LLM_STREAM_INTERRUPTED" } } },
    ]);
  });

  it("ends with error and final events when the core threw before answering", () => {
    const collector = createAnswerCollector("How long?");
    const wire = toAskFailureEvents(new ChunkpadError("LLM_NOT_CONFIGURED", "Set up a provider."), collector);
    expect(wire).toMatchObject([
      { type: "error", error: { code: "LLM_NOT_CONFIGURED" } },
      { type: "final", answer: { question: "How long?", answer: "", incomplete: true, error: { code: "LLM_NOT_CONFIGURED" } } },
    ]);
    for (const event of wire) expectPlainJson(event);
  });
});

describe("progress events", () => {
  it("gives every progress callback a typed, plain-JSON event with null for a missing value", () => {
    const events = [
      toProcessProgressEvent({ phase: "scan", done: 0, total: 0 }),
      toProcessProgressEvent({ phase: "process", done: 1, total: 3, file: "a.pdf" }),
      toEmbedProgressEvent({ phase: "embed", done: 10, total: 20, chunksPerSecond: 5 }),
      toEmbedProgressEvent({ phase: "sync", folder: "/docs" }),
      toDownloadProgressEvent({ file: "onnx/model.onnx", bytesDone: 5, bytesTotal: null, percent: 0 }),
    ];
    expect(events.map((event) => event.type)).toEqual(["process-progress", "process-progress", "embed-progress", "embed-progress", "download-progress"]);
    expect(events[0]).toEqual({ type: "process-progress", phase: "scan", done: 0, total: 0, file: null });
    for (const event of events) expectPlainJson(event);
  });
});
