import http from "node:http";

/** What a request to this machine's own server needs: the shape of `fetch` the callers use. */
export interface LocalRequestInit {
  method?: string;
  headers?: Record<string, string>;
  body?: string;
  signal?: AbortSignal;
  redirect?: "error";
}

export interface LocalResponse {
  ok: boolean;
  status: number;
  json(): Promise<unknown>;
}

/** The global `fetch` fits this type; tests may pass it or a stand-in. */
export type LocalFetch = (url: string, init?: LocalRequestInit) => Promise<LocalResponse>;

/**
 * A request to a Chunkpad server on 127.0.0.1 through node:http. The global `fetch` loads undici
 * at its first use: about 40 ms of CPU more than node:http, paid by every one-off CLI search that
 * hands its query to a running `serve` (issue 22). Like `fetch` with `redirect: "error"`, it never
 * follows a redirect (the caller sees the 3xx as not ok), and an aborted signal rejects with the
 * signal's reason (a timeout's is a TimeoutError).
 */
export const localFetch: LocalFetch = (url, init = {}) =>
  new Promise<LocalResponse>((resolve, reject) => {
    const { signal } = init;
    if (signal?.aborted) return reject(signal.reason as Error);
    const headers: Record<string, string> = { ...init.headers };
    if (init.body !== undefined) headers["content-length"] = String(Buffer.byteLength(init.body));
    const request = http.request(url, { method: init.method ?? "GET", headers, ...(signal ? { signal } : {}) }, (response) => {
      const parts: Buffer[] = [];
      response.on("data", (part: Buffer) => parts.push(part));
      response.on("error", (error) => reject(signal?.aborted ? (signal.reason as Error) : error));
      response.on("end", () => {
        const text = Buffer.concat(parts).toString("utf8");
        const status = response.statusCode ?? 0;
        resolve({ ok: status >= 200 && status < 300, status, json: async () => JSON.parse(text) as unknown });
      });
    });
    request.on("error", (error) => reject(signal?.aborted ? (signal.reason as Error) : error));
    request.end(init.body);
  });
