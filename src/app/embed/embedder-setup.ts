import { findCatalogEntry, modelPrefixes, resolveModel, type EmbeddingDtype } from "../../embedding/catalog.js";
import { resolveLocalModel, type EmbedderConfig } from "../../embedding/registry.js";
import { createSecretStore } from "../../llm/index.js";
import type { ChunkpadConfig } from "../settings/config.js";
import type { ChunkpadPaths } from "../settings/paths.js";
import type { ModelIdentity } from "../../embedding/vector-fingerprint.js";

export type { ModelIdentity };

/**
 * The embedder settings, in one place for `embed` and `search`: they must agree on the model,
 * the model cache and the hub, or search would look for vectors another model made.
 */

/** What a command line may change for one run (`--model`, `--dtype`), plus tuning. */
export interface EmbedderOverrides {
  model?: string;
  dtype?: EmbeddingDtype;
  /** ONNX Runtime intra-op threads (local provider); default: up to 4. */
  threads?: number;
  /** "caller": a local BERT model loads and runs in the calling thread, not a worker (local-onnx.ts). */
  modelThread?: "worker" | "caller";
}

/** The OpenAI key as `chunkpad keys` keeps it; CHUNKPAD_KEYCHAIN=off skips the OS keychain. */
function openAiKey(paths: ChunkpadPaths, env: NodeJS.ProcessEnv): Promise<string | undefined> {
  const keychainOff = env.CHUNKPAD_KEYCHAIN?.toLowerCase() === "off";
  return createSecretStore({ configDir: paths.configDir, env, ...(keychainOff ? { keyring: null } : {}) }).get("openai");
}

/**
 * The embedding server: embedding.baseUrl when set (a server for embeddings only), else the
 * resolved Ollama host or OpenAI base URL that answers use too.
 */
function serverUrlFor(config: ChunkpadConfig): string | undefined {
  const { provider, baseUrl } = config.embedding;
  if (baseUrl !== undefined) return baseUrl;
  if (provider === "ollama") return config.generation.ollamaHost;
  if (provider === "openai") return config.generation.openaiBaseUrl;
  return undefined;
}

/** True when the catalog knows the model: its pooling and prefixes come from the model card, not the config. */
function inCatalog(provider: EmbedderConfig["provider"], model: string): boolean {
  if (provider !== "local") return findCatalogEntry(model) !== undefined;
  try {
    return resolveModel(model).entry !== undefined;
  } catch {
    return false;
  }
}

/**
 * embedding.pooling, queryPrefix and documentPrefix, for a model the catalog does not know. A
 * catalog model keeps its model card's values, so a setting left over from another model cannot
 * quietly spoil it.
 */
function modelSettings(config: ChunkpadConfig, provider: EmbedderConfig["provider"], model: string): Pick<EmbedderConfig, "pooling" | "queryPrefix" | "documentPrefix"> {
  if (inCatalog(provider, model)) return {};
  const { pooling, queryPrefix, documentPrefix } = config.embedding;
  return {
    ...(pooling === undefined || provider !== "local" ? {} : { pooling }),
    ...(queryPrefix === undefined ? {} : { queryPrefix }),
    ...(documentPrefix === undefined ? {} : { documentPrefix }),
  };
}

/** The embedder for the resolved settings; `env` only for the OpenAI key (keys are not settings). */
export function embedderConfigFor(config: ChunkpadConfig, paths: ChunkpadPaths, env: NodeJS.ProcessEnv, overrides: EmbedderOverrides = {}): EmbedderConfig {
  const { embedding } = config;
  const baseUrl = serverUrlFor(config);
  const model = overrides.model ?? embedding.model;
  return {
    provider: embedding.provider,
    model,
    dtype: overrides.dtype ?? embedding.dtype,
    cacheDir: paths.modelsDir,
    hubUrl: embedding.hubUrl,
    ...(baseUrl === undefined ? {} : { baseUrl }),
    ...modelSettings(config, embedding.provider, model),
    // Read when a request is made (OPENAI_API_KEY, the keychain or the key file), never kept in the config.
    apiKey: () => openAiKey(paths, env),
    ...(overrides.threads === undefined ? {} : { threads: overrides.threads }),
    ...(overrides.modelThread === undefined ? {} : { modelThread: overrides.modelThread }),
  };
}

/**
 * The identity the embedder will report, from the config alone (no files read beyond a local
 * directory's config.json, no network). Throws INVALID_ARGUMENT for a model spec that is
 * neither a catalog name, a hub id nor a directory.
 */
export function modelIdentity(embedderConfig: EmbedderConfig): ModelIdentity {
  if (embedderConfig.provider !== "local") {
    return { provider: embedderConfig.provider, model: embedderConfig.model, dtype: null, pooling: null, ...modelPrefixes(embedderConfig.model, embedderConfig) };
  }
  const resolved = resolveLocalModel(embedderConfig);
  return {
    provider: "local",
    model: resolved.repoId ?? resolved.directory ?? resolved.spec,
    dtype: resolved.dtype,
    pooling: resolved.pooling,
    queryPrefix: resolved.queryPrefix,
    documentPrefix: resolved.documentPrefix,
  };
}

/**
 * The value to remember in the config for a model chosen on the command line: a local
 * directory as an absolute path (the next run may start elsewhere), anything else as typed.
 */
export function configModelValue(embedderConfig: EmbedderConfig): string {
  if (embedderConfig.provider !== "local") return embedderConfig.model;
  const resolved = resolveModel(embedderConfig.model);
  return resolved.directory ?? embedderConfig.model.trim();
}
