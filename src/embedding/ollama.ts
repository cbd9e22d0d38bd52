import { ChunkpadError } from "../core/errors.js";
import { MAX_EMBEDDING_TOKENS, modelPrefixes } from "./catalog.js";
import { embeddingFingerprint } from "./fingerprint.js";
import { badResponse, batches, normalizeVector, postJson, type RemoteEmbedder } from "./remote-request.js";

export const DEFAULT_OLLAMA_HOST = "http://127.0.0.1:11434";
const OLLAMA_BATCH_SIZE = 32;

export interface OllamaEmbedderOptions {
  /** An Ollama embedding model (`nomic-embed-text`, `mxbai-embed-large`, `bge-large`...). */
  model: string;
  host?: string;
  fetch?: typeof fetch;
  /** Known in advance; otherwise learned from the first answer. */
  dimensions?: number;
  /** Override the prefixes the catalog gives known models. */
  queryPrefix?: string;
  documentPrefix?: string;
}

interface OllamaEmbedResponse {
  embeddings?: unknown;
}

/** Ollama's embedding API: POST {host}/api/embed { model, input: [...] }. */
export function createOllamaEmbedder(options: OllamaEmbedderOptions): RemoteEmbedder {
  const host = (options.host ?? DEFAULT_OLLAMA_HOST).replace(/\/+$/, "");
  const doFetch = options.fetch ?? globalThis.fetch;
  const { queryPrefix, documentPrefix } = modelPrefixes(options.model, options);
  const serverLabel = `Ollama at ${host}`;
  let dimensions = options.dimensions ?? 0;

  const embedBatch = async (input: string[]): Promise<Float32Array[]> => {
    const body = (await postJson({
      fetch: doFetch,
      url: `${host}/api/embed`,
      body: { model: options.model, input, truncate: true },
      serverLabel,
      unreachableHint: "Start Ollama (`ollama serve`), or set the Ollama host in the config, or use the local embedding provider.",
      notFoundMessage: `Ollama has no model "${options.model}". Run \`ollama pull ${options.model}\` first.`,
    })) as OllamaEmbedResponse;
    const embeddings = body.embeddings;
    if (!Array.isArray(embeddings) || embeddings.length !== input.length || !embeddings.every((row) => Array.isArray(row))) {
      throw badResponse(serverLabel, `one embedding per input`);
    }
    return (embeddings as number[][]).map((row) => normalizeVector(row));
  };

  const embed = async (texts: string[]): Promise<Float32Array[]> => {
    const vectors: Float32Array[] = [];
    for (const batch of batches(texts, OLLAMA_BATCH_SIZE)) vectors.push(...(await embedBatch(batch)));
    const first = vectors[0];
    if (first !== undefined) {
      if (dimensions === 0) dimensions = first.length;
      else if (first.length !== dimensions) {
        throw new ChunkpadError("EMBEDDING_MISMATCH", `Ollama's "${options.model}" returned ${first.length}-dim vectors, but ${dimensions} were expected: the model changed.`, { nextSteps: [{ action: "embed", reembed: true }] });
      }
    }
    return vectors;
  };

  return {
    get dimensions() {
      return dimensions;
    },
    maxTokens: MAX_EMBEDDING_TOKENS,
    fingerprint: embeddingFingerprint({ provider: "ollama", model: options.model, normalize: true, queryPrefix, documentPrefix }),
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
