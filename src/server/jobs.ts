import type { JobStreamEvent } from "./wire-types.js";
import { randomUUID } from "node:crypto";
import { isChunkpadError, toErrorJson, toPlainJson, type JsonValue } from "../index.js";

/**
 * Long work the server runs for a client (process, embed, sync, an answer): it runs in the
 * server whatever happens to the browser tab that asked for it, keeps every event it emitted so
 * a tab that opens later (or reconnects with Last-Event-ID) sees all of it, and stops when asked
 * through its AbortSignal. Finished jobs are kept for a while so their result can be read.
 */

export type JobKind = "process" | "embed" | "sync" | "ask" | "local-model" | "export" | "import";
export type JobState = "running" | "done" | "failed" | "cancelled";

export interface JobEvent {
  /** Position in the job's event list (the SSE id). */
  id: number;
  type: string;
  data: JsonValue;
}

export interface JobSummary {
  id: string;
  kind: JobKind;
  /** What it works on: a folder, a question. */
  subject: string | null;
  state: JobState;
  startedAt: string;
  finishedAt: string | null;
  result: JsonValue;
  error: JsonValue;
}

export interface Job extends JobSummary {
  events: JobEvent[];
  controller: AbortController;
  listeners: Set<(event: JobEvent) => void>;
}

export interface JobContext {
  signal: AbortSignal;
  /** Records one event: only the shapes the web app compiles against (wire-types.ts). */
  emit(event: JobStreamEvent): void;
}

/** Finished jobs kept for reading their result; the oldest go first. */
const KEEP_FINISHED = 50;

export interface JobManager {
  start(kind: JobKind, subject: string | null, run: (context: JobContext) => Promise<unknown>): Job;
  get(id: string): Job | undefined;
  list(): JobSummary[];
  /** Asks a running job to stop; false when it is not running. */
  cancel(id: string): boolean;
  /** Stops every running job and resolves when they have finished (server shutdown). */
  stopAll(): Promise<void>;
}

export function summarize(job: Job): JobSummary {
  const { id, kind, subject, state, startedAt, finishedAt, result, error } = job;
  return { id, kind, subject, state, startedAt, finishedAt, result, error };
}

export function createJobManager(): JobManager {
  const jobs = new Map<string, Job>();
  const running = new Set<Promise<void>>();

  const record = (job: Job, type: string, data: JsonValue) => {
    const event: JobEvent = { id: job.events.length, type, data };
    job.events.push(event);
    for (const listener of job.listeners) listener(event);
  };

  const forgetOld = () => {
    const finished = [...jobs.values()].filter((job) => job.state !== "running");
    for (const job of finished.slice(0, Math.max(0, finished.length - KEEP_FINISHED))) jobs.delete(job.id);
  };

  return {
    start(kind, subject, run) {
      const job: Job = {
        id: randomUUID(), kind, subject, state: "running", startedAt: new Date().toISOString(), finishedAt: null, result: null, error: null,
        events: [], controller: new AbortController(), listeners: new Set(),
      };
      jobs.set(job.id, job);
      const context: JobContext = {
        signal: job.controller.signal,
        emit: (event) => record(job, event.type, toPlainJson(event)),
      };
      const work = (async () => {
        try {
          const result = toPlainJson(await run(context));
          job.result = result;
          job.state = job.controller.signal.aborted ? "cancelled" : "done";
          record(job, job.state === "done" ? "job-done" : "job-cancelled", { result });
        } catch (error) {
          const cancelled = job.controller.signal.aborted || isChunkpadError(error, "CANCELLED");
          job.state = cancelled ? "cancelled" : "failed";
          job.error = toErrorJson(error) as unknown as JsonValue;
          record(job, cancelled ? "job-cancelled" : "job-failed", { error: job.error });
        } finally {
          job.finishedAt = new Date().toISOString();
          job.listeners.clear();
          forgetOld();
        }
      })();
      running.add(work);
      void work.finally(() => running.delete(work));
      return job;
    },
    get: (id) => jobs.get(id),
    list: () => [...jobs.values()].map(summarize).sort((a, b) => (a.startedAt < b.startedAt ? 1 : -1)),
    cancel(id) {
      const job = jobs.get(id);
      if (!job || job.state !== "running") return false;
      job.controller.abort();
      return true;
    },
    async stopAll() {
      for (const job of jobs.values()) if (job.state === "running") job.controller.abort();
      await Promise.allSettled([...running]);
    },
  };
}
