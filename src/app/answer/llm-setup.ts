import { ChunkpadError } from "../../core/errors.js";
import { assertInstalled } from "../../core/optional-module.js";
import type { LlmClient } from "../../core/types.js";
import type { DownloadProgress } from "../../hub/index.js";
import {
  chooseProvider,
  createLlmClient,
  ensureLocalLlm,
  type EnsureLocalLlmOptions,
  formatBytes,
  LLM_PROVIDER_NAMES,
  localLlmStatus,
  modelFor,
  type DownloadOffer,
  type LlmProviderName,
  type LocalLlmClient,
  type LocalLlmModel,
  type RetryPolicy,
  type SecretStore,
} from "../../llm/index.js";
import type { ChunkpadConfig } from "../settings/config.js";

/**
 * Which LLM answers, and the client for it. The provider comes from --provider, else the
 * config (generation.provider), else the first that is set up: Anthropic if it has a key,
 * then OpenAI, else the local Llama 3.2 (downloaded only with the user's consent). Base URLs,
 * the Ollama host and the hub come from the resolved settings (settings.ts: environment, then
 * config file, then default), the same values `chunkpad providers` and `config list` show.
 */

export interface ProviderChoice {
  provider?: LlmProviderName;
  model?: string;
}

export interface LlmSelection {
  provider: LlmProviderName;
  model: string;
  /** How the provider was chosen: named on the command line, in the config, or picked as the first set up. */
  chosenBy: "option" | "config" | "automatic";
}

export interface LlmSetupDependencies {
  /** The resolved settings (environment already applied). */
  getConfig: () => ChunkpadConfig;
  secrets: SecretStore;
  /** The model cache (paths.modelsDir). */
  modelsDir: string;
  fetch?: typeof globalThis.fetch;
  retry?: Partial<RetryPolicy>;
}

export interface PrepareOptions {
  /** Asked before the local model is downloaded; without it nothing is downloaded. */
  consent?: (offer: DownloadOffer) => Promise<boolean> | boolean;
  onDownloadProgress?: (progress: DownloadProgress) => void;
  /** Told when the provider retries (rate limit, server error). */
  onNotice?: (message: string) => void;
  signal?: AbortSignal;
}

export interface LlmSetup {
  select(choice?: ProviderChoice): Promise<LlmSelection>;
  /** The client for a selection; downloads the local model first when needed and agreed to. */
  client(selection: LlmSelection, options?: PrepareOptions): Promise<LlmClient>;
  /** Downloads the local model (the configured one unless named) if it is missing and `consent` agrees; its path. */
  downloadLocal(options: { model?: string; consent?: EnsureLocalLlmOptions["consent"]; onProgress?: EnsureLocalLlmOptions["onProgress"]; signal?: AbortSignal }): Promise<string>;
  /** Frees the local model, if one was loaded. */
  close(): Promise<void>;
}

export function parseProviderName(value: string): LlmProviderName {
  const name = value.trim().toLowerCase();
  if ((LLM_PROVIDER_NAMES as readonly string[]).includes(name)) return name as LlmProviderName;
  throw new ChunkpadError("INVALID_ARGUMENT", `Unknown LLM provider "${value}". Use one of ${LLM_PROVIDER_NAMES.join(", ")}.`);
}

export function createLlmSetup(dependencies: LlmSetupDependencies): LlmSetup {
  const { secrets } = dependencies;
  const clients = new Map<string, LlmClient>();
  // The latest caller's listener: clients are kept between questions, listeners are not.
  let notify: ((message: string) => void) | undefined;

  async function select(choice: ProviderChoice = {}): Promise<LlmSelection> {
    const generation = dependencies.getConfig().generation;
    const named = choice.provider ?? generation.provider;
    const provider = await chooseProvider(named, async (candidate) => (await secrets.get(candidate)) !== undefined);
    const chosenBy = choice.provider ? "option" : generation.provider ? "config" : "automatic";
    return { provider, model: modelFor({ provider, model: choice.model, models: generation.models }), chosenBy };
  }

  async function prepareLocal(selection: LlmSelection, options: PrepareOptions): Promise<void> {
    // Before any download: a model is no use without the runtime that runs it.
    assertInstalled("node-llama-cpp");
    const status = localLlmStatus(dependencies.modelsDir, selection.model);
    if (status.downloaded) return;
    const consent = options.consent;
    if (!consent && !("path" in status.model)) throw consentRequired(selection, status.model);
    await downloadLocal({
      model: selection.model,
      ...(consent ? { consent } : {}),
      ...(options.onDownloadProgress ? { onProgress: options.onDownloadProgress } : {}),
      ...(options.signal ? { signal: options.signal } : {}),
    });
  }

  async function downloadLocal({ model, consent, onProgress, signal }: Parameters<LlmSetup["downloadLocal"]>[0]): Promise<string> {
    const generation = dependencies.getConfig().generation;
    return await ensureLocalLlm({
      cacheDir: dependencies.modelsDir,
      hubUrl: generation.hubUrl,
      model: model ?? generation.models.local,
      ...(consent ? { consent } : {}),
      ...(onProgress ? { onProgress } : {}),
      ...(dependencies.fetch ? { fetch: dependencies.fetch } : {}),
      ...(signal ? { signal } : {}),
    });
  }

  async function client(selection: LlmSelection, options: PrepareOptions = {}): Promise<LlmClient> {
    notify = options.onNotice;
    if (selection.provider === "local") await prepareLocal(selection, options);
    const generation = dependencies.getConfig().generation;
    const baseURL = selection.provider === "anthropic" ? generation.anthropicBaseUrl : selection.provider === "openai" ? generation.openaiBaseUrl : undefined;
    const host = selection.provider === "ollama" ? generation.ollamaHost : undefined;
    // Where the client sends questions (and the key) is part of its identity: a changed base URL gets a new client at once.
    const key = JSON.stringify([selection.provider, selection.model, baseURL ?? null, host ?? null]);
    const existing = clients.get(key);
    if (existing) return existing;
    const provider = selection.provider;
    const created = createLlmClient({
      provider,
      model: selection.model,
      ...(baseURL ? { baseURL } : {}),
      ...(host ? { host } : {}),
      // Read at each call, so a key set while the server runs is used.
      ...(provider === "anthropic" || provider === "openai" ? { apiKey: () => secrets.get(provider) } : {}),
      ...(dependencies.fetch ? { fetch: dependencies.fetch } : {}),
      cacheDir: dependencies.modelsDir,
      // The settings above already weighed the environment; the clients must not read it again in another order.
      env: {},
      retry: {
        ...dependencies.retry,
        onRetry: ({ delayMs, error }) => notify?.(`${error.message} Retrying in ${Math.ceil(delayMs / 1000)} s.`),
      },
    });
    clients.set(key, created);
    return created;
  }

  return {
    select,
    client,
    downloadLocal,
    async close() {
      const open = [...clients.values()];
      clients.clear();
      for (const opened of open) {
        if ("dispose" in opened) await (opened as LocalLlmClient).dispose().catch(() => undefined);
      }
    },
  };
}

function consentRequired(selection: LlmSelection, model: LocalLlmModel): ChunkpadError {
  const what = `${model.label} (${formatBytes(model.approximateSizeBytes)})`;
  const why = selection.chosenBy === "automatic" ? "No LLM provider is configured and no API key is set, so answers need the local model" : "Answers need the local model";
  return new ChunkpadError(
    "MODEL_CONSENT_REQUIRED",
    `${why} ${what}, which is not downloaded.`,
    { nextSteps: [{ action: "download-model", model: "llm" }, { action: "set-up-llm" }] },
  );
}
