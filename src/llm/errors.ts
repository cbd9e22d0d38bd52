import type { NextStep } from "../core/next-step.js";
import { ChunkpadError, isRetryableStatus } from "../core/errors.js";
import { redactSecrets } from "../core/redact.js";
import type { NetworkFailure } from "../core/network.js";

export { redactSecrets };

/**
 * Turns what went wrong at a provider into a ChunkpadError with a one-line explanation and a
 * next step. Providers first describe the failure in neutral terms (a ProviderFailure), then
 * this file decides the code, the message and whether a retry may help.
 */

export type ProviderName = "anthropic" | "openai" | "ollama" | "local";

export const PROVIDER_LABELS: Record<ProviderName, string> = {
  anthropic: "Anthropic",
  openai: "OpenAI",
  ollama: "Ollama",
  local: "the local model",
};

/** Network failures worth telling apart: a server that is not running is not worth a retry. */

export interface ProviderFailure {
  provider: ProviderName;
  model: string;
  /** The server the request went to (shown without credentials). */
  url: string;
  statusCode?: number;
  /** The provider's own explanation, from its error body. */
  providerMessage?: string;
  /** The provider's error type or code ("not_found_error", "context_length_exceeded"). */
  providerType?: string;
  retryAfterMs?: number;
  network?: NetworkFailure;
  /** Kept only for network failures, whose causes carry no secrets. */
  cause?: unknown;
}

const CONTEXT_TOO_LONG_PATTERN =
  /context[ _-]?(length|window|size)|prompt is too long|too many tokens|maximum context|exceeds? (the )?(available )?context|input length exceeds/i;
const MODEL_MISSING_PATTERN = /model/i;

export function toChunkpadError(failure: ProviderFailure, secrets: readonly string[] = []): ChunkpadError {
  const error = classify(failure);
  const message = redactSecrets(error.message, secrets);
  const details: Record<string, unknown> = { provider: failure.provider, model: failure.model, url: displayUrl(failure.url) };
  if (failure.providerType) details.providerType = failure.providerType;
  if (failure.retryAfterMs !== undefined) details.retryAfterMs = failure.retryAfterMs;
  if (failure.providerMessage) details.providerMessage = redactSecrets(oneLine(failure.providerMessage), secrets);
  return new ChunkpadError(error.code, message, {
    statusCode: failure.statusCode,
    isRetryable: error.retryable,
    details,
    ...(error.nextSteps ? { nextSteps: error.nextSteps } : {}),
    cause: failure.network ? failure.cause : undefined,
  });
}

interface Classified {
  code: ChunkpadError["code"];
  message: string;
  retryable: boolean;
  nextSteps?: NextStep[];
}

function classify(failure: ProviderFailure): Classified {
  const name = PROVIDER_LABELS[failure.provider];
  // Every message below starts with the provider's name.
  const label = name.charAt(0).toUpperCase() + name.slice(1);
  const url = displayUrl(failure.url);
  const said = failure.providerMessage ? ` (${failure.provider === "local" ? "it" : label} says: ${oneLine(failure.providerMessage)})` : "";
  const status = failure.statusCode;
  const type = failure.providerType ?? "";
  const text = `${type} ${failure.providerMessage ?? ""}`;

  if (failure.network) {
    const retryable = failure.network === "reset" || failure.network === "timeout";
    const what = { refused: "connection refused", dns: "host not found", reset: "connection reset", timeout: "timed out" }[failure.network];
    const next = failure.provider === "ollama" ? ` Start it with "ollama serve" or set OLLAMA_HOST.` : "";
    return { code: "LLM_UNAVAILABLE", message: `Cannot reach ${label} at ${url} (${what}). Is the server running at ${url}?${next}`, retryable };
  }
  if (status === 401 || status === 403) {
    const keyed = failure.provider === "anthropic" || failure.provider === "openai";
    const what = status === 401 ? "rejected the API key" : "refused this API key access";
    return {
      code: "LLM_AUTH",
      message: `${label} ${what} (${status})${said}.${keyed ? "" : ` Check the key or proxy settings for ${url}.`}`,
      retryable: false,
      ...(keyed ? { nextSteps: [{ action: "set-api-key", provider: failure.provider }] } : {}),
    };
  }
  if (status === 429) {
    const wait = failure.retryAfterMs !== undefined ? `in ${Math.ceil(failure.retryAfterMs / 1000)} s` : "in a minute";
    return { code: "LLM_RATE_LIMITED", message: `${label} is rate limiting requests (429)${said}. Try again ${wait}, or check your plan's limits.`, retryable: true };
  }
  if ((status === 400 || status === 413 || status === 422 || status === undefined) && CONTEXT_TOO_LONG_PATTERN.test(text)) {
    return {
      code: "LLM_CONTEXT_TOO_LONG",
      message: `The prompt is longer than ${failure.model}'s context window${said}. Include fewer chunks, or pick a model with a longer context.`,
      retryable: false,
    };
  }
  if ((status === 404 && MODEL_MISSING_PATTERN.test(text)) || /model_not_found|not_found_error/.test(type)) {
    const pull = failure.provider === "ollama" ? ` Run "ollama pull ${failure.model}" to get it.` : "";
    return { code: "LLM_MODEL_NOT_FOUND", message: `${label} has no model "${failure.model}"${said}.${pull}`, retryable: false, nextSteps: [{ action: "choose-llm-model", provider: failure.provider }] };
  }
  if (status === 404) {
    return { code: "LLM_UNAVAILABLE", message: `${label} at ${url} has no such endpoint (404)${said}. Check the base URL.`, retryable: false };
  }
  if (status !== undefined && status >= 500) {
    return { code: "LLM_UNAVAILABLE", message: `${label} had a server error (${status})${said}. Is the server running at ${url}? Try again shortly.`, retryable: true };
  }
  if (status !== undefined) {
    return { code: "LLM_BAD_RESPONSE", message: `${label} refused the request (${status})${said}.`, retryable: isRetryableStatus(status) };
  }
  // An error event inside a stream, without an HTTP status.
  const retryable = /overloaded|api_error|server_error|rate_limit/.test(type);
  return { code: retryable ? "LLM_UNAVAILABLE" : "LLM_BAD_RESPONSE", message: `${label} reported an error${said}. Try again shortly.`, retryable };
}

