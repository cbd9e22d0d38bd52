import { ChunkpadError } from "../core/errors.js";
import { detectNetworkFailure } from "../core/network.js";
import type { ChatResult, ChatStreamPart } from "../core/types.js";
import { cancelledError, streamInterrupted, type ProviderName } from "./errors.js";

/**
 * What every provider shares around its own wire format: retries before the first token,
 * cancellation, and the promise that a stream always ends with exactly one terminal part
 * (`finish` or `error`). Text already streamed is never taken back: a failure after the first
 * token becomes LLM_STREAM_INTERRUPTED carrying the partial text in `details.partialText`.
 */

export interface RetryPolicy {
  /** Attempts in all, the first one included. */
  maxAttempts: number;
  initialDelayMs: number;
  maxDelayMs: number;
  /** A retry-after longer than this is not waited for; the error is reported instead. */
  maxRetryAfterMs: number;
  sleep: (delayMs: number, signal?: AbortSignal) => Promise<void>;
  /** Told before each wait, so a face can say "rate limited, retrying in 2 s". */
  onRetry?: (info: { attempt: number; delayMs: number; error: ChunkpadError }) => void;
}

export const DEFAULT_RETRY_POLICY: RetryPolicy = {
  maxAttempts: 3,
  initialDelayMs: 500,
  maxDelayMs: 8_000,
  maxRetryAfterMs: 60_000,
  sleep: abortableSleep,
};

/** One try at the provider: yields text deltas then a finish part, throws whatever went wrong. */
export type StreamAttempt = () => AsyncIterable<ChatStreamPart>;

export interface RunStreamOptions {
  provider: ProviderName;
  attempt: StreamAttempt;
  /** Maps anything an attempt throws to a ChunkpadError (already redacted). */
  toError: (thrown: unknown) => ChunkpadError;
  signal?: AbortSignal;
  retry?: Partial<RetryPolicy>;
}

/** Raised by a provider whose stream ended without its closing event. */
export class StreamEndedEarly extends Error {
  constructor(reason = "the server closed the stream before the last event") {
    super(reason);
    this.name = "StreamEndedEarly";
  }
}

export async function* runChatStream(options: RunStreamOptions): AsyncGenerator<ChatStreamPart> {
  const policy = { ...DEFAULT_RETRY_POLICY, ...options.retry };
  const { signal } = options;
  for (let attempt = 1; ; attempt += 1) {
    let text = "";
    try {
      if (signal?.aborted) break;
      for await (const part of options.attempt()) {
        if (signal?.aborted) break;
        if (part.type === "error") throw part.error;
        if (part.type === "finish") {
          yield part;
          return;
        }
        if (part.text === "") continue;
        text += part.text;
        yield part;
      }
      if (signal?.aborted) break;
      throw new StreamEndedEarly();
    } catch (thrown) {
      if (signal?.aborted) break;
      const ended = thrown instanceof StreamEndedEarly;
      const error = ended ? streamInterrupted(options.provider, thrown.message, text) : options.toError(thrown);
      if (text !== "") {
        const providerMessage = error.details?.providerMessage;
        const reason = detectNetworkFailure(thrown) ? "connection lost" : typeof providerMessage === "string" ? providerMessage : error.message;
        yield { type: "error", error: ended ? error : withCause(streamInterrupted(options.provider, reason, text), error) };
        return;
      }
      const delayMs = retryDelay(error, attempt, policy);
      if (delayMs === undefined) {
        yield { type: "error", error };
        return;
      }
      policy.onRetry?.({ attempt, delayMs, error });
      try {
        await policy.sleep(delayMs, signal);
      } catch {
        break;
      }
    }
  }
  yield { type: "finish", reason: "cancelled" };
}

/** The wait before the next attempt, or undefined when there should be none. */
export function retryDelay(error: ChunkpadError, attempt: number, policy: RetryPolicy): number | undefined {
  if (!error.isRetryable || attempt >= policy.maxAttempts) return undefined;
  const retryAfterMs = error.details?.retryAfterMs;
  if (typeof retryAfterMs === "number") return retryAfterMs > policy.maxRetryAfterMs ? undefined : retryAfterMs;
  return Math.min(policy.maxDelayMs, policy.initialDelayMs * 2 ** (attempt - 1));
}

/**
 * chat() is chatStream() collected: it returns the whole text, and throws the stream's error
 * (LLM_STREAM_INTERRUPTED keeps the partial text in `details.partialText`) or CANCELLED.
 */
export async function collectChat(stream: AsyncIterable<ChatStreamPart>): Promise<ChatResult> {
  let text = "";
  for await (const part of stream) {
    if (part.type === "text-delta") text += part.text;
    else if (part.type === "error") throw part.error;
    else if (part.reason === "cancelled") throw cancelledError();
    else return { text, finishReason: part.reason, ...(part.usage ? { usage: part.usage } : {}) };
  }
  throw new ChunkpadError("LLM_BAD_RESPONSE", "The answer stream ended without a result. Try again.");
}

export function abortableSleep(delayMs: number, signal?: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal?.aborted) {
      reject(cancelledError());
      return;
    }
    const onAbort = () => {
      clearTimeout(timer);
      reject(cancelledError());
    };
    const timer = setTimeout(() => {
      signal?.removeEventListener("abort", onAbort);
      resolve();
    }, delayMs);
    signal?.addEventListener("abort", onAbort, { once: true });
  });
}

function withCause(error: ChunkpadError, cause: ChunkpadError): ChunkpadError {
  return new ChunkpadError(error.code, error.message, { cause, isRetryable: error.isRetryable, details: error.details, statusCode: cause.statusCode });
}
