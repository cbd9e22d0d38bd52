import type { NextStep } from "../core/next-step.js";
import { formatBytes } from "../core/format.js";
import { ChunkpadError, isChunkpadError, describeError } from "../core/errors.js";
import type { ModelStatus } from "../core/types.js";
import { cachedModelDir, downloadModelFiles, isModelCached } from "../hub/index.js";
import { MODEL_FILE_BY_DTYPE, resolveModel, type EmbeddingDtype, type ResolvedModel } from "./catalog.js";
import { missingModelFiles } from "./model-files.js";

export interface ModelConsentRequest {
  repoId: string;
  /** Bytes to download as the catalog estimates them; null when unknown (the hub is not asked before consent). */
  sizeBytes: number | null;
  files: string[];
}

export interface EnsureModelOptions {
  /** Catalog name, hub model id, or a local directory in the hub layout. */
  model: string;
  dtype?: EmbeddingDtype;
  cacheDir: string;
  hubUrl: string;
  fetch?: typeof fetch;
  /** Asked before anything is downloaded; answering false stops with MODEL_CONSENT_REQUIRED. */
  consent?: (info: ModelConsentRequest) => Promise<boolean>;
  onStatus?: (status: ModelStatus) => void;
  /** False on the search path: a missing model is an error, never a download. */
  allowDownload: boolean;
  signal?: AbortSignal;
  /** What the model is for, in messages (default "embedding model"). */
  label?: string;
  /** The download size to show, when the embedding catalog does not know the model. */
  approximateBytes?: number | null;
  /** How to get the model, for the not-downloaded message (default: run chunkpad embed). */
  downloadSteps?: NextStep[];
}

export { formatBytes };

function checkDirectory(resolved: ResolvedModel & { directory: string }): string {
  const missing = missingModelFiles(resolved.directory, resolved.files);
  if (missing.length > 0) {
    const otherDtype = missing.length === 1 && missing[0] === resolved.modelFile ? ` (for dtype ${resolved.dtype}; ${MODEL_FILE_BY_DTYPE[resolved.dtype === "fp32" ? "q8" : "fp32"]} is the other dtype's file)` : "";
    throw new ChunkpadError(
      "MODEL_NOT_FOUND",
      `The model directory ${resolved.directory} lacks ${missing.join(", ")}${otherDtype}. A model directory needs config.json, tokenizer.json, tokenizer_config.json and onnx/model.onnx (fp32) or onnx/model_quantized.onnx (q8).`,
    );
  }
  return resolved.directory;
}

/**
 * Makes sure the model's files are on disk and returns their directory. A cached model (or a
 * local directory) costs no network request at all; a download needs `allowDownload` and the
 * user's consent.
 */
export async function ensureModelAvailable(options: EnsureModelOptions): Promise<string> {
  const resolved = resolveModel(options.model, options.dtype === undefined ? {} : { dtype: options.dtype });
  if (resolved.directory !== null) return checkDirectory({ ...resolved, directory: resolved.directory });

  const repoId = resolved.repoId ?? resolved.spec;
  if (isModelCached(options.cacheDir, repoId, resolved.files)) return cachedModelDir(options.cacheDir, repoId);

  const report = options.onStatus ?? (() => undefined);
  if (!options.allowDownload) {
    report({ state: "notDownloaded" });
    throw new ChunkpadError(
      "MODEL_NOT_DOWNLOADED",
      `The ${options.label ?? "embedding model"} ${resolved.spec} is not downloaded yet (${formatBytes(options.approximateBytes ?? resolved.approximateBytes)}).${options.downloadSteps ? "" : " Keyword search works meanwhile."}`,
      { nextSteps: options.downloadSteps ?? [{ action: "embed", purpose: "to download it" }] },
    );
  }

  const hubOptions = {
    baseUrl: options.hubUrl,
    cacheDir: options.cacheDir,
    ...(options.fetch === undefined ? {} : { fetch: options.fetch }),
    ...(options.signal === undefined ? {} : { signal: options.signal }),
  };
  try {
    // Consent comes before any request: asking the hub for sizes would already tell it (and
    // anyone watching) which model this machine wants. The catalog's estimate, or none, is shown.
    const sizeBytes = options.approximateBytes ?? resolved.approximateBytes;
    const agreed = options.consent === undefined ? false : await options.consent({ repoId, sizeBytes, files: resolved.files });
    if (!agreed) {
      throw new ChunkpadError(
        "MODEL_CONSENT_REQUIRED",
        `The ${options.label ?? "embedding model"} ${repoId} (${formatBytes(sizeBytes)}) must be downloaded before ${options.label === undefined ? "embedding" : "it is used"}.`,
        { nextSteps: options.downloadSteps ?? [{ action: "download-model", model: "embedding" }] },
      );
    }
    report({ state: "downloading", percent: 0, bytesDone: 0, bytesTotal: sizeBytes });
    return await downloadModelFiles(repoId, resolved.files, {
      ...hubOptions,
      onProgress: (progress) => report({ state: "downloading", percent: progress.percent, bytesDone: progress.bytesDone, bytesTotal: progress.bytesTotal }),
    });
  } catch (error) {
    if (isChunkpadError(error) && (error.code === "MODEL_CONSENT_REQUIRED" || error.code === "CANCELLED")) {
      report({ state: "notDownloaded" });
    } else {
      report({ state: "error", message: describeError(error) });
    }
    throw error;
  }
}
