// The embedding room: catalog, model download and cache, providers, status.
export {
  DEFAULT_EMBEDDING_MODEL,
  EMBEDDING_CATALOG,
  MAX_EMBEDDING_TOKENS,
  MODEL_FILE_BY_DTYPE,
  findCatalogEntry,
  resolveModel,
  type CatalogEntry,
  type EmbeddingDtype,
  type Pooling,
  type ResolveModelOptions,
  type ResolvedModel,
} from "./catalog.js";
export { CONTEXT_PREFIX_VERSION, withContextPrefix, type ChunkContext } from "../core/context-prefix.js";
export { embeddingFingerprint, type FingerprintParts } from "./fingerprint.js";
export { createModelStatusTracker, getModelStatus, type ModelStatusListener, type ModelStatusQuery, type ModelStatusTracker } from "./model-status.js";
export { ensureModelAvailable, formatBytes, type EnsureModelOptions, type ModelConsentRequest } from "./ensure-model.js";
export { createLocalOnnxEmbedder, type LocalOnnxEmbedder, type LocalOnnxOptions } from "./local-onnx.js";
export { createOllamaEmbedder, DEFAULT_OLLAMA_HOST, type OllamaEmbedderOptions } from "./ollama.js";
export { createOpenAiEmbedder, DEFAULT_OPENAI_BASE_URL, type OpenAiEmbedderOptions } from "./openai.js";
export type { RemoteEmbedder } from "./remote-request.js";
export { createEmbedder, type CreateEmbedderOptions, type EmbedderConfig, type EmbeddingProvider } from "./registry.js";
