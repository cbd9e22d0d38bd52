import type { ApiErrorBody, AskEvent, Job, JobProgressEvent } from "../api/types.js";

/** A job's events as the app reads them: the answer events of the core's wire shape, job progress and its end. */
export type JobEvent =
  | AskEvent
  | JobProgressEvent
  | { type: "notice"; message: string }
  | { type: "waiting"; holder: unknown }
  | { type: "sync-folder"; folder?: string }
  | { type: "job-done"; result?: unknown }
  | { type: "job-failed"; error?: Partial<ApiErrorBody> }
  | { type: "job-cancelled" };

const TYPES = ["process-progress", "embed-progress", "chunks", "answer-start", "text-delta", "citation", "refused", "final", "error", "notice", "waiting", "sync-folder", "download-progress", "archive-progress"];
const ENDS = ["job-done", "job-failed", "job-cancelled"];

/** Follows a job's server-sent events until it ends; the server replays what the page missed. */
export function followJob(job: Pick<Job, "events">, onEvent: (event: JobEvent) => void): () => void {
  const source = new EventSource(job.events, { withCredentials: true });
  const parse = (type: string, message: Event) => ({ ...(JSON.parse((message as MessageEvent<string>).data) as object), type }) as JobEvent;
  for (const type of TYPES) source.addEventListener(type, (message) => onEvent(parse(type, message)));
  for (const type of ENDS) {
    source.addEventListener(type, (message) => {
      source.close();
      onEvent(parse(type, message));
    });
  }
  return () => source.close();
}
