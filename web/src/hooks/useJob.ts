import { withNextSteps } from "../nextStep.js";
import { useCallback, useRef, useState } from "react";
import { flushSync } from "react-dom";
import { post, remove } from "../api/client.js";
import type { Job, JobHandle } from "../api/types.js";
import { followJob, type JobEvent } from "./useJobEvents.js";

export interface JobProgress {
  label: string;
  value: number | null;
}

const percent = (done: number, total: number) => (total > 0 ? (done / total) * 100 : null);

/** The model status travels as plain JSON (app/wire.ts): read only the two fields a bar needs. */
function modelStatus(status: unknown): { state: string | null; percent: number | null } {
  const record = typeof status === "object" && status !== null ? (status as Record<string, unknown>) : {};
  return { state: typeof record.state === "string" ? record.state : null, percent: typeof record.percent === "number" ? record.percent : null };
}

/** What a progress bar says for one event of a process, embed, sync or download job. */
export function progressOf(event: JobEvent): JobProgress | null {
  if (event.type === "process-progress") return { label: event.file ? `Processing ${event.file}` : "Processing", value: percent(event.done, event.total) };
  if (event.type === "embed-progress" && event.phase === "embed") return { label: `Embedding ${event.done} of ${event.total} chunks`, value: percent(event.done, event.total) };
  if (event.type === "embed-progress" && event.phase === "model") {
    const status = modelStatus(event.status);
    return { label: status.state === "downloading" ? "Downloading the embedding model" : "Loading the embedding model", value: status.percent };
  }
  if (event.type === "download-progress") return { label: "Downloading", value: event.percent };
  if (event.type === "archive-progress") {
    const counted = event.stage === "collecting" || event.stage === "restoring";
    const label = { reading: "Reading the archive", collecting: `Reading ${event.folder ?? "the folder"}: ${event.done} of ${event.total} files`, compressing: "Compressing the archive", writing: "Writing the archive", restoring: `Restoring documents: ${event.done} of ${event.total}`, placing: "Putting the files in place" }[event.stage];
    return { label, value: counted ? percent(event.done, event.total) : null };
  }
  if (event.type === "waiting") {
    const machine = event.holder.machine;
    return { label: `Waiting for another Chunkpad process${machine === null ? "" : ` on the machine "${machine.name}"`} to finish with this folder`, value: null };
  }
  return null;
}

/** Which stage of its job an event reports: a new one is drawn even among events that arrive together. */
function stageOf(event: JobEvent): string {
  if (event.type === "archive-progress") return `${event.type}:${event.stage}`;
  if (event.type === "embed-progress") return `${event.type}:${event.phase}`;
  return event.type;
}

/** One long job at a time (process, embed, sync): start or re-attach, progress, outcome, cancel. */
export function useJob(onDone: (result?: unknown) => void) {
  const [job, setJob] = useState<JobHandle | null>(null);
  const [progress, setProgress] = useState<JobProgress | null>(null);
  const [outcome, setOutcome] = useState<{ tone: "good" | "bad"; text: string } | null>(null);
  const done = useRef(onDone);
  done.current = onDone;
  const attach = useCallback((started: JobHandle) => {
    setJob(started);
    setOutcome(null);
    setProgress({ label: "Starting…", value: null });
    let stageShown: string | undefined;
    followJob(started, (event) => {
      const next = progressOf(event);
      // Each stage of the job is drawn at least once, even when a fast job's events arrive
      // together and React would render only the last of them; counts within a stage coalesce.
      const stage = stageOf(event);
      if (next && stage !== stageShown) {
        stageShown = stage;
        flushSync(() => setProgress(next));
      } else if (next) setProgress(next);
      if (event.type === "job-done" || event.type === "job-failed" || event.type === "job-cancelled") {
        setJob(null);
        setProgress(null);
        if (event.type === "job-done") setOutcome({ tone: "good", text: "Done." });
        else if (event.type === "job-cancelled") setOutcome({ tone: "good", text: "Cancelled." });
        else setOutcome({ tone: "bad", text: `Failed: ${event.error?.message === undefined ? "unknown error" : withNextSteps(event.error.message, event.error.nextSteps)}` });
        done.current(event.type === "job-done" ? event.result : undefined);
      }
    });
  }, []);
  const start = useCallback(
    async (body: Record<string, unknown>) => {
      setOutcome(null);
      try {
        attach(await post<Job>("/api/jobs", body));
      } catch (failure) {
        setOutcome({ tone: "bad", text: (failure as Error).message });
      }
    },
    [attach],
  );
  const cancel = useCallback(async () => {
    if (!job) return;
    try {
      await remove(`/api/jobs/${job.id}`);
    } catch (failure) {
      setOutcome({ tone: "bad", text: (failure as Error).message });
    }
  }, [job]);
  return { job, progress, outcome, start, attach, cancel };
}
