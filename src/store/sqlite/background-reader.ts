/**
 * Work done in slices between a server's requests until it is finished: one slice per turn of
 * the event loop, each at most `sliceMs` long, so a request that arrives waits at most a slice.
 *
 * The immediate stays referenced. An unreferenced one runs only when something else wakes the
 * event loop, so an idle server did a few slices and then nothing, and its first searches paid
 * for the rest (issue 22). `close()` cancels it, so it never keeps a finished process alive.
 *
 * A slice that throws (the database busy for a moment) is tried again RETRY_AFTER_MS later:
 * stopping there left the index reading nothing more and `status` never saying ready.
 */
export interface BackgroundReader {
  /** Starts (or goes on) reading in slices; a no-op while a slice is scheduled or after close. */
  schedule(): void;
  /** Call when the work is complete: resolves every `whenDone`. */
  done(): void;
  /** Resolves once the work is complete, or the reader is closed. */
  whenDone(complete: boolean): Promise<void>;
  close(): void;
}

export const RETRY_AFTER_MS = 1_000;

export function createBackgroundReader({ step, sliceMs, enabled }: { step: (budgetMs: number) => boolean; sliceMs: number; enabled: boolean }): BackgroundReader {
  let timer: NodeJS.Immediate | null = null;
  let retry: NodeJS.Timeout | null = null;
  let closed = false;
  let waiters: Array<() => void> = [];
  const settle = () => {
    const resolved = waiters;
    waiters = [];
    for (const resolve of resolved) resolve();
  };
  function schedule(): void {
    if (!enabled || timer !== null || retry !== null || closed) return;
    timer = setImmediate(() => {
      timer = null;
      if (closed) return;
      try {
        if (step(sliceMs)) schedule();
      } catch {
        // The connection is busy: searches still read what they need, and the reading goes on later.
        retry = setTimeout(() => {
          retry = null;
          schedule();
        }, RETRY_AFTER_MS);
      }
    });
  }
  return {
    schedule,
    done: settle,
    whenDone(complete) {
      if (complete || closed) return Promise.resolve();
      return new Promise<void>((resolve) => {
        waiters.push(resolve);
        if (enabled) schedule();
        else if (!step(Number.POSITIVE_INFINITY)) settle();
      });
    },
    close() {
      closed = true;
      if (timer !== null) clearImmediate(timer);
      if (retry !== null) clearTimeout(retry);
      timer = null;
      retry = null;
      settle();
    },
  };
}
