import { ChunkpadError } from "../core/errors.js";
import { modelPrefixes } from "./catalog.js";
import { embeddingFingerprint } from "./fingerprint.js";
import { badResponse, batches, normalizeVector, postJson, type RemoteEmbedder } from "./remote-request.js";

export const DEFAULT_OPENAI_BASE_URL = "https://api.openai.com/v1";
const OPENAI_BATCH_SIZE = 128;
/** OpenAI's embedding models read 8,191 tokens; our chunks are far shorter. */
const OPENAI_MAX_TOKENS = 8191;

/** Sizes of OpenAI's own models, so the dimension is known before the first call. */
const KNOWN_DIMENSIONS: Record<string, number> = {
  "text-embedding-3-small": 1536,
  "text-embedding-3-large": 3072,
  "text-embedding-ada-002": 1536,
};

export interface OpenAiEmbedderOptions {
  model: string;
  /** Any OpenAI-compatible server (`http://localhost:8080/v1`); default OpenAI. */
  baseURL?: string;
  /** The key, or a function read at call time (from the keychain or OPENAI_API_KEY). */
  apiKey?: string | (() => string | undefined | Promise<string | undefined>);
  fetch?: typeof fetch;
  dimensions?: number;
  /** Override the prefixes the catalog gives known models (a compatible server may serve nomic-embed-text). */
  queryPrefix?: string;
  documentPrefix?: string;
}

interface OpenAiEmbeddingResponse {
  data?: Array<{ index?: unknown; embedding?: unknown }>;
}

/** OpenAI's embeddings API: POST {baseURL}/embeddings { model, input, encoding_format: "float" }. */
export function createOpenAiEmbedder(options: OpenAiEmbedderOptions): RemoteEmbedder {
  const baseURL = (options.baseURL ?? DEFAULT_OPENAI_BASE_URL).replace(/\/+$/, "");
  const doFetch = options.fetch ?? globalThis.fetch;
  const serverLabel = baseURL === DEFAULT_OPENAI_BASE_URL ? "OpenAI" : `the embeddings server at ${baseURL}`;
  let dimensions = options.dimensions ?? KNOWN_DIMENSIONS[options.model] ?? 0;
  const { queryPrefix, documentPrefix } = modelPrefixes(options.model, options);

  const apiKey = async (): Promise<string | undefined> => (typeof options.apiKey === "function" ? await options.apiKey() : options.apiKey);

  const embedBatch = async (input: string[]): Promise<Float32Array[]> => {
    const key = await apiKey();
    if (key === undefined && baseURL === DEFAULT_OPENAI_BASE_URL) {
      throw new ChunkpadError("EMBEDDING_FAILED", "No OpenAI API key is set for embeddings (nor OPENAI_API_KEY).", { nextSteps: [{ action: "set-api-key", provider: "openai" }, { action: "change-setting", key: "embedding.provider", value: "local" }] });
    }
    const body = (await postJson({
      fetch: doFetch,
      url: `${baseURL}/embeddings`,
      body: { model: options.model, input, encoding_format: "float" },
      headers: key === undefined ? {} : { authorization: `Bearer ${key}` },
      serverLabel,
      unreachableHint: "Check your network connection and the base URL, or use the local embedding provider.",
      notFoundMessage: `${serverLabel} has no embedding model "${options.model}". Check the model name.`,
      authMessage: `${serverLabel} rejected the API key. Check OPENAI_API_KEY or the stored key.`,
    })) as OpenAiEmbeddingResponse;
    const rows = body.data;
    if (!Array.isArray(rows) || rows.length !== input.length || !rows.every((row) => Array.isArray(row.embedding))) {
      throw badResponse(serverLabel, "one embedding per input");
    }
    // The API may answer out of order; `index` says which input each row belongs to.
    const ordered = [...rows].sort((a, b) => Number(a.index ?? 0) - Number(b.index ?? 0));
    return ordered.map((row) => normalizeVector(row.embedding as number[]));
  };

  const embed = async (texts: string[]): Promise<Float32Array[]> => {
    const vectors: Float32Array[] = [];
    for (const batch of batches(texts, OPENAI_BATCH_SIZE)) vectors.push(...(await embedBatch(batch)));
    const first = vectors[0];
    if (first !== undefined) {
      if (dimensions === 0) dimensions = first.length;
      else if (first.length !== dimensions) {
        throw new ChunkpadError("EMBEDDING_MISMATCH", `${serverLabel} returned ${first.length}-dim vectors for "${options.model}", but ${dimensions} were expected.`);
      }
    }
    return vectors;
  };

  return {
    get dimensions() {
      return dimensions;
    },
    maxTokens: OPENAI_MAX_TOKENS,
    fingerprint: embeddingFingerprint({ provider: "openai", model: options.model, normalize: true, queryPrefix, documentPrefix }),
    embedDocuments: (texts) => embed(texts.map((text) => documentPrefix + text)),
    async embedQuery(text) {
      const [vector] = await embed([queryPrefix + text]);
      if (vector === undefined) throw badResponse(serverLabel, "an embedding");
      return vector;
    },
    async resolveDimensions() {
      if (dimensions === 0) await embed(["dimensions"]);
      return dimensions;
    },
  };
}
