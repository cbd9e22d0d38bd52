import { formatBytes } from "../core/format.js";
import fs from "node:fs";
import path from "node:path";
import { ChunkpadError, isChunkpadError } from "../core/errors.js";
import { cachedFilePath, DEFAULT_HUB_URL, DOWNLOAD_HELP, downloadModelFiles, isModelCached, type DownloadProgress } from "../hub/index.js";

/**
 * The local answer model: a Llama 3.2 Instruct GGUF in the model cache. Offered when no cloud
 * key is configured; downloaded only after the user agrees to the size shown.
 */

export interface LocalLlmModel {
  /** The name users type (`--model llama-3.2-1b-instruct`). */
  name: string;
  label: string;
  repoId: string;
  file: string;
  /** What the catalog expects; the hub's own figure is used when it answers. */
  approximateSizeBytes: number;
}

export const LOCAL_LLM_MODELS: readonly LocalLlmModel[] = [
  {
    name: "llama-3.2-3b-instruct",
    label: "Llama 3.2 3B Instruct (Q4_K_M)",
    repoId: "bartowski/Llama-3.2-3B-Instruct-GGUF",
    file: "Llama-3.2-3B-Instruct-Q4_K_M.gguf",
    approximateSizeBytes: 2_019_377_696,
  },
  {
    name: "llama-3.2-1b-instruct",
    label: "Llama 3.2 1B Instruct (Q4_K_M), smaller and faster, weaker answers",
    repoId: "bartowski/Llama-3.2-1B-Instruct-GGUF",
    file: "Llama-3.2-1B-Instruct-Q4_K_M.gguf",
    approximateSizeBytes: 807_694_464,
  },
];

export const DEFAULT_LOCAL_LLM = "llama-3.2-3b-instruct";

/** A catalog name, or a path to a .gguf the user already has (never downloaded). */
export function resolveLocalLlm(model: string = DEFAULT_LOCAL_LLM): LocalLlmModel | { path: string } {
  const entry = LOCAL_LLM_MODELS.find((candidate) => candidate.name === model);
  if (entry) return entry;
  if (model.endsWith(".gguf")) return { path: path.resolve(model) };
  const names = LOCAL_LLM_MODELS.map((candidate) => candidate.name).join(", ");
  throw new ChunkpadError("INVALID_ARGUMENT", `"${model}" is not a local model. Use one of ${names}, or a path to a .gguf file.`);
}

export interface LocalLlmStatus {
  model: LocalLlmModel | { path: string };
  downloaded: boolean;
  /** Where the file is, or will be once downloaded. */
  path: string;
}

/** Whether the local model is on disk; no network. `cacheDir` is the model cache (paths.modelsDir). */
export function localLlmStatus(cacheDir: string, model?: string): LocalLlmStatus {
  const resolved = resolveLocalLlm(model);
  if ("path" in resolved) return { model: resolved, downloaded: fs.existsSync(resolved.path), path: resolved.path };
  return {
    model: resolved,
    downloaded: isModelCached(cacheDir, resolved.repoId, [resolved.file]),
    path: cachedFilePath(cacheDir, resolved.repoId, resolved.file),
  };
}

export interface DownloadOffer {
  model: LocalLlmModel;
  sizeBytes: number;
  /** Where it comes from, to show the user. */
  source: string;
}

export interface EnsureLocalLlmOptions {
  /** The model cache (paths.modelsDir); files land in {cacheDir}/{owner}/{name}/. */
  cacheDir: string;
  hubUrl?: string;
  model?: string;
  /** Asked before any byte of the model is downloaded; resolve true to agree. Without it, nothing is downloaded. */
  consent?: (offer: DownloadOffer) => Promise<boolean> | boolean;
  onProgress?: (progress: DownloadProgress) => void;
  fetch?: typeof globalThis.fetch;
  signal?: AbortSignal;
}

/**
 * Returns the path of the local model, downloading it first if it is missing and the user
 * agrees. Declining (or no consent callback) is MODEL_CONSENT_REQUIRED and nothing is fetched.
 */
export async function ensureLocalLlm(options: EnsureLocalLlmOptions): Promise<string> {
  const status = localLlmStatus(options.cacheDir, options.model);
  if (status.downloaded) return status.path;
  const { model } = status;
  if ("path" in model) {
    throw new ChunkpadError("MODEL_NOT_DOWNLOADED", `The model file ${model.path} does not exist. Check the path, or use a catalog model such as ${DEFAULT_LOCAL_LLM}.`);
  }
  const hub = { baseUrl: options.hubUrl ?? DEFAULT_HUB_URL, cacheDir: options.cacheDir, fetch: options.fetch, signal: options.signal };
  const declined = () =>
    new ChunkpadError(
      "MODEL_CONSENT_REQUIRED",
      `The local model ${model.label} (${formatBytes(model.approximateSizeBytes)}) is not downloaded.`,
      { nextSteps: [{ action: "download-model", model: "llm" }, { action: "set-up-llm" }] },
    );
  if (!options.consent) throw declined();
  try {
    // No request before consent (not even for the size): the catalog's estimate is shown.
    const agreed = await options.consent({ model, sizeBytes: model.approximateSizeBytes, source: `${hub.baseUrl.replace(/\/+$/, "")}/${model.repoId}` });
    if (!agreed) throw declined();
    const directory = await downloadModelFiles(model.repoId, [model.file], { ...hub, onProgress: options.onProgress });
    return path.join(directory, model.file);
  } catch (error) {
    throw withAnswerModelHelp(error);
  }
}


/** The hub's download errors end with advice for embedding models; the answer model is got differently. */
function withAnswerModelHelp(error: unknown): unknown {
  if (!isChunkpadError(error) || !error.message.includes(DOWNLOAD_HELP)) return error;
  return new ChunkpadError(error.code, error.message, {
    cause: error.cause,
    statusCode: error.statusCode,
    isRetryable: error.isRetryable,
    details: error.details,
    nextSteps: [{ action: "set-hub-url", model: "llm" }, { action: "use-model-files", model: "llm" }],
  });
}

export { formatBytes };
