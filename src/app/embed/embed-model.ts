import type { ModelStatus } from "../../core/types.js";
import type { EmbeddingDtype } from "../../embedding/catalog.js";
import { ensureModelAvailable } from "../../embedding/ensure-model.js";
import { getModelStatus } from "../../embedding/model-status.js";
import { resolveLocalModel, type EmbedderConfig } from "../../embedding/registry.js";
import { cachedModelDir } from "../../hub/index.js";
import type { EmbedConsentRequest } from "./embed-selected.js";
import { modelIdentity } from "./embedder-setup.js";

/**
 * The embedding model on its own, for `chunkpad model status|download` and a settings screen:
 * where it stands (notDownloaded / ready / error, from files alone) and an explicit download
 * with consent, ahead of the first `chunkpad embed`.
 */

export interface ModelRequest {
  model?: string;
  dtype?: EmbeddingDtype;
}

export interface ModelReport {
  provider: string;
  /** What the config or --model names. */
  spec: string;
  /** Hub id or absolute directory (local), or the provider's model name. */
  model: string;
  dtype: string | null;
  status: ModelStatus;
  /** Dimensions when known without loading (catalog or the directory's config.json). */
  dimensions: number | null;
  /** Download size the catalog estimates; null when unknown. */
  approximateBytes: number | null;
  /** Where the files are (or will be) on disk; null for remote providers. */
  location: string | null;
  hubUrl: string;
  /** Set when a setting was guessed for a model the catalog does not know. */
  assumption: string | null;
}

export interface DownloadModelOptions {
  consent?: (request: EmbedConsentRequest) => Promise<boolean>;
  onStatus?: (status: ModelStatus) => void;
  signal?: AbortSignal;
}

/** From files alone: no network, no loading. */
export function describeModel(embedderConfig: EmbedderConfig): ModelReport {
  const identity = modelIdentity(embedderConfig);
  const base = { provider: identity.provider, spec: embedderConfig.model, model: identity.model, dtype: identity.dtype, hubUrl: embedderConfig.hubUrl };
  if (embedderConfig.provider !== "local") {
    return { ...base, status: { state: "ready" }, dimensions: embedderConfig.dimensions ?? null, approximateBytes: null, location: null, assumption: null };
  }
  const resolved = resolveLocalModel(embedderConfig);
  const status = getModelStatus({ model: embedderConfig.model, cacheDir: embedderConfig.cacheDir, ...(embedderConfig.dtype === undefined ? {} : { dtype: embedderConfig.dtype }) });
  const location = resolved.directory ?? cachedModelDir(embedderConfig.cacheDir, identity.model);
  return { ...base, status, dimensions: resolved.dimensions, approximateBytes: resolved.approximateBytes, location, assumption: resolved.assumption ?? null };
}

/** Downloads the model into the cache after consent; a cached model or a local directory costs nothing. */
export async function downloadModel(embedderConfig: EmbedderConfig, options: DownloadModelOptions = {}): Promise<ModelReport> {
  if (embedderConfig.provider === "local") {
    await ensureModelAvailable({
      model: embedderConfig.model,
      ...(embedderConfig.dtype === undefined ? {} : { dtype: embedderConfig.dtype }),
      cacheDir: embedderConfig.cacheDir,
      hubUrl: embedderConfig.hubUrl,
      ...(embedderConfig.fetch === undefined ? {} : { fetch: embedderConfig.fetch }),
      consent: async (request) => (options.consent ? await options.consent({ ...request, hubUrl: embedderConfig.hubUrl, cacheDir: embedderConfig.cacheDir }) : Promise.resolve(false)),
      ...(options.onStatus === undefined ? {} : { onStatus: options.onStatus }),
      ...(options.signal === undefined ? {} : { signal: options.signal }),
      allowDownload: true,
    });
  }
  return describeModel(embedderConfig);
}
