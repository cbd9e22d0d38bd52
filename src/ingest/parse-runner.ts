import type { Worker } from "node:worker_threads";
import { spawnModuleWorker } from "../core/spawn-worker.js";
import { ChunkpadError, type ErrorCode, ERROR_CODES } from "../core/errors.js";
import type { ChunkDraft, ChunkingOptions, ParsedDocument, ParseLimits } from "../core/types.js";
import type { ParseRequest, ParseResponse } from "./parse-worker.js";
import { timeoutError } from "./parse-timeout.js";

export interface ParseRunnerOptions {
  /** Parsers running at once, each in its own worker thread. */
  workers: number;
  /** A file still parsing after this long is stopped and reported as PARSE_TIMEOUT. */
  timeoutMs: number;
  /** Heap limit for each worker; a file that needs more is reported, not fatal. */
  maxHeapMb: number;
  /** A worker that has not finished loading its parsers after this long is replaced (default 60 s). */
  startupTimeoutMs?: number;
  /** The worker module, relative to `callerUrl`; tests swap in misbehaving workers. */
  worker?: { callerUrl: string; baseName: string };
  /** How long a job waits for a busy worker before another is started (NEXT_WORKER_AFTER_MS). */
  nextWorkerAfterMs?: number;
}

export interface ParseJob {
  path: string;
  password?: string;
  limits: ParseLimits;
  /** This job's time limit, instead of the pool's (`--timeout`). */
  timeoutMs?: number;
  /** Also chunk the document in the worker (its chunks come back as `drafts`, and its `blocks` empty: the text crosses threads once). */
  chunking?: ChunkingOptions;
  /** The file may take seconds (a PDF, an image: `mayTakeSeconds`): a job waiting behind it takes a new worker at once. */
  mayTakeSeconds?: boolean;
}

/** A parsed document, and its chunks when the job asked for them. */
export type ParseOutcome = ParsedDocument & { drafts?: ChunkDraft[] };

export interface ParseRunner {
  parse(job: ParseJob): Promise<ParseOutcome>;
  close(): Promise<void>;
}

/** Grace after the cooperative time limit before the worker is terminated outright. */
const HARD_KILL_GRACE_MS = 2_000;
const STARTUP_TIMEOUT_MS = 60_000;

/**
 * A job that finds every started worker busy waits this long for one before another worker is
 * started. A note parses and chunks in a few milliseconds (tens while the code is cold, more on a
 * busy machine: at 100 ms a second worker still started at load 15), so a folder of notes is read
 * by one warm worker, with one copy of the parser, the tokenizer and their compiled code instead of
 * one per worker (decision 080); a long PDF gets a second worker beside it half a second later.
 */
export const NEXT_WORKER_AFTER_MS = 500;

/** A worker still on its first job is loading its code: waiting for it counts only after this long. */
const WORKER_START_ALLOWANCE_MS = 2_000;

interface Slot {
  worker: Worker | undefined;
  /** The worker has loaded its modules and listens (its first message says so). */
  ready: boolean;
  busy: boolean;
  /** The worker has answered a job (its code is loaded). */
  warm: boolean;
  startedAt: number;
  /** Its job may take seconds: waiting for it is not worth it. */
  slow: boolean;
}

/**
 * A small pool of parser workers. Each job gets the cooperative time limit inside the worker
 * (parsers check the abort signal) and a hard one outside: a worker that does not answer in
 * time is terminated and replaced, so one bad file never hangs the run.
 */
