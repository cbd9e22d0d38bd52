import { ChunkpadError, isRetryableStatus } from "../core/errors.js";
import { redactError, secretsInHeaders } from "../core/redact.js";
import type { Embedder } from "../core/types.js";
import { describeNetworkFailure } from "../core/network.js";

/** Shared plumbing of the HTTP embedding providers (Ollama, OpenAI). */

export interface RemoteEmbedder extends Embedder {
  /** The vector size, asking the server with a one-word embedding when it is not known yet. */
  resolveDimensions(): Promise<number>;
}

export const REMOTE_TIMEOUT_MS = 120_000;

export interface RemoteRequest {
  fetch: typeof fetch;
  url: string;
  body: unknown;
  headers?: Record<string, string>;
  /** "Ollama at http://127.0.0.1:11434", for messages. */
  serverLabel: string;
  /** What to tell the user when the server cannot be reached at all. */
  unreachableHint: string;
  /** Turns a 404 into a helpful MODEL_NOT_FOUND. */
  notFoundMessage: string;
  /** Turns a 401/403 into a helpful message. */
  authMessage?: string;
  signal?: AbortSignal;
}

/** The error text a provider put in its JSON body (`{error: "..."}` or `{error: {message}}`). */
function providerMessage(text: string): string {
  try {
    const parsed = JSON.parse(text) as { error?: unknown; message?: unknown };
    if (typeof parsed.error === "string") return parsed.error;
    if (parsed.error !== null && typeof parsed.error === "object" && typeof (parsed.error as { message?: unknown }).message === "string") {
      return (parsed.error as { message: string }).message;
    }
    if (typeof parsed.message === "string") return parsed.message;
  } catch {
    // not JSON: fall through to the raw text
  }
  return text.trim().slice(0, 300);
}

/** POSTs JSON and returns the parsed answer; every error comes back without the key the request carried, even when the server echoes it. */
export async function postJson(request: RemoteRequest): Promise<unknown> {
  try {
    return await sendJson(request);
  } catch (error) {
    throw redactError(error, secretsInHeaders(request.headers));
  }
}

async function sendJson(request: RemoteRequest): Promise<unknown> {
  const timeout = AbortSignal.timeout(REMOTE_TIMEOUT_MS);
  const signal = request.signal === undefined ? timeout : AbortSignal.any([timeout, request.signal]);
  let response: Response;
  try {
    response = await request.fetch(request.url, {
      method: "POST",
      headers: { "content-type": "application/json", ...request.headers },
      body: JSON.stringify(request.body),
      signal,
    });
  } catch (error) {
    if (request.signal?.aborted === true) throw new ChunkpadError("CANCELLED", "Embedding was cancelled.", { cause: error });
    const reason = timeout.aborted ? `no answer within ${REMOTE_TIMEOUT_MS / 1000} s` : describeNetworkFailure(error);
    throw new ChunkpadError("EMBEDDING_FAILED", `Could not reach ${request.serverLabel}: ${reason}. ${request.unreachableHint}`, { cause: error, isRetryable: true });
  }

  const text = await response.text();
  if (!response.ok) {
    const detail = providerMessage(text);
    const options = { statusCode: response.status, isRetryable: isRetryableStatus(response.status), details: { providerMessage: detail } };
    if (response.status === 404) throw new ChunkpadError("MODEL_NOT_FOUND", `${request.notFoundMessage} (${request.serverLabel} said: ${detail})`, options);
    if ((response.status === 401 || response.status === 403) && request.authMessage !== undefined) {
      throw new ChunkpadError("EMBEDDING_FAILED", `${request.authMessage} (HTTP ${response.status}: ${detail})`, options);
    }
    const retry = options.isRetryable ? " Try again in a moment." : "";
    throw new ChunkpadError("EMBEDDING_FAILED", `${request.serverLabel} answered HTTP ${response.status}: ${detail}.${retry}`, options);
  }
  try {
    return JSON.parse(text) as unknown;
  } catch (error) {
    throw new ChunkpadError("EMBEDDING_FAILED", `${request.serverLabel} answered with something that is not JSON.`, { cause: error, statusCode: response.status });
  }
}

/** Scales a vector to length 1, so every provider's vectors compare the same way. */
export function normalizeVector(values: readonly number[]): Float32Array {
  let sum = 0;
  for (const value of values) sum += value * value;
  const length = Math.sqrt(sum);
  const vector = Float32Array.from(values);
  if (length > 0) for (let index = 0; index < vector.length; index++) vector[index] = (vector[index] ?? 0) / length;
  return vector;
}

export function badResponse(serverLabel: string, what: string): ChunkpadError {
  return new ChunkpadError("EMBEDDING_FAILED", `${serverLabel} answered without ${what}. Check that the server and model support embeddings.`);
}

/** Splits texts into batches of at most `size`. */
export function batches<T>(items: readonly T[], size: number): T[][] {
  const result: T[][] = [];
  for (let start = 0; start < items.length; start += size) result.push(items.slice(start, start + size));
  return result;
}
