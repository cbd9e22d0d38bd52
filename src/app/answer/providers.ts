import { describeError } from "../../core/errors.js";
import { redactUrl } from "../../core/redact.js";
import { isInstalled, OPTIONAL_MODULES } from "../../core/optional-module.js";
import { listOllamaModels, localLlmStatus, modelFor, type KeyDescription, type LlmProviderName, type SecretStore } from "../../llm/index.js";
import type { ChunkpadConfig } from "../settings/config.js";

/** One provider as `chunkpad providers` shows it: ready or not, and why. */
export interface ProviderStatus {
  provider: LlmProviderName;
  /** The model a question would use now (flag-free). */
  model: string;
  /** True when this is the provider a question would use now. */
  selected: boolean;
  ready: boolean;
  /** What is missing or where things come from, in a sentence. */
  detail: string;
  /** Where the key comes from (cloud providers); never the key. */
  keySource?: string | null;
  baseUrl?: string;
  /** Models installed in Ollama, when it answered. */
  installedModels?: string[];
  /** The local model's approximate download size, while it is not downloaded (a catalog model). */
  downloadBytes?: number;
}

export interface ProviderStatusOptions {
  /** The resolved settings (environment already applied). */
  config: ChunkpadConfig;
  secrets: SecretStore;
  modelsDir: string;
  selected: LlmProviderName;
  fetch?: typeof globalThis.fetch;
}

const OLLAMA_LIST_TIMEOUT_MS = 3_000;

/** "key from the environment variable OPENAI_API_KEY (overrides the key in the OS keychain)". */
function describeKeySource(key: KeyDescription): string {
  if (key.source !== "environment") return `key from the ${key.source ?? "nowhere"}`;
  return `key from the ${key.location}${key.overrides ? ` (overrides the key in ${key.overrides === "OS keychain" ? "the OS keychain" : key.overrides})` : ""}`;
}

/** Asks each provider what it has: keys, Ollama's installed models, the local model's download. */
export async function describeProviders(options: ProviderStatusOptions): Promise<ProviderStatus[]> {
  const { config, secrets, selected } = options;
  const generation = config.generation;
  const model = (provider: LlmProviderName) => modelFor({ provider, models: generation.models });
  const rows: ProviderStatus[] = [];

  for (const provider of ["anthropic", "openai"] as const) {
    const key = await secrets.describe(provider);
    const baseUrl = provider === "anthropic" ? generation.anthropicBaseUrl : generation.openaiBaseUrl;
    const ready = key.source !== null || (provider === "openai" && baseUrl !== undefined);
    rows.push({
      provider,
      model: model(provider),
      selected: selected === provider,
      ready,
      keySource: key.source,
      ...(baseUrl ? { baseUrl: redactUrl(baseUrl) } : {}),
      detail: key.source ? describeKeySource(key) : ready ? "no key (a compatible server at the base URL)" : "no key set",
    });
  }

  // The host `ask` uses: the resolved setting (OLLAMA_HOST, then the config, then the default).
  const host = generation.ollamaHost;
  // Shown without a credential it may carry (user:password@, ?key=).
  const shownHost = redactUrl(host);
  try {
    const signal = AbortSignal.timeout(OLLAMA_LIST_TIMEOUT_MS);
    const installed = (await listOllamaModels(host, options.fetch, { env: {}, signal })).map((entry) => entry.name);
    const wanted = model("ollama");
    const has = installed.some((name) => name === wanted || name === `${wanted}:latest`);
    rows.push({
      provider: "ollama",
      model: wanted,
      selected: selected === "ollama",
      ready: has,
      baseUrl: shownHost,
      installedModels: installed,
      detail: has ? `running at ${shownHost}` : `running at ${shownHost}, but ${wanted} is not installed: run "ollama pull ${wanted}"`,
    });
  } catch (error) {
    rows.push({ provider: "ollama", model: model("ollama"), selected: selected === "ollama", ready: false, baseUrl: shownHost, detail: `not reachable at ${shownHost} (${redactUrl(describeError(error).split("\n")[0] ?? "")})` });
  }

  const local = localLlmStatus(options.modelsDir, generation.models.local);
  const runtime = isInstalled("node-llama-cpp");
  const modelDetail = local.downloaded ? `downloaded: ${local.path}` : "not downloaded; the first question offers the download (with your consent)";
  rows.push({
    provider: "local",
    model: model("local"),
    selected: selected === "local",
    ready: local.downloaded && runtime,
    detail: runtime ? modelDetail : `node-llama-cpp is not installed. ${OPTIONAL_MODULES["node-llama-cpp"].howToGet}`,
    ...(!local.downloaded && "approximateSizeBytes" in local.model ? { downloadBytes: local.model.approximateSizeBytes } : {}),
  });
  return rows;
}