/** The answer stopped after some text had arrived; the text is kept, the stream is marked incomplete. */
export function streamInterrupted(provider: ProviderName, reason: string, partialText: string, secrets: readonly string[] = []): ChunkpadError {
  const label = PROVIDER_LABELS[provider];
  const message =
    partialText === ""
      ? `The answer from ${label} stopped before any text arrived (${oneLine(reason)}). Try again.`
      : `The answer from ${label} was cut off mid-stream (${oneLine(reason)}); the partial answer is kept. Regenerate to try again.`;
  return new ChunkpadError("LLM_STREAM_INTERRUPTED", redactSecrets(message, secrets), {
    isRetryable: true,
    details: { provider, partialText },
  });
}

export function cancelledError(): ChunkpadError {
  return new ChunkpadError("CANCELLED", "The answer was cancelled.");
}

/** A URL without user, password or query, for messages. */
export function displayUrl(url: string): string {
  try {
    const parsed = new URL(url);
    parsed.username = "";
    parsed.password = "";
    parsed.search = "";
    return parsed.toString().replace(/\/$/, "");
  } catch {
    return url;
  }
}

/** Milliseconds from retry-after-ms, or retry-after in seconds or as an HTTP date. */
export function parseRetryAfter(headers: { get(name: string): string | null } | undefined, now = Date.now()): number | undefined {
  if (!headers) return undefined;
  const milliseconds = Number.parseFloat(headers.get("retry-after-ms") ?? "");
  if (Number.isFinite(milliseconds) && milliseconds >= 0) return milliseconds;
  const value = headers.get("retry-after");
  if (value === null || value.trim() === "") return undefined;
  const seconds = Number(value);
  if (Number.isFinite(seconds) && seconds >= 0) return seconds * 1000;
  const date = Date.parse(value);
  return Number.isFinite(date) ? Math.max(0, date - now) : undefined;
}

/** The message inside the error bodies providers send: {error:{message}}, {type:"error",error:{...}}, {error:"..."}. */
export function readErrorBody(body: unknown): { message?: string; type?: string } {
  if (typeof body === "string") return { message: body };
  if (body === null || typeof body !== "object") return {};
  const record = body as Record<string, unknown>;
  const inner = record.error;
  if (typeof inner === "string") return { message: inner };
  if (inner !== null && typeof inner === "object") {
    const nested = readErrorBody(inner);
    if (nested.message || nested.type) return nested;
  }
  const message = typeof record.message === "string" ? record.message : undefined;
  const code = typeof record.code === "string" ? record.code : undefined;
  const type = code ?? (typeof record.type === "string" && record.type !== "error" ? record.type : undefined);
  return { message, type };
}

function oneLine(text: string): string {
  const flat = text.replace(/\s+/g, " ").trim();
  return flat.length > 300 ? `${flat.slice(0, 297)}...` : flat;
}
