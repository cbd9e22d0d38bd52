/**
 * Wire shapes: the one JSON form of each thing a face shows. `--json` prints them, the HTTP
 * API's SSE stream and the MCP server will send the same ones. Every shape is plain JSON (no
 * Dates, Maps, class instances or undefined) and carries a version tag: reports a top-level
 * `schema` ("chunkpad.search/3"), stream and progress events a `type`. A field is either
 * always present (null when it has no value) or, when marked optional, left out: never
 * `undefined`. A breaking change bumps the version number. Documented in docs/wire-shapes.md.
 *
 * Types only are imported from app/: the converters are pure and run in any face.
 */
import type { ArchiveProgress } from "./archive/archive-format.js";
import type { AnswerResult, AskEvent } from "./answer/ask.js";
import type { EmbedProgress, EmbedReport } from "./embed/embed-selected.js";
import type { ProcessProgress, ProcessReport } from "./process/process-folder.js";
import type { ReviewReport } from "./review/review.js";
import type { SearchMode, SearchReport, SearchResult } from "./search/search.js";
import type { SyncReport } from "./sync/sync.js";
import type { WatchEvent } from "./watch/watch.js";
import type { ExportReport } from "./archive/export.js";
import type { ImportReport } from "./archive/import.js";
import type { DownloadProgress } from "../hub/download.js";
import { describeError, errorOutcome, isChunkpadError, type ErrorCode } from "../core/errors.js";
import type { NextStep, Notice } from "../core/next-step.js";

export const WIRE_SCHEMAS = {
  search: "chunkpad.search/3",
  process: "chunkpad.process/1",
  embed: "chunkpad.embed/2",
  review: "chunkpad.review/1",
  sync: "chunkpad.sync/1",
  watch: "chunkpad.watch/1",
  export: "chunkpad.export/1",
  import: "chunkpad.import/1",
  answer: "chunkpad.answer/3",
  error: "chunkpad.error/1",
} as const;

/** A value as JSON carries it. */
export type JsonValue = string | number | boolean | null | JsonValue[] | { [key: string]: JsonValue };

/**
 * Copies a value into plain JSON: undefined fields are left out, Dates become ISO strings,
 * Maps objects, Sets and typed arrays arrays, errors their wire form; non-finite numbers null.
 */
export function toPlainJson(value: unknown): JsonValue {
  if (value === null || value === undefined) return null;
  if (typeof value === "string" || typeof value === "boolean") return value;
  if (typeof value === "number") return Number.isFinite(value) ? value : null;
  if (typeof value === "bigint") return value.toString();
  if (value instanceof Date) return value.toISOString();
  if (value instanceof Error) return toErrorJson(value) as unknown as JsonValue;
  if (value instanceof Map) return toPlainJson(Object.fromEntries(value));
  if (value instanceof Set) return [...value].map(toPlainJson);
  if (ArrayBuffer.isView(value)) return Array.from(value as unknown as ArrayLike<number>, (item) => toPlainJson(item));
  if (Array.isArray(value)) return value.map(toPlainJson);
  if (typeof value === "object") {
    const plain: { [key: string]: JsonValue } = {};
    for (const [key, item] of Object.entries(value)) {
      if (item !== undefined && typeof item !== "function") plain[key] = toPlainJson(item);
    }
    return plain;
  }
  return null;
}

/** toPlainJson for a value whose type already describes its JSON form (no Dates or Maps inside). */
function plain<Value>(value: Value): Value {
  return toPlainJson(value) as unknown as Value;
}

// ---------------------------------------------------------------------------------------------
// Errors

export interface ErrorJson {
  code: ErrorCode;
  /** What went wrong and what to do next, for a person. */
  message: string;
  /** True when the same request may succeed later unchanged. */
  retryable: boolean;
  /** What the user can do about it (the message names no command; each face words these). Left out when nothing. */
  nextSteps?: NextStep[];
}

/** Any thrown value as a face reports it; a non-Chunkpad error is INTERNAL. */
export function toErrorJson(error: unknown): ErrorJson {
  const outcome = errorOutcome(error);
  const retryable = typeof error === "object" && error !== null && (error as { isRetryable?: unknown }).isRetryable === true;
  const nextSteps = isChunkpadError(error) ? error.nextSteps : undefined;
  return { code: outcome.code, message: describeError(error), retryable: retryable || outcome.retryable, ...(nextSteps && nextSteps.length > 0 ? { nextSteps: toPlainJson(nextSteps) as unknown as NextStep[] } : {}) };
}

// ---------------------------------------------------------------------------------------------
// Reports

