import { ChunkpadError, isChunkpadError } from "../../core/errors.js";
import type { Embedder } from "../../core/types.js";
import type { MainStore } from "../../store/index.js";
import { META_KEYS } from "../../store/index.js";
import { readStoredFingerprint, sameIdentity } from "../../embedding/vector-fingerprint.js";
import type { ModelIdentity } from "../embed/embedder-setup.js";
import type { NextStep } from "../../core/next-step.js";

/**
 * Whether this search can use vectors, and the query embedder when it can. Search never
 * downloads a model: every reason it cannot use vectors becomes a notice that says how to get
 * them, and the search goes on by keyword. The one hard stop is a model mismatch, because
 * comparing a query vector with vectors from another model gives confident nonsense.
 */

export type VectorReadiness = { ready: true; embedder: Embedder } | { ready: false; reason: string; nextSteps?: NextStep[] };

/** Loads the configured embedding model from the cache or a local directory; never downloads. */
export type QueryEmbedderLoader = () => Promise<Embedder>;

/**
 * `configuredIdentity` (the configured model, known without loading it) lets a model that
 * cannot be loaded still be told apart from the one that made the vectors: then the way out is
 * re-embedding, not downloading a model the vectors do not fit.
 */
export async function prepareVectorSearch(
  store: MainStore,
  loadQueryEmbedder: QueryEmbedderLoader,
  configuredModel: string,
  configuredIdentity?: ModelIdentity,
): Promise<VectorReadiness> {
  if (!store.vectorAvailable) {
    return { ready: false, reason: store.vectorUnavailableReason ?? "Vector search is not available; keyword search still works." };
  }
  // Asked before every vector or hybrid search: whether any vector exists, never how many (a full count costs 20–40 ms at 100k chunks).
  if (!(await store.hasVectors())) {
    return { ready: false, reason: "No chunks are embedded yet, so this is a keyword search.", nextSteps: [{ action: "embed", purpose: "to search by meaning too" }] };
  }
  let embedder: Embedder;
  try {
    embedder = await loadQueryEmbedder();
  } catch (error) {
    if (!isChunkpadError(error) || error.code === "INTERNAL") throw error;
    const stored = readStoredFingerprint(await store.getMeta(META_KEYS.embeddingFingerprint)).embedder;
    if (configuredIdentity !== undefined && stored !== null && !sameIdentity(stored, configuredIdentity)) {
      throw await mismatchError(store, configuredModel, { storedFingerprint: await store.getMeta(META_KEYS.embeddingFingerprint), configuredIdentity });
    }
    return { ready: false, reason: `${error.message} This search used keywords only.`, ...(error.nextSteps ? { nextSteps: error.nextSteps } : {}) };
  }
  await checkSameModel(store, embedder, configuredModel);
  return { ready: true, embedder };
}

/** EMBEDDING_MISMATCH when the stored vectors were made by another model or settings. */
export async function checkSameModel(store: MainStore, embedder: Embedder, configuredModel: string): Promise<void> {
  const stored = await store.getMeta(META_KEYS.embeddingFingerprint);
  const storedDimensions = await store.vectorDimensions();
  const sameFingerprint = stored === null || fingerprintMatches(stored, embedder.fingerprint);
  const sameSize = storedDimensions === null || embedder.dimensions <= 0 || storedDimensions === embedder.dimensions;
  if (sameFingerprint && sameSize) return;
  throw await mismatchError(store, configuredModel, { storedFingerprint: stored, modelFingerprint: embedder.fingerprint, storedDimensions, modelDimensions: embedder.dimensions });
}

async function mismatchError(store: MainStore, configuredModel: string, details: Record<string, unknown>): Promise<ChunkpadError> {
  const madeBy = await store.getMeta(META_KEYS.embeddingModel) ?? modelNamedIn(await store.getMeta(META_KEYS.embeddingFingerprint)) ?? "another model";
  return new ChunkpadError(
    "EMBEDDING_MISMATCH",
    `The vectors in the database were made by ${madeBy}, but the configured embedding model is ${configuredModel}, so they cannot be compared. ` +
      "Keyword search still works.",
    { details, nextSteps: [{ action: "embed", reembed: true }, { action: "change-setting", key: "embedding.model", ...(madeBy === "another model" ? {} : { value: madeBy }) }, { action: "search-mode", mode: "keyword" }] },
  );
}

/**
 * True when a stored fingerprint was made by this embedder. The embed step may store the
 * embedder's fingerprint as is, with the chunker settings appended, or merged into one JSON
 * object (or nested under a key): every form counts as the same model.
 */
export function fingerprintMatches(stored: string, current: string): boolean {
  if (stored === current || stored.startsWith(current)) return true;
  const storedValue = parseJson(stored);
  const currentValue = parseJson(current);
  if (!isRecord(storedValue) || !isRecord(currentValue)) return false;
  const covers = (candidate: unknown): boolean =>
    candidate === current || (isRecord(candidate) && Object.entries(currentValue).every(([key, value]) => JSON.stringify(candidate[key]) === JSON.stringify(value)));
  return covers(storedValue) || Object.values(storedValue).some(covers);
}

function modelNamedIn(fingerprint: string | null): string | null {
  if (fingerprint === null) return null;
  const value = parseJson(fingerprint);
  if (!isRecord(value)) return null;
  if (typeof value.model === "string") return value.model;
  for (const nested of Object.values(value)) if (isRecord(nested) && typeof nested.model === "string") return nested.model;
  return null;
}

function parseJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return value !== null && typeof value === "object" && !Array.isArray(value);
}
