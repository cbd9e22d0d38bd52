import type { ApiErrorBody } from "./types.js";
import { withNextSteps } from "../nextStep.js";

/**
 * The HTTP client of the web app. Requests are same-origin: the browser sends the session
 * cookie `chunkpad serve` set when the page was opened from the URL it printed. The app's code
 * never sees a token.
 */

/** An error from the server (its code and message, said to the user as they are) or from the network. */
export class ApiError extends Error {
  constructor(
    readonly code: string,
    message: string,
    readonly status: number,
  ) {
    super(message);
  }
}

async function failure(response: Response): Promise<ApiError> {
  const data = (await response.json().catch(() => ({}))) as Partial<ApiErrorBody>;
  if (response.status === 401) return new ApiError("UNAUTHORIZED", data.message ?? 'This page is not signed in: open the address "chunkpad serve" printed, or run "chunkpad serve --open".', 401);
  // The server's message names no command; its next steps are said as places in this app.
  return new ApiError(data.code ?? "ERROR", data.message === undefined ? `The server answered ${response.status} ${response.statusText}.` : withNextSteps(data.message, data.nextSteps), response.status);
}

async function request<T>(method: string, path: string, body?: unknown): Promise<T> {
  let response: Response;
  try {
    response = await fetch(path, {
      method,
      credentials: "same-origin",
      headers: body === undefined ? {} : { "content-type": "application/json" },
      ...(body === undefined ? {} : { body: JSON.stringify(body) }),
    });
  } catch {
    throw new ApiError("NETWORK", "Chunkpad's server does not answer. Is \"chunkpad serve\" still running?", 0);
  }
  if (!response.ok) throw await failure(response);
  return (await response.json()) as T;
}

export const get = <T>(path: string) => request<T>("GET", path);
export const post = <T>(path: string, body: unknown) => request<T>("POST", path, body);
export const put = <T>(path: string, body: unknown) => request<T>("PUT", path, body);
export const remove = <T>(path: string) => request<T>("DELETE", path);

/** Sends one file's bytes into an added folder; the server never overwrites a file. */
export async function uploadFile(folderId: string, file: File): Promise<void> {
  const response = await fetch(`/api/folders/${encodeURIComponent(folderId)}/files?name=${encodeURIComponent(file.name)}`, {
    method: "POST",
    credentials: "same-origin",
    headers: { "content-type": "application/octet-stream" },
    body: file,
  });
  if (!response.ok) throw await failure(response);
}
