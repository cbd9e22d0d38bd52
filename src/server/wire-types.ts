import type { AskStreamEvent, Chunkpad, ErrorJson, JsonValue, LockHolder, ProgressEvent } from "../index.js";
import type { JobKind, JobSummary } from "./jobs.js";

/**
 * The shapes the server assembles itself (the rest are the core's wire shapes, src/app/wire.ts):
 * the routes build them as these types, and the web app compiles against the same types
 * (`import type`), so a changed shape breaks the web build rather than the user.
 */

/** GET /api/status. */
export interface StatusJson {
  version: string;
  folders: number;
  documents: number;
  chunks: number;
  embeddedChunks: number;
  embeddingModel: { provider: string; model: string; dtype: string | null; state: Awaited<ReturnType<Chunkpad["modelStatus"]>>["status"]["state"]; approximateBytes: number | null };
  runningJobs: Array<{ id: string; kind: JobKind; subject: string | null; events: string }>;
  warm: ReturnType<Chunkpad["warmModels"]>;
  search: Awaited<ReturnType<Chunkpad["searchReadiness"]>>;
}

/** GET /api/folders: each folder with its counts and owner (`ownedElsewhere`: another machine sharing the database processes it). */
export interface FoldersJson {
  folders: Awaited<ReturnType<Chunkpad["listFolders"]>>;
}

/** Every event a job's stream carries before its end (SSE): the server's `emit` takes only these. */
export type JobStreamEvent =
  | ProgressEvent
  | AskStreamEvent
  | { type: "notice"; message: string }
  | { type: "waiting"; holder: LockHolder }
  | { type: "sync-folder"; rootPath: string; step: "process" | "embed" };

/** The last event of a job's stream. */
export type JobEndEvent = { type: "job-done"; result: JsonValue } | { type: "job-cancelled"; result?: JsonValue; error?: ErrorJson } | { type: "job-failed"; error: ErrorJson };

/** A job as POST /api/jobs, /api/ask, /api/regenerate and GET /api/jobs/:id answer it. */
export interface JobJson extends JobSummary {
  /** Where its events stream (SSE). */
  events: string;
}

/** One setting of GET /api/settings, and what PUT and DELETE /api/settings/:key answer. */
export interface SettingJson {
  key: string;
  value: string | number | null;
  source: string;
  problem: string | null;
  description: string;
  kind: ReturnType<Chunkpad["setting"]>["setting"]["kind"];
  default: string | number | null;
}
