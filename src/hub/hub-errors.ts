import type { NextStep } from "../core/next-step.js";
import { ChunkpadError, isChunkpadError, isRetryableStatus } from "../core/errors.js";
import { describeNetworkFailure } from "../core/network.js";

/** What every "cannot download" message ends with; its steps are the other two ways out. */
export const DOWNLOAD_HELP = "Check your network connection.";
export const DOWNLOAD_STEPS: NextStep[] = [{ action: "set-hub-url", model: "embedding" }, { action: "use-model-files", model: "embedding" }];

/** A failed request (no HTTP answer at all): unreachable host, DNS, refused, timeout. */
export function networkError(url: string, error: unknown, doing: string): ChunkpadError {
  if (isChunkpadError(error)) return error;
  return new ChunkpadError("MODEL_DOWNLOAD_FAILED", `Could not ${doing} ${url}: ${describeNetworkFailure(error)}. ${DOWNLOAD_HELP}`, {
    cause: error,
    isRetryable: true,
    nextSteps: DOWNLOAD_STEPS,
  });
}

/** An HTTP answer that is not a success. */
export function statusError(url: string, repoId: string, status: number): ChunkpadError {
  if (status === 404) {
    return new ChunkpadError("MODEL_NOT_FOUND", `The hub has no file at ${url} (HTTP 404). Check the model id "${repoId}" and the hub URL. ${DOWNLOAD_HELP}`, {
      statusCode: status,
      nextSteps: DOWNLOAD_STEPS,
    });
  }
  if (status === 401 || status === 403) {
    return new ChunkpadError(
      "MODEL_DOWNLOAD_FAILED",
      `The hub refused access to ${url} (HTTP ${status}). "${repoId}" is probably a gated or private model, which needs an account and an access token. ` +
        "Choose a public model (see the catalog: bge-base-en-v1.5, bge-small-en-v1.5, ...), or download the files yourself.",
      { statusCode: status, nextSteps: [{ action: "change-setting", key: "embedding.model" }, { action: "use-model-files", model: "embedding" }] },
    );
  }
  return new ChunkpadError("MODEL_DOWNLOAD_FAILED", `The hub answered HTTP ${status} for ${url}. ${isRetryableStatus(status) ? "Try again in a moment. " : ""}${DOWNLOAD_HELP}`, {
    statusCode: status,
    nextSteps: DOWNLOAD_STEPS,
    isRetryable: isRetryableStatus(status),
  });
}

export function cancelledError(url: string): ChunkpadError {
  return new ChunkpadError("CANCELLED", `The download of ${url} was cancelled. Run the command again to resume where it stopped.`);
}
