/**
 * The wire shapes the app reads, taken from the core's own types (`import type`, nothing of the
 * core is bundled): a field renamed there breaks this build. `Json<T>` is what JSON makes of a
 * type (dates become strings). Shapes the server assembles itself come from its own types
 * (src/server/wire-types.ts), which its routes are built as.
 */
import type {
  AnswerJson, AskStreamEvent, ChunkJson, ConflictDiff as CoreConflictDiff, ChunkState as CoreChunkState, ChunkTreeNode, ChunkTreeReport as CoreTreeReport, ChunkWithNeighbours, ConversationSummary as CoreConversationSummary,
  ConversationView, KeyDescription as CoreKeyDescription, MessageView as CoreMessageView, ProviderStatus, SearchJson, StoredCitation,
  FolderListing, ExportJson, ImportJson, NextStep, Notice as CoreNotice, ErrorJson,
} from "../../../src/index.js";
import type { FoldersJson, JobEndEvent as ServerJobEndEvent, JobJson, JobStreamEvent as ServerJobStreamEvent, SettingJson, StatusJson } from "../../../src/server/wire-types.js";

export type Json<T> = T extends Date ? string : T extends ReadonlyArray<infer Item> ? Array<Json<Item>> : T extends object ? { [K in keyof T]: Json<T[K]> } : T;

export type Folder = Json<FoldersJson["folders"][number]>;
export type ChunkState = Json<CoreChunkState>;
export type ChunkTreeReport = Json<CoreTreeReport>;
export type ChunkTreeFolder = Extract<Json<ChunkTreeNode>, { type: "folder" }>;
export type ChunkTreeFile = Extract<Json<ChunkTreeNode>, { type: "file" }>;
export type ChunkView = Json<ChunkWithNeighbours>;
export type SearchReport = Json<SearchJson>;
export type SearchResult = SearchReport["results"][number];
export type Provider = Json<ProviderStatus>;
export type KeyDescription = Json<CoreKeyDescription>;
export type ConversationSummary = Json<CoreConversationSummary>;
export type Conversation = Json<ConversationView>;
export type MessageView = Json<CoreMessageView>;
export type Citation = Json<StoredCitation>;
export type Answer = Json<AnswerJson>;
export type AnswerChunk = Json<ChunkJson>;
export type AskEvent = Json<AskStreamEvent>;
export type { NextStep };
export type Notice = Json<CoreNotice>;
export type ApiErrorBody = Json<ErrorJson>;
export type ConflictDiff = Json<CoreConflictDiff>;
/** What an export or import job ends with (its job-done result). */
export type ExportReport = Json<ExportJson>;
export type ImportReport = Json<ImportJson>;

/** Shapes the server assembles itself: its own types (server/wire-types.ts), never restated here. */
export type Status = StatusJson;
export type Job = JobJson;
/** A job's events as its stream carries them, and its last one: the server's own types. */
export type JobStreamEvent = Json<ServerJobStreamEvent>;
export type JobEndEvent = Json<ServerJobEndEvent>;
/** What following a job needs: a started job, or one GET /api/status lists as running. */
export type JobHandle = Pick<JobJson, "id" | "kind" | "events">;
export type SettingRow = Json<SettingJson>;
/** GET /api/browse: the folder picker's listing (app/files). */
export type Listing = Json<FolderListing>;
