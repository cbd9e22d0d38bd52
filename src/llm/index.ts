// The LLM room: one LlmClient interface (src/core/types.ts), one file per provider, a factory,
// API keys, and the local model's download with consent.
export { createLlmClient, chooseProvider, modelFor, DEFAULT_LLM_MODELS, LLM_PROVIDER_NAMES, type LlmConfig, type LlmProviderName } from "./factory.js";
export type { AnthropicClientOptions } from "./anthropic.js";
export type { OpenAiClientOptions } from "./openai.js";
export { createOllamaClient, listOllamaModels, resolveOllamaHost, OLLAMA_DEFAULT_HOST, type OllamaClientOptions, type OllamaModel } from "./ollama.js";
export { createLlamaCppClient, type LlamaCppClientOptions, type LocalLlmClient } from "./llama-cpp.js";
export {
  ensureLocalLlm,
  localLlmStatus,
  resolveLocalLlm,
  formatBytes,
  LOCAL_LLM_MODELS,
  DEFAULT_LOCAL_LLM,
  type DownloadOffer,
  type EnsureLocalLlmOptions,
  type LocalLlmModel,
  type LocalLlmStatus,
} from "./local-model.js";
export {
  createSecretStore,
  KEY_ENVIRONMENT_VARIABLES,
  SECRET_PROVIDERS,
  type KeyDescription,
  type KeySource,
  type SecretProvider,
  type SecretStore,
  type SecretStoreOptions,
} from "./secrets.js";
export { createOsKeyring, type Keyring } from "./keyring.js";
export { DEFAULT_RETRY_POLICY, type RetryPolicy } from "./stream-runner.js";
export { redactSecrets } from "./errors.js";
