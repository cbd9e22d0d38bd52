import { ChunkpadError } from "../core/errors.js";
import type { ChatMessage, ChatOptions, ChatResult, ChatStreamPart, LlmClient, ModelStatus } from "../core/types.js";
import { createLlamaCppClient } from "./llama-cpp.js";
import { DEFAULT_LOCAL_LLM, localLlmStatus } from "./local-model.js";
import { createOllamaClient } from "./ollama.js";
import type { RetryPolicy } from "./stream-runner.js";

/** Picks the provider by name: adding one is one file and one line in PROVIDERS. */

export type LlmProviderName = "anthropic" | "openai" | "ollama" | "local";
export const LLM_PROVIDER_NAMES: readonly LlmProviderName[] = ["anthropic", "openai", "ollama", "local"];

/** Used when neither --model nor generation.models.{provider} says otherwise. */
export const DEFAULT_LLM_MODELS: Readonly<Record<LlmProviderName, string>> = {
  anthropic: "claude-sonnet-4-6",
  openai: "gpt-4o-mini",
  ollama: "llama3.2",
  local: DEFAULT_LOCAL_LLM,
};

export interface LlmConfig {
  provider: LlmProviderName;
  /** The model for this call (--model); else `models[provider]`; else DEFAULT_LLM_MODELS. */
  model?: string;
  /** Per-provider models from the config file (generation.models). */
  models?: Partial<Record<string, string>>;
  /** Anthropic or OpenAI-compatible base URL. */
  baseURL?: string;
  /** Ollama host. */
  host?: string;
  /** Read at each call, so a key set while the server runs is used (a SecretStore's get). */
  apiKey?: () => Promise<string | undefined>;
  fetch?: typeof globalThis.fetch;
  /** The model cache (paths.modelsDir), where the local GGUF lives. */
  cacheDir: string;
  env?: Record<string, string | undefined>;
  retry?: Partial<RetryPolicy>;
  /** Local model only: loading progress and node-llama-cpp's log lines. */
  onStatus?: (status: ModelStatus) => void;
  onLog?: (message: string) => void;
}

type ProviderFactory = (config: LlmConfig, model: string) => LlmClient;

const PROVIDERS: Record<LlmProviderName, ProviderFactory> = {
  // The SDKs take a quarter of a second to load: only a question that uses one loads it.
  anthropic: (config, model) =>
    lazyClient("anthropic", model, async () =>
      (await import("./anthropic.js")).createAnthropicClient({ model, apiKey: config.apiKey, baseURL: config.baseURL, fetch: config.fetch, env: config.env, retry: config.retry }),
    ),
  openai: (config, model) =>
    lazyClient("openai", model, async () =>
      (await import("./openai.js")).createOpenAiClient({ model, apiKey: config.apiKey, baseURL: config.baseURL, fetch: config.fetch, env: config.env, retry: config.retry }),
    ),
  ollama: (config, model) => createOllamaClient({ model, host: config.host, fetch: config.fetch, env: config.env, retry: config.retry }),
  // The local client does not download: call ensureLocalLlm (with the user's consent) first,
  // otherwise the first question reports MODEL_NOT_DOWNLOADED.
  local: (config, model) =>
    createLlamaCppClient({ model, modelPath: localLlmStatus(config.cacheDir, model).path, onStatus: config.onStatus, onLog: config.onLog }),
};

/** A client whose provider module is imported on the first call. */
function lazyClient(provider: string, model: string, load: () => Promise<LlmClient>): LlmClient {
  let loaded: Promise<LlmClient> | undefined;
  const client = () => (loaded ??= load());
  return {
    provider,
    model,
    async chat(messages: ChatMessage[], options?: ChatOptions): Promise<ChatResult> {
      return (await client()).chat(messages, options);
    },
    async *chatStream(messages: ChatMessage[], options?: ChatOptions): AsyncIterable<ChatStreamPart> {
      yield* (await client()).chatStream(messages, options);
    },
  };
}

export function createLlmClient(config: LlmConfig): LlmClient {
  const factory = PROVIDERS[config.provider];
  if (!factory) {
    throw new ChunkpadError("INVALID_ARGUMENT", `Unknown LLM provider "${String(config.provider)}". Use one of ${LLM_PROVIDER_NAMES.join(", ")}.`);
  }
  return factory(config, modelFor(config));
}

export function modelFor(config: Pick<LlmConfig, "provider" | "model" | "models">): string {
  return config.model || config.models?.[config.provider] || DEFAULT_LLM_MODELS[config.provider];
}

/**
 * The provider to use when the user named none: Anthropic, then OpenAI, if a key is set;
 * otherwise the local model (which the app offers to download, with consent).
 */
export async function chooseProvider(
  configured: LlmProviderName | undefined,
  hasKey: (provider: "anthropic" | "openai") => Promise<boolean>,
): Promise<LlmProviderName> {
  if (configured) return configured;
  if (await hasKey("anthropic")) return "anthropic";
  if (await hasKey("openai")) return "openai";
  return "local";
}
