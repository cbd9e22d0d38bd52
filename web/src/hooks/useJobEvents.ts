import type { Job, JobEndEvent, JobStreamEvent } from "../api/types.js";

/** A job's events as the app reads them: the server's own event types (a changed shape breaks this build). */
export type JobEvent = JobStreamEvent | JobEndEvent;

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