type Tagged<Schema extends string, Report> = { schema: Schema } & { [Key in keyof Report]: Exclude<Report[Key], undefined> };

export type SearchJson = Tagged<typeof WIRE_SCHEMAS.search, SearchReport>;
export type ProcessJson = Tagged<typeof WIRE_SCHEMAS.process, ProcessReport>;
export type EmbedJson = Tagged<typeof WIRE_SCHEMAS.embed, EmbedReport>;
export type ReviewJson = Tagged<typeof WIRE_SCHEMAS.review, ReviewReport>;
export type SyncJson = Tagged<typeof WIRE_SCHEMAS.sync, SyncReport>;

function tagged<Schema extends string, Report>(schema: Schema, report: Report): Tagged<Schema, Report> {
  return { schema, ...(toPlainJson(report) as object) } as Tagged<Schema, Report>;
}

export const toSearchJson = (report: SearchReport): SearchJson => tagged(WIRE_SCHEMAS.search, report);
export const toProcessJson = (report: ProcessReport): ProcessJson => tagged(WIRE_SCHEMAS.process, report);
export const toEmbedJson = (report: EmbedReport): EmbedJson => tagged(WIRE_SCHEMAS.embed, report);
export const toReviewJson = (report: ReviewReport): ReviewJson => tagged(WIRE_SCHEMAS.review, report);
export const toSyncJson = (report: SyncReport): SyncJson => tagged(WIRE_SCHEMAS.sync, report);

export type ExportJson = Tagged<typeof WIRE_SCHEMAS.export, ExportReport>;
export type ImportJson = Tagged<typeof WIRE_SCHEMAS.import, ImportReport & { embedded: EmbedReport | null }>;
export const toExportJson = (report: ExportReport): ExportJson => tagged(WIRE_SCHEMAS.export, report);
export const toImportJson = (report: ImportReport & { embedded: EmbedReport | null }): ImportJson => tagged(WIRE_SCHEMAS.import, report);

/** One line of `watch --json` (NDJSON): what the watcher saw or did, tagged like a report. */
export type WatchEventJson = Tagged<typeof WIRE_SCHEMAS.watch, WatchEvent>;
export const toWatchEventJson = (event: WatchEvent): WatchEventJson => tagged(WIRE_SCHEMAS.watch, event);

// ---------------------------------------------------------------------------------------------
// Ask: one answer as a document (`ask --json`), or as a stream of events (SSE, `ask --ndjson`)

export interface ChunkJson {
  /** 1-based, the number shown next to the chunk (and [C1] when it is in the prompt). */
  number: number;
  ref: string;
  relativePath: string;
  location: string | null;
  section: string | null;
  relevancePercent: number;
  included: boolean;
  pinned: boolean;
}

type CitationJson = AnswerResult["citations"][number];

export interface AnswerJson {
  schema: typeof WIRE_SCHEMAS.answer;
  question: string;
  searchMode: SearchMode | null;
  notices: Notice[];
  chunks: ChunkJson[];
  answerMode: AnswerResult["answerMode"] | null;
  answer: string;
  refused: boolean;
  refusal: AnswerResult["refusal"] | null;
  /** True when the stream was cut off; `answer` is what arrived and `error` says why. */
  incomplete: boolean;
  error: ErrorJson | null;
  citations: CitationJson[];
  invalidCitations: string[];
  labels: CitationJson[];
  usage: AnswerResult["usage"] | null;
  provider: string | null;
  model: string | null;
  conversationId: string | null;
}

export type AskStreamEvent =
  | { type: "chunks"; searchMode: SearchMode; notices: Notice[]; chunks: ChunkJson[] }
  | { type: "answer-start"; provider: string; model: string }
  | { type: "text-delta"; text: string }
  | { type: "refused"; reason: string; message: string; nextSteps: NextStep[]; text: string }
  | { type: "citation"; citation: CitationJson }
  | { type: "error"; error: ErrorJson }
  | { type: "final"; answer: AnswerJson };

export function toChunkJson(chunk: SearchResult & { isIncluded?: boolean; pinned?: boolean }, index: number): ChunkJson {
  return {
    number: index + 1,
    ref: chunk.ref,
    relativePath: chunk.relativePath,
    location: chunk.location,
    section: chunk.section,
    relevancePercent: chunk.relevancePercent,
    included: chunk.isIncluded ?? true,
    pinned: chunk.pinned === true,
  };
}

/** Folds an ask stream into what one answer document needs. */
export interface AnswerCollector {
  add(event: AskEvent): void;
  result(): AnswerJson;
}