export function createParseRunner(options: ParseRunnerOptions): ParseRunner {
  const slots: Slot[] = Array.from({ length: Math.max(1, options.workers) }, () => ({ worker: undefined, ready: false, busy: false, warm: false, startedAt: 0, slow: false }));
  const startupTimeoutMs = options.startupTimeoutMs ?? STARTUP_TIMEOUT_MS;
  const nextWorkerAfterMs = options.nextWorkerAfterMs ?? NEXT_WORKER_AFTER_MS;
  const waiting: Array<(slot: Slot) => void> = [];
  let nextId = 1;
  let closed = false;

  const spawn = () =>
    spawnModuleWorker(options.worker?.callerUrl ?? import.meta.url, options.worker?.baseName ?? "parse-worker", {
      resourceLimits: { maxOldGenerationSizeMb: options.maxHeapMb },
      stdout: true,
      stderr: true,
    });

  const claim = (slot: Slot, job: ParseJob): Slot => {
    slot.busy = true;
    slot.slow = job.mayTakeSeconds === true;
    // Its worker starts now (runOn spawns it): the time counts from here, not from the spawn a tick later.
    if (slot.worker === undefined) {
      slot.warm = false;
      slot.startedAt = Date.now();
    }
    return slot;
  };
  /**
   * A free started worker, else (nothing running yet) a new one; else the job waits for the
   * first worker to come free, and after nextWorkerAfterMs (longer while the busy workers are still
   * starting) takes a new worker if one may still be started; at once when a busy worker's file may
   * take seconds (decision 086).
   */
  const acquire = (job: ParseJob): Promise<Slot> => {
    const ready = slots.find((slot) => !slot.busy && slot.worker !== undefined) ?? (slots.every((slot) => !slot.busy) ? slots[0] : undefined);
    if (ready) return Promise.resolve(claim(ready, job));
    return new Promise((resolve) => {
      const mayStartAnother = slots.some((slot) => !slot.busy && slot.worker === undefined);
      const behindSlowFile = slots.some((slot) => slot.busy && slot.slow);
      const starting = slots.filter((slot) => slot.busy && !slot.warm).map((slot) => slot.startedAt + WORKER_START_ALLOWANCE_MS - Date.now());
      const startAnother = () => {
        const spare = slots.find((slot) => !slot.busy && slot.worker === undefined);
        const index = waiting.indexOf(take);
        if (closed || !spare || index < 0) return;
        waiting.splice(index, 1);
        resolve(claim(spare, job));
      };
      // Timers run before the event loop reads the workers' messages: when this thread itself was
      // held up (a long commit, a busy machine) the busy worker may have answered meanwhile, so
      // its answer is read first (setImmediate runs after that) and frees it for this job.
      const timer = mayStartAnother
        ? setTimeout(() => (behindSlowFile ? startAnother() : setImmediate(startAnother)), behindSlowFile ? 0 : Math.max(nextWorkerAfterMs, ...starting))
        : undefined;
      const take = (slot: Slot) => {
        clearTimeout(timer);
        resolve(claim(slot, job));
      };
      waiting.push(take);
    });
  };
  const release = (slot: Slot) => {
    const next = waiting.shift();
    slot.busy = false;
    if (next) next(slot);
  };

  const startOn = (slot: Slot): Worker => {
    const worker = spawn();
    slot.worker = worker;
    slot.ready = false;
    const onReady = (message: { ready?: boolean }) => {
      if (message.ready !== true) return;
      worker.off("message", onReady);
      if (slot.worker === worker) slot.ready = true;
    };
    worker.on("message", onReady);
    return worker;
  };

  const runOn = (slot: Slot, job: ParseJob): Promise<ParseOutcome> =>
    new Promise((resolve, reject) => {
      const worker = slot.worker ?? startOn(slot);
      // Drain the worker's console so a chatty library cannot fill a pipe.
      worker.stdout.resume();
      worker.stderr.resume();
      const id = nextId++;
      const timeoutMs = job.timeoutMs ?? options.timeoutMs;
      let settled = false;
      const finish = (outcome: () => void) => {
        if (settled) return;
        settled = true;
        clearTimeout(timer);
        worker.off("message", onMessage);
        worker.off("error", onError);
        worker.off("exit", onExit);
        outcome();
      };
      const discardWorker = () => {
        slot.worker = undefined;
        slot.ready = false;
        void worker.terminate();
      };
      // The file's time limit runs from when the worker listens: loading the parsers (seconds on
      // a busy machine, more under a TypeScript loader) is not the file's time. A worker that
      // never finishes loading is replaced after the start-up limit.
      let timer: NodeJS.Timeout | undefined;
      const startClock = () => {
        clearTimeout(timer);
        timer = setTimeout(() => {
          discardWorker();
          finish(() => reject(timeoutError(timeoutMs)));
        }, timeoutMs + HARD_KILL_GRACE_MS);
      };
      const onMessage = (response: ParseResponse | { ready: true }) => {
        if ("ready" in response) return startClock();
        if (response.id !== id) return;
        slot.warm = true;
        finish(() => (response.ok ? resolve(response.drafts === undefined ? response.document : { ...response.document, drafts: response.drafts }) : reject(toError(response.code, response.message))));
      };
      const onError = (error: Error) => {
        discardWorker();
        const outOfMemory = (error as NodeJS.ErrnoException).code === "ERR_WORKER_OUT_OF_MEMORY";
        finish(() =>
          reject(
            outOfMemory
              ? new ChunkpadError("PARSE_TOO_LARGE", `parsing needed more than ${options.maxHeapMb} MB of memory; the file was skipped`)
              : new ChunkpadError("PARSE_FAILED", `the parser crashed: ${error.message}`, { cause: error }),
          ),
        );
      };
      const onExit = (code: number) => {
        slot.worker = undefined;
        slot.ready = false;
        finish(() => reject(new ChunkpadError("PARSE_FAILED", `the parser stopped unexpectedly (exit code ${code})`)));
      };
      if (slot.ready) startClock();
      else {
        timer = setTimeout(() => {
          discardWorker();
          finish(() => reject(new ChunkpadError("PARSE_FAILED", `the parser did not start within ${startupTimeoutMs / 1000} s; the file was skipped and is tried again on the next run`)));
        }, startupTimeoutMs);
      }
      worker.on("message", onMessage);
      worker.on("error", onError);
      worker.on("exit", onExit);
      const request: ParseRequest = { id, path: job.path, password: job.password, limits: job.limits, timeoutMs, ...(job.chunking === undefined ? {} : { chunking: job.chunking }) };
      worker.postMessage(request);
    });

  return {
    async parse(job) {
      if (closed) throw new ChunkpadError("CANCELLED", "the parser pool is closed");
      const slot = await acquire(job);
      try {
        return await runOn(slot, job);
      } finally {
        release(slot);
      }
    },
    async close() {
      closed = true;
      await Promise.all(slots.map(async (slot) => {
        const worker = slot.worker;
        slot.worker = undefined;
        if (worker) await worker.terminate();
      }));
    },
  };
}

function toError(code: string, message: string): ChunkpadError {
  const known = (Object.keys(ERROR_CODES) as ErrorCode[]).includes(code as ErrorCode) ? (code as ErrorCode) : "PARSE_FAILED";
  return new ChunkpadError(known, message);
}
