/**
 * The wire shapes the app reads, taken from the core's own types (`import type`, nothing of the
 * core is bundled): a field renamed there breaks this build. `Json<T>` is what JSON makes of a
 * type (dates become strings). Shapes the server assembles itself are written out below, each
 * next to the route that sends it.
 */
import type {
  AnswerJson, AskStreamEvent, ChunkJson, ConflictDiff as CoreConflictDiff, ChunkState as CoreChunkState, ChunkTreeNode, ChunkTreeReport as CoreTreeReport, ChunkWithNeighbours, ConversationSummary as CoreConversationSummary,
  ConversationView, FolderSummary, KeyDescription as CoreKeyDescription, MessageView as CoreMessageView, ProviderStatus, SearchJson, StoredCitation,
} from "../../../src/index.js";

export type Json<T> = T extends Date ? string : T extends ReadonlyArray<infer Item> ? Array<Json<Item>> : T extends object ? { [K in keyof T]: Json<T[K]> } : T;

export type Folder = Json<FolderSummary>;
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
export type ConflictDiff = Json<CoreConflictDiff>;

/** GET /api/status (server/app.ts). */
export interface Status {
  version: string;
  folders: number;
  documents: number;
  chunks: number;
  embeddedChunks: number;
  embeddingModel: { provider: string; model: string; dtype: string; state: string; approximateBytes: number | null };
  runningJobs: Array<{ id: string; kind: string; subject: string | null; events: string }>;
}

/** A job as POST /api/jobs, /api/ask and /api/regenerate answer it (server/job-routes.ts). */
export interface Job {
  id: string;
  kind: string;
  state: string;
  events: string;
}

/** One setting of GET /api/settings (server/app.ts, settingJson). */
export interface SettingRow {
  key: string;
  value: string | number | null;
  source: string;
  problem: string | null;
  description: string;
  kind: { type: string; values?: string[]; min?: number; max?: number };
  default: string | number | null;
}

/** GET /api/browse (server/app.ts). */
export interface Listing {
  path: string;
  parent: string | null;
  folders: string[];
}
