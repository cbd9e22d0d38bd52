import { CONTEXT_PREFIX_VERSION } from "../core/context-prefix.js";

export interface FingerprintParts {
  provider: "local" | "ollama" | "openai";
  /** Hub id, directory path, or the provider's model name. */
  model: string;
  dtype?: string;
  pooling?: string;
  normalize?: boolean;
  queryPrefix: string;
  documentPrefix: string;
  maxTokens?: number;
  dimensions?: number;
}

/**
 * A stable string naming everything that changes the vectors. Two embedders with the same
 * fingerprint make interchangeable vectors; the app appends the chunker settings.
 */
export function embeddingFingerprint(parts: FingerprintParts): string {
  const ordered = {
    provider: parts.provider,
    model: parts.model,
    dtype: parts.dtype ?? null,
    pooling: parts.pooling ?? null,
    normalize: parts.normalize ?? null,
    queryPrefix: parts.queryPrefix,
    documentPrefix: parts.documentPrefix,
    maxTokens: parts.maxTokens ?? null,
    dimensions: parts.dimensions ?? null,
    contextPrefix: CONTEXT_PREFIX_VERSION,
  };
  return JSON.stringify(ordered);
}
