import { ChunkpadError, isChunkpadError, isRetryableStatus } from "../core/errors.js";
import { describeNetworkFailure } from "../core/network.js";

/** What every "cannot download" message ends with: the three ways out. */
export const DOWNLOAD_HELP =
  "Check your network connection; or point Chunkpad at a reachable hub with the CHUNKPAD_HUB_URL environment variable " +
  "(or embedding.hubUrl in the config file); or download the model yourself and pass --model /path/to/model-dir " +
  "(a folder in the hub layout: config.json, tokenizer.json, tokenizer_config.json, onnx/model.onnx).";

/** A failed request (no HTTP answer at all): unreachable host, DNS, refused, timeout. */
export function networkError(url: string, error: unknown, doing: string): ChunkpadError {
  if (isChunkpadError(error)) return error;
  return new ChunkpadError("MODEL_DOWNLOAD_FAILED", `Could not ${doing} ${url}: ${describeNetworkFailure(error)}. ${DOWNLOAD_HELP}`, {
    cause: error,
    isRetryable: true,
  });
}

/** An HTTP answer that is not a success. */
export function statusError(url: string, repoId: string, status: number): ChunkpadError {
  if (status === 404) {
    return new ChunkpadError("MODEL_NOT_FOUND", `The hub has no file at ${url} (HTTP 404). Check the model id "${repoId}" and the hub URL. ${DOWNLOAD_HELP}`, {
      statusCode: status,
    });
  }
  if (status === 401 || status === 403) {
    return new ChunkpadError(
      "MODEL_DOWNLOAD_FAILED",
      `The hub refused access to ${url} (HTTP ${status}). "${repoId}" is probably a gated or private model, which needs an account and an access token. ` +
        "Choose a public model (see the catalog: bge-base-en-v1.5, bge-small-en-v1.5, ...), or download the files yourself and pass --model /path/to/model-dir.",
      { statusCode: status },
    );
  }
  return new ChunkpadError("MODEL_DOWNLOAD_FAILED", `The hub answered HTTP ${status} for ${url}. ${isRetryableStatus(status) ? "Try again in a moment. " : ""}${DOWNLOAD_HELP}`, {
    statusCode: status,
    isRetryable: isRetryableStatus(status),
  });
}

export function cancelledError(url: string): ChunkpadError {
  return new ChunkpadError("CANCELLED", `The download of ${url} was cancelled. Run the command again to resume where it stopped.`);
}
