import path from "node:path";
import type { Embedder, ModelStatus } from "../core/types.js";
import { assertInstalled } from "../core/optional-module.js";
import { resolveModel, type EmbeddingDtype, type Pooling, type ResolvedModel } from "./catalog.js";
import { ensureModelAvailable, type ModelConsentRequest } from "./ensure-model.js";
import { createLocalOnnxEmbedder } from "./local-onnx.js";
import { createModelStatusTracker } from "./model-status.js";
import { createOllamaEmbedder } from "./ollama.js";
import { createOpenAiEmbedder } from "./openai.js";

export type EmbeddingProvider = "local" | "ollama" | "openai";

export interface EmbedderConfig {
  provider: EmbeddingProvider;
  /** Catalog name, hub id or local directory (local); the provider's model name otherwise. */
  model: string;
  dtype?: EmbeddingDtype;
  /** Where downloaded models live (`{cacheDir}/{owner}/{name}`). */
  cacheDir: string;
  hubUrl: string;
  /** Ollama host or OpenAI-compatible base URL. */
  baseUrl?: string;
  apiKey?: string | (() => string | undefined | Promise<string | undefined>);
  fetch?: typeof fetch;
  /** Vector size, when known in advance (remote providers). */
  dimensions?: number;
  /** Settings for models the catalog does not know (embedding.pooling, queryPrefix, documentPrefix). */
  pooling?: Pooling;
  queryPrefix?: string;
  documentPrefix?: string;
  /** Local provider: ONNX Runtime intra-op threads and texts per inference run. */
  threads?: number;
  batchSize?: number;
  /** Local provider: "caller" runs a BERT model in the calling thread, not a worker (local-onnx.ts). */
  modelThread?: "worker" | "caller";
}

export interface CreateEmbedderOptions {
  onStatus?: (status: ModelStatus) => void;
  /** `chunkpad embed` may download (after consent); search never does. Default false. */
  allowDownload?: boolean;
  consent?: (info: ModelConsentRequest) => Promise<boolean>;
  signal?: AbortSignal;
}

/** A local model's files and settings, with the config's dtype, pooling and prefixes applied. */
export function resolveLocalModel(config: EmbedderConfig): ResolvedModel {
  return resolveModel(config.model, {
    ...(config.dtype === undefined ? {} : { dtype: config.dtype }),
    ...(config.pooling === undefined ? {} : { pooling: config.pooling }),
    ...(config.queryPrefix === undefined ? {} : { queryPrefix: config.queryPrefix }),
    ...(config.documentPrefix === undefined ? {} : { documentPrefix: config.documentPrefix }),
  });
}

type EmbedderFactory = (config: EmbedderConfig, options: CreateEmbedderOptions) => Promise<Embedder>;

async function createLocal(config: EmbedderConfig, options: CreateEmbedderOptions): Promise<Embedder> {
  // Before any download: a model is no use without the runtime that reads it.
  assertInstalled("@huggingface/transformers", "onnxruntime-node");
  const status = createModelStatusTracker({ state: "notDownloaded" }, options.onStatus);
  const model = resolveLocalModel(config);
  const modelDirectory = await ensureModelAvailable({
    model: config.model,
    ...(config.dtype === undefined ? {} : { dtype: config.dtype }),
    cacheDir: config.cacheDir,
    hubUrl: config.hubUrl,
    ...(config.fetch === undefined ? {} : { fetch: config.fetch }),
    ...(options.consent === undefined ? {} : { consent: options.consent }),
    ...(options.signal === undefined ? {} : { signal: options.signal }),
    onStatus: (next) => status.set(next),
    allowDownload: options.allowDownload ?? false,
  });
  const embedder = createLocalOnnxEmbedder({
    modelDirectory,
    model,
    ...(config.threads === undefined ? {} : { threads: config.threads }),
    ...(config.batchSize === undefined ? {} : { batchSize: config.batchSize }),
    ...(config.modelThread === undefined ? {} : { thread: config.modelThread }),
    // Beside the downloaded models: transformers.js compiled once, not at every load (issue 22).
    codeCacheDirectory: path.join(config.cacheDir, ".compiled"),
    onStatus: (next) => status.set(next),
  });
  await embedder.load();
  return embedder;
}

async function createOllama(config: EmbedderConfig, options: CreateEmbedderOptions): Promise<Embedder> {
  const embedder = createOllamaEmbedder({
    model: config.model,
    ...(config.baseUrl === undefined ? {} : { host: config.baseUrl }),
    ...(config.fetch === undefined ? {} : { fetch: config.fetch }),
    ...(config.dimensions === undefined ? {} : { dimensions: config.dimensions }),
    ...(config.queryPrefix === undefined ? {} : { queryPrefix: config.queryPrefix }),
    ...(config.documentPrefix === undefined ? {} : { documentPrefix: config.documentPrefix }),
  });
  options.onStatus?.({ state: "ready" });
  return embedder;
}

async function createOpenAi(config: EmbedderConfig, options: CreateEmbedderOptions): Promise<Embedder> {
  const embedder = createOpenAiEmbedder({
    model: config.model,
    ...(config.baseUrl === undefined ? {} : { baseURL: config.baseUrl }),
    ...(config.apiKey === undefined ? {} : { apiKey: config.apiKey }),
    ...(config.fetch === undefined ? {} : { fetch: config.fetch }),
    ...(config.dimensions === undefined ? {} : { dimensions: config.dimensions }),
    ...(config.queryPrefix === undefined ? {} : { queryPrefix: config.queryPrefix }),
    ...(config.documentPrefix === undefined ? {} : { documentPrefix: config.documentPrefix }),
  });
  options.onStatus?.({ state: "ready" });
  return embedder;
}

/** One line per provider. */
const PROVIDERS: Record<EmbeddingProvider, EmbedderFactory> = {
  local: createLocal,
  ollama: createOllama,
  openai: createOpenAi,
};

/**
 * The embedder the config asks for, ready to use. The local provider loads its model from the
 * cache; it downloads only with `allowDownload` and the user's consent.
 */
export async function createEmbedder(config: EmbedderConfig, options: CreateEmbedderOptions = {}): Promise<Embedder> {
  return PROVIDERS[config.provider](config, options);
}
