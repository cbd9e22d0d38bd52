import { ChunkpadError, describeError } from "../core/errors.js";
import type { ModelStatus } from "../core/types.js";
import { isModelCached } from "../hub/index.js";
import { resolveModel, type EmbeddingDtype } from "./catalog.js";
import { missingModelFiles } from "./model-files.js";

/**
 * The embedding model's life: notDownloaded → downloading(%) → loading → ready, or
 * error(message) from any state. Faces subscribe to show a progress bar or a settings badge.
 */

export type ModelStatusListener = (status: ModelStatus) => void;

export interface ModelStatusTracker {
  get(): ModelStatus;
  /** Moves to the next state; an impossible move is a bug and throws. Repeating the current state is ignored. */
  set(next: ModelStatus): void;
  /** Calls the listener on every change; returns a function that stops it. */
  subscribe(listener: ModelStatusListener): () => void;
}

const ALLOWED: Record<ModelStatus["state"], ReadonlyArray<ModelStatus["state"]>> = {
  notDownloaded: ["downloading", "loading"],
  downloading: ["downloading", "loading", "notDownloaded"],
  loading: ["ready"],
  ready: ["loading", "notDownloaded"],
  error: ["notDownloaded", "downloading", "loading"],
};

function sameStatus(a: ModelStatus, b: ModelStatus): boolean {
  return JSON.stringify(a) === JSON.stringify(b);
}

export function createModelStatusTracker(initial: ModelStatus = { state: "notDownloaded" }, listener?: ModelStatusListener): ModelStatusTracker {
  let current = initial;
  const listeners = new Set<ModelStatusListener>();
  if (listener !== undefined) listeners.add(listener);

  return {
    get: () => current,
    set(next) {
      if (sameStatus(current, next)) return;
      if (next.state !== "error" && !ALLOWED[current.state].includes(next.state)) {
        throw new ChunkpadError("INTERNAL", `The model status cannot go from ${current.state} to ${next.state}.`);
      }
      current = next;
      for (const notify of [...listeners]) notify(next);
    },
    subscribe(added) {
      listeners.add(added);
      return () => listeners.delete(added);
    },
  };
}

export interface ModelStatusQuery {
  /** Catalog name, hub id or local directory. */
  model: string;
  dtype?: EmbeddingDtype;
  cacheDir: string;
}

/**
 * Whether the model can be used without a download, looking only at files (no network, no
 * loading): `ready` when every file is on disk, `notDownloaded` otherwise.
 */
export function getModelStatus(query: ModelStatusQuery): ModelStatus {
  let resolved;
  try {
    resolved = resolveModel(query.model, query.dtype === undefined ? {} : { dtype: query.dtype });
  } catch (error) {
    return { state: "error", message: describeError(error) };
  }
  if (resolved.directory !== null) {
    const missing = missingModelFiles(resolved.directory, resolved.files);
    return missing.length === 0 ? { state: "ready" } : { state: "error", message: `The model directory ${resolved.directory} lacks ${missing.join(", ")}.` };
  }
  return resolved.repoId !== null && isModelCached(query.cacheDir, resolved.repoId, resolved.files) ? { state: "ready" } : { state: "notDownloaded" };
}
