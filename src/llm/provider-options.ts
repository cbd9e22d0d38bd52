import { ChunkpadError } from "../core/errors.js";
import type { RetryPolicy } from "./stream-runner.js";

/** Options every HTTP provider accepts. */
export interface HttpProviderOptions {
  model: string;
  /** Injected for tests and proxies; defaults to the global fetch. */
  fetch?: typeof globalThis.fetch;
  /** Where ANTHROPIC_*, OPENAI_* and OLLAMA_HOST are read from; defaults to process.env. */
  env?: Record<string, string | undefined>;
  retry?: Partial<RetryPolicy>;
}

/** A key as a value or as a function read at each call (so a key set later is picked up). */
export type ApiKeySource = string | (() => Promise<string | undefined>);

/** Answers longer than this are cut with finish reason "length"; answers from chunks are short. */
export const DEFAULT_MAX_OUTPUT_TOKENS = 2_048;

/** The configured key, else the provider's environment variable, else undefined. Read lazily. */
export async function resolveApiKey(
  source: ApiKeySource | undefined,
  env: Record<string, string | undefined>,
  variable: string,
): Promise<string | undefined> {
  const configured = typeof source === "function" ? await source() : source;
  const key = configured?.trim() || env[variable]?.trim();
  return key ? key : undefined;
}

export function missingKeyError(provider: "anthropic" | "openai", variable: string): ChunkpadError {
  const label = provider === "anthropic" ? "Anthropic" : "OpenAI";
  return new ChunkpadError(
    "LLM_NOT_CONFIGURED",
    `No ${label} API key is set (nor ${variable}).`,
    { nextSteps: [{ action: "set-api-key", provider }, { action: "set-up-llm" }] },
  );
}

export function isAbortError(error: unknown): boolean {
  return error instanceof Error && (error.name === "AbortError" || error.name === "APIUserAbortError");
}