export function createAnswerCollector(question: string): AnswerCollector {
  let chunks: ChunkJson[] = [];
  let searchMode: SearchMode | null = null;
  let notices: Notice[] = [];
  let answer: AnswerResult | undefined;
  return {
    add(event) {
      if (event.type === "chunks") {
        chunks = event.chunks.map(toChunkJson);
        searchMode = event.search.mode;
        notices = [...event.search.notices];
      }
      if (event.type === "done") answer = event.answer;
    },
    result: () => ({
      schema: WIRE_SCHEMAS.answer,
      question: answer?.question ?? question,
      searchMode,
      notices,
      chunks,
      answerMode: answer?.answerMode ?? null,
      answer: answer?.text ?? "",
      refused: answer?.refused ?? false,
      refusal: answer?.refusal ? plain(answer.refusal) : null,
      incomplete: answer?.incomplete ?? false,
      error: answer?.error ? toErrorJson(answer.error) : null,
      citations: plain(answer?.citations ?? []),
      invalidCitations: answer?.invalidCitations ?? [],
      labels: plain(answer?.labels ?? []),
      usage: answer?.usage ? plain(answer.usage) : null,
      provider: answer?.provider ?? null,
      model: answer?.model ?? null,
      conversationId: answer?.conversationId ?? null,
    }),
  };
}

/**
 * The wire events for one core ask event. The core's `done` becomes a `citation` per cited
 * label, an `error` when the stream failed, and always a `final` last; `collector` holds what
 * came before, since the final event repeats the whole answer.
 */
export function toAskStreamEvents(event: AskEvent, collector: AnswerCollector): AskStreamEvent[] {
  collector.add(event);
  switch (event.type) {
    case "chunks":
      return [{ type: "chunks", searchMode: event.search.mode, notices: [...event.search.notices], chunks: event.chunks.map(toChunkJson) }];
    case "answer-start":
      return [{ type: "answer-start", provider: event.provider, model: event.model }];
    case "text-delta":
      return [{ type: "text-delta", text: event.text }];
    case "refused":
      return [{ type: "refused", reason: event.reason, message: event.message, nextSteps: event.nextSteps, text: event.text }];
    case "done": {
      const final = collector.result();
      return [
        ...final.citations.map((citation): AskStreamEvent => ({ type: "citation", citation })),
        ...(final.error ? [{ type: "error", error: final.error } as const] : []),
        { type: "final", answer: final },
      ];
    }
  }
}

/** The events a stream ends with when the core threw instead of finishing. */
export function toAskFailureEvents(error: unknown, collector: AnswerCollector): AskStreamEvent[] {
  const errorJson = toErrorJson(error);
  return [
    { type: "error", error: errorJson },
    { type: "final", answer: { ...collector.result(), incomplete: true, error: errorJson } },
  ];
}

// ---------------------------------------------------------------------------------------------
// Progress

export type ProgressEvent =
  | { type: "process-progress"; phase: ProcessProgress["phase"]; done: number; total: number; file: string | null }
  | { type: "embed-progress"; phase: "sync"; folder: string }
  | { type: "embed-progress"; phase: "model"; status: JsonValue }
  | { type: "embed-progress"; phase: "embed"; done: number; total: number; chunksPerSecond: number }
  | { type: "download-progress"; file: string; bytesDone: number; bytesTotal: number | null; percent: number }
  | { type: "archive-progress"; stage: ArchiveProgress["stage"]; done: number; total: number; folder: string | null };

export function toProcessProgressEvent(progress: ProcessProgress): ProgressEvent {
  return { type: "process-progress", phase: progress.phase, done: progress.done, total: progress.total, file: progress.file ?? null };
}

export function toEmbedProgressEvent(progress: EmbedProgress): ProgressEvent {
  switch (progress.phase) {
    case "sync":
      return { type: "embed-progress", phase: "sync", folder: progress.folder };
    case "model":
      return { type: "embed-progress", phase: "model", status: toPlainJson(progress.status) };
    case "embed":
      return { type: "embed-progress", phase: "embed", done: progress.done, total: progress.total, chunksPerSecond: progress.chunksPerSecond };
  }
}

export function toDownloadProgressEvent(progress: DownloadProgress): ProgressEvent {
  return { type: "download-progress", file: progress.file, bytesDone: progress.bytesDone, bytesTotal: progress.bytesTotal, percent: progress.percent };
}

export function toArchiveProgressEvent(progress: ArchiveProgress): ProgressEvent {
  return { type: "archive-progress", stage: progress.stage, done: progress.done, total: progress.total, folder: progress.folder };
}
