import { ChunkpadError } from "../core/errors.js";
import type { ChunkingOptions } from "../core/types.js";
import type { EmbeddingDtype, Pooling } from "./catalog.js";
import { CONTEXT_PREFIX_VERSION } from "../core/context-prefix.js";
import type { EmbedderConfig } from "./registry.js";

/** Which model makes the vectors, known without loading it: the fields of its fingerprint that a user chooses. */
export interface ModelIdentity {
  provider: EmbedderConfig["provider"];
  /** Hub id or absolute directory (local), or the provider's model name. */
  model: string;
  /** Local models only; null for remote providers. */
  dtype: EmbeddingDtype | null;
  /** Local models only (the catalog's, the configured, or mean); null for remote providers. Left out: not compared. */
  pooling?: Pooling | null;
  queryPrefix?: string;
  documentPrefix?: string;
}

/**
 * What made a vector, written in two places:
 * - on every vector (embedded_chunk_refs.fingerprint): the embedder's fingerprint plus the
 *   chunk settings of the chunk's folder, `{"embedder":{...},"chunking":{...}}`. A vector whose
 *   stamp differs from the current one is stale and is embedded again.
 * - in the database meta (embedding.fingerprint): the embedder's fingerprint plus the chunk
 *   settings per folder, `{"embedder":{...},"chunking":{"<folderId>":{...}}}`. A different
 *   embedder there is EMBEDDING_MISMATCH: vectors of two models cannot be searched together.
 * Search compares the meta with its own embedder (search-vector.ts fingerprintMatches reads
 * the nested "embedder" object).
 */

export type FingerprintObject = Record<string, unknown>;

export interface StoredFingerprint {
  /** The embedder part, when the meta holds one we can read (older or foreign values may not). */
  embedder: FingerprintObject | null;
  chunking: Record<string, ChunkingOptions>;
  raw: string | null;
}

/** The stamp written on each vector of a folder. */
export function vectorStamp(embedderFingerprint: string, chunking: ChunkingOptions): string {
  return JSON.stringify({
    embedder: parseObject(embedderFingerprint) ?? embedderFingerprint,
    chunking: { chunkSizeTokens: chunking.chunkSizeTokens, chunkOverlapTokens: chunking.chunkOverlapTokens },
  });
}

/** The meta value: the embedder and the chunk settings of every folder its vectors came from. */
export function databaseFingerprint(embedderFingerprint: string, chunkingByFolder: Record<string, ChunkingOptions>): string {
  const chunking = Object.fromEntries(
    Object.keys(chunkingByFolder)
      .sort()
      .map((folderId) => {
        const settings = chunkingByFolder[folderId] as ChunkingOptions;
        return [folderId, { chunkSizeTokens: settings.chunkSizeTokens, chunkOverlapTokens: settings.chunkOverlapTokens }];
      }),
  );
  return JSON.stringify({ embedder: parseObject(embedderFingerprint) ?? embedderFingerprint, chunking });
}

/** Reads the meta value in any form it has been written in: ours, a bare embedder fingerprint, or nothing. */
export function readStoredFingerprint(raw: string | null): StoredFingerprint {
  const value = raw === null ? null : parseObject(raw);
  if (value === null) return { embedder: null, chunking: {}, raw };
  const nested = value.embedder;
  if (nested !== null && typeof nested === "object" && !Array.isArray(nested)) {
    const chunking = value.chunking !== null && typeof value.chunking === "object" ? (value.chunking as Record<string, ChunkingOptions>) : {};
    return { embedder: nested as FingerprintObject, chunking, raw };
  }
  return { embedder: typeof value.provider === "string" ? value : null, chunking: {}, raw };
}

/** Same provider, model and dtype: the choices a user makes. Checked before any download. */
export function sameIdentity(stored: FingerprintObject, identity: ModelIdentity): boolean {
  return stored.provider === identity.provider && stored.model === identity.model && (stored.dtype ?? null) === identity.dtype;
}

/**
 * True when the stored embedder is this identity with the same pooling and prefixes (which the
 * config can change for models outside the catalog) and the current context prefix format.
 */
export function identityIsCurrent(stored: FingerprintObject, identity: ModelIdentity): boolean {
  return (
    sameIdentity(stored, identity) &&
    (identity.pooling === undefined || (stored.pooling ?? null) === identity.pooling) &&
    (identity.queryPrefix === undefined || stored.queryPrefix === identity.queryPrefix) &&
    (identity.documentPrefix === undefined || stored.documentPrefix === identity.documentPrefix) &&
    stored.contextPrefix === CONTEXT_PREFIX_VERSION
  );
}

/** Fields whose values differ between the stored embedder and the current one. */
export function differingFields(stored: FingerprintObject, current: string): string[] {
  const now = parseObject(current);
  if (now === null) return ["fingerprint"];
  const keys = [...new Set([...Object.keys(stored), ...Object.keys(now)])];
  return keys.filter((key) => JSON.stringify(stored[key] ?? null) !== JSON.stringify(now[key] ?? null));
}

export function describeIdentity(value: { model?: unknown; dtype?: unknown; provider?: unknown }): string {
  const model = typeof value.model === "string" ? value.model : "another model";
  const dtype = typeof value.dtype === "string" ? ` (${value.dtype})` : "";
  const provider = typeof value.provider === "string" && value.provider !== "local" ? ` via ${value.provider}` : "";
  return `${model}${dtype}${provider}`;
}

/** The error for vectors made by another model or settings, with both ways out. */
export function embeddingMismatch(options: { storedBy: string; current: string; vectorCount: number; reason?: string; details: Record<string, unknown> }): ChunkpadError {
  const vectors = `${options.vectorCount} ${options.vectorCount === 1 ? "vector" : "vectors"}`;
  const were = options.vectorCount === 1 ? "was" : "were";
  const reason = options.reason === undefined ? "" : ` (${options.reason})`;
  return new ChunkpadError(
    "EMBEDDING_MISMATCH",
    `The ${vectors} in the database ${were} made by ${options.storedBy}, but this run uses ${options.current}${reason}; vectors of different models cannot be searched together. ` +
      `Re-embedding drops the ${vectors} and embeds the included chunks again; the model that made them keeps them.`,
    { details: options.details, nextSteps: [{ action: "embed", reembed: true }, { action: "change-setting", key: "embedding.model" }] },
  );
}

function parseObject(text: string): FingerprintObject | null {
  try {
    const value: unknown = JSON.parse(text);
    return value !== null && typeof value === "object" && !Array.isArray(value) ? (value as FingerprintObject) : null;
  } catch {
    return null;
  }
}
