import { ChunkpadError } from "../core/errors.js";
import { SESSION_TOKEN_HEADER } from "../core/network.js";
import { localFetch, type LocalFetch } from "../core/local-http.js";
import type { Embedder } from "../core/types.js";
import type { EmbeddingDtype } from "./catalog.js";

/**
 * The embedding model of a running `chunkpad serve`, used by another process (a CLI search,
 * ask or embed) instead of loading the model again: texts go to POST /api/embed on 127.0.0.1
 * with the session token, vectors come back as little-endian float32 in base64. The server
 * loads the model from its cache once and keeps it; it never downloads.
 */

export interface DaemonEndpoint {
  url: string;
  token: string;
  pid: number;
}

export interface DaemonEmbedRequest {
  texts: string[];
  kind: "query" | "document";
  model?: string;
  dtype?: EmbeddingDtype;
}

export interface DaemonEmbedResponse {
  fingerprint: string;
  dimensions: number;
  maxTokens: number;
  /** base64 of each vector's float32 bytes (little-endian). */
  vectors: string[];
}

/** Texts per request: well under the server's body limit for chunks of a few thousand tokens. */
const TEXTS_PER_REQUEST = 32;

export function encodeVector(vector: Float32Array): string {
  return Buffer.from(vector.buffer, vector.byteOffset, vector.byteLength).toString("base64");
}

export function decodeVector(text: string): Float32Array {
  const bytes = Buffer.from(text, "base64");
  return new Float32Array(bytes.buffer.slice(bytes.byteOffset, bytes.byteOffset + bytes.byteLength));
}

async function post(endpoint: DaemonEndpoint, request: DaemonEmbedRequest, timeoutMs: number, fetchImpl: LocalFetch): Promise<DaemonEmbedResponse> {
  const response = await fetchImpl(`${endpoint.url}/api/embed`, {
    method: "POST",
    headers: { "content-type": "application/json", [SESSION_TOKEN_HEADER]: endpoint.token },
    body: JSON.stringify(request),
    signal: AbortSignal.timeout(timeoutMs),
  });
  const body = (await response.json().catch(() => ({}))) as Partial<DaemonEmbedResponse> & { code?: string; message?: string };
  if (!response.ok) {
    throw new ChunkpadError("EMBEDDING_FAILED", `chunkpad serve at ${endpoint.url} could not embed: ${body.message ?? `HTTP ${response.status}`}`, { details: { code: body.code } });
  }
  if (typeof body.fingerprint !== "string" || typeof body.dimensions !== "number" || !Array.isArray(body.vectors)) {
    throw new ChunkpadError("EMBEDDING_FAILED", `chunkpad serve at ${endpoint.url} answered /api/embed in an unknown shape; is it another version?`);
  }
  return body as DaemonEmbedResponse;
}

export interface DaemonEmbedderOptions {
  endpoint: DaemonEndpoint;
  model?: string;
  dtype?: EmbeddingDtype;
  /** How requests are sent (default: node:http, which a one-off command loads 40 ms of CPU faster than `fetch`). */
  fetch?: LocalFetch;
  /** How long to wait for the server to load its model and answer the first request. */
  connectTimeoutMs?: number;
}

/** Asks the server for its model (loading it there if needed); rejects when the server cannot serve it. */
export async function connectDaemonEmbedder(options: DaemonEmbedderOptions): Promise<Embedder & { readonly endpoint: DaemonEndpoint }> {
  const fetchImpl = options.fetch ?? localFetch;
  const base = { ...(options.model === undefined ? {} : { model: options.model }), ...(options.dtype === undefined ? {} : { dtype: options.dtype }) };
  const identity = await post(options.endpoint, { texts: [], kind: "query", ...base }, options.connectTimeoutMs ?? 60_000, fetchImpl);
  const embed = async (texts: string[], kind: "query" | "document"): Promise<Float32Array[]> => {
    const vectors: Float32Array[] = [];
    for (let start = 0; start < texts.length; start += TEXTS_PER_REQUEST) {
      const answer = await post(options.endpoint, { texts: texts.slice(start, start + TEXTS_PER_REQUEST), kind, ...base }, 600_000, fetchImpl);
      if (answer.fingerprint !== identity.fingerprint) {
        throw new ChunkpadError("EMBEDDING_FAILED", `chunkpad serve at ${options.endpoint.url} switched embedding models while this run used it; run the command again.`);
      }
      vectors.push(...answer.vectors.map(decodeVector));
    }
    return vectors;
  };
  return {
    endpoint: options.endpoint,
    dimensions: identity.dimensions,
    maxTokens: identity.maxTokens,
    fingerprint: identity.fingerprint,
    embedDocuments: (texts) => embed(texts, "document"),
    embedQuery: async (text) => (await embed([text], "query"))[0] as Float32Array,
  };
}
