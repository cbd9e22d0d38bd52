import { ChunkpadError } from "../core/errors.js";

/** The one message for a file that took too long, whether the worker stopped itself or was stopped. */
export function timeoutError(timeoutMs: number): ChunkpadError {
  const seconds = timeoutMs < 1000 ? timeoutMs / 1000 : Math.round(timeoutMs / 1000);
  return new ChunkpadError("PARSE_TIMEOUT", `parsing took longer than ${seconds} s; it is tried again on the next run (give it more time with --timeout <seconds> or ingest.perFileTimeoutSeconds)`);
}
