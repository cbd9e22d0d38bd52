import { createHash } from "node:crypto";
import * as fs from "node:fs";
import * as http from "node:http";
import type { AddressInfo } from "node:net";
import * as path from "node:path";

/**
 * A local stand-in for the Hugging Face hub: serves model folders under
 * `/{repoId}/resolve/{revision}/{file}` with Content-Length, HEAD and Range (206), and can
 * misbehave on request to exercise the download code's failure paths.
 */

export const TINY_BERT_DIR = path.resolve("../shared/models/tiny-bert");
export const TINY_BERT_REPO = "chunkpad-test/tiny-bert";
export const TINY_BERT_FILES = ["config.json", "tokenizer.json", "tokenizer_config.json", "onnx/model.onnx"];
/** What downloading TINY_BERT_FILES transfers. */
export const TINY_BERT_TOTAL_BYTES = TINY_BERT_FILES.reduce((sum, file) => sum + fs.statSync(path.join(TINY_BERT_DIR, file)).size, 0);

export interface HubServerBehaviour {
  /** Answer 404 for every file. */
  notFound?: boolean;
  /** Answer every request with this status and an empty body (401, 403, 500...). */
  status?: number;
  /** GET bodies longer than this are cut: this many bytes are sent, then the connection is destroyed. */
  dropAfterBytes?: number;
  /** Answer 200 with the whole file even when a Range is asked for. */
  ignoreRange?: boolean;
  /** Pace GET bodies: `chunkBytes` at a time with `delayMs` between them. */
  slow?: { chunkBytes: number; delayMs: number };
  /** Send the headers of a GET, then nothing at all. */
  hang?: boolean;
}

export interface RecordedRequest {
  method: string;
  path: string;
  range: string | undefined;
  status: number;
}

export interface HubServer {
  /** Base URL, e.g. http://127.0.0.1:PORT (no trailing slash). */
  url: string;
  /** Every request seen, in order. */
  requests: RecordedRequest[];
  /** Replace the current behaviour (an empty object: behave like the real hub). */
  behave(behaviour: HubServerBehaviour): void;
  close(): Promise<void>;
}

function parseRange(header: string | undefined, size: number): { start: number; end: number } | "unsatisfiable" | null {
  const match = /^bytes=(\d+)-(\d*)$/.exec(header ?? "");
  if (match === null) return null;
  const start = Number(match[1]);
  const end = match[2] === "" ? size - 1 : Math.min(Number(match[2]), size - 1);
  if (start >= size || start > end) return "unsatisfiable";
  return { start, end };
}

function resolveFile(repos: Record<string, string>, urlPath: string): string | null {
  const marker = urlPath.indexOf("/resolve/");
  if (marker < 0) return null;
  const repoId = decodeURIComponent(urlPath.slice(1, marker));
  const rest = urlPath.slice(marker + "/resolve/".length).split("/").map(decodeURIComponent);
  const root = repos[repoId];
  if (root === undefined || rest.length < 2 || rest.slice(1).some((segment) => segment === ".." || segment === "")) return null;
  const file = path.join(root, ...rest.slice(1));
  return fs.existsSync(file) && fs.statSync(file).isFile() ? file : null;
}

async function writePaced(response: http.ServerResponse, data: Buffer, chunkBytes: number, delayMs: number): Promise<void> {
  for (let offset = 0; offset < data.length && !response.destroyed; offset += chunkBytes) {
    response.write(data.subarray(offset, offset + chunkBytes));
    await new Promise((resolve) => setTimeout(resolve, delayMs));
  }
}

export async function startHubServer(options: { repos?: Record<string, string> } = {}): Promise<HubServer> {
  const repos = options.repos ?? { [TINY_BERT_REPO]: TINY_BERT_DIR };
  const requests: RecordedRequest[] = [];
  let behaviour: HubServerBehaviour = {};

  const server = http.createServer((request, response) => {
    const urlPath = new URL(request.url ?? "/", "http://localhost").pathname;
    const range = request.headers.range;
    const answer = (status: number, headers: Record<string, string | number> = {}): void => {
      requests.push({ method: request.method ?? "GET", path: urlPath, range, status });
      response.writeHead(status, headers);
    };

    if (behaviour.status !== undefined) {
      answer(behaviour.status, { "content-length": 0 });
      response.end();
      return;
    }
    const file = behaviour.notFound === true ? null : resolveFile(repos, urlPath);
    if (file === null) {
      answer(404, { "content-type": "text/plain", "content-length": 15 });
      response.end(request.method === "HEAD" ? undefined : "Entry not found");
      return;
    }

    const data = fs.readFileSync(file);
    const etag = `"${createHash("sha256").update(data).digest("hex")}"`;
    if (request.method === "HEAD") {
      answer(200, { "content-length": data.length, "accept-ranges": "bytes", etag });
      response.end();
      return;
    }
    let body = data;
    const ifRange = request.headers["if-range"];
    const rangeStillValid = ifRange === undefined || ifRange === etag;
    const wanted = behaviour.ignoreRange === true || !rangeStillValid ? null : parseRange(range, data.length);
    if (wanted === "unsatisfiable") {
      answer(416, { "content-range": `bytes */${data.length}`, "content-length": 0 });
      response.end();
      return;
    }
    if (wanted === null) {
      answer(200, { "content-length": data.length, "accept-ranges": "bytes", etag });
    } else {
      body = data.subarray(wanted.start, wanted.end + 1);
      answer(206, { "content-length": body.length, "content-range": `bytes ${wanted.start}-${wanted.end}/${data.length}`, "accept-ranges": "bytes", etag });
    }

    if (behaviour.hang === true) {
      response.flushHeaders();
      return;
    }
    const cut = behaviour.dropAfterBytes;
    if (cut !== undefined && body.length > cut) {
      response.write(body.subarray(0, cut), () => request.socket.destroy());
      return;
    }
    if (behaviour.slow !== undefined) {
      void writePaced(response, body, behaviour.slow.chunkBytes, behaviour.slow.delayMs).then(() => response.end());
      return;
    }
    response.end(body);
  });

  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    requests,
    behave(next) {
      behaviour = next;
    },
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

// ---------------------------------------------------------------------------------------------
// A tiny JSON API server for provider tests (Ollama, OpenAI-compatible).

export interface RecordedApiRequest {
  method: string;
  path: string;
  headers: http.IncomingHttpHeaders;
  body: unknown;
}

export interface ApiReply {
  status?: number;
  body: unknown;
}

export interface FakeApiServer {
  url: string;
  requests: RecordedApiRequest[];
  close(): Promise<void>;
}

/** Answers every request with whatever `reply` returns for it, as JSON. */
export async function startFakeApiServer(reply: (request: RecordedApiRequest) => ApiReply): Promise<FakeApiServer> {
  const requests: RecordedApiRequest[] = [];
  const server = http.createServer((request, response) => {
    const chunks: Buffer[] = [];
    request.on("data", (chunk: Buffer) => chunks.push(chunk));
    request.on("end", () => {
      const text = Buffer.concat(chunks).toString("utf8");
      const recorded: RecordedApiRequest = {
        method: request.method ?? "GET",
        path: new URL(request.url ?? "/", "http://localhost").pathname,
        headers: request.headers,
        body: text === "" ? undefined : (JSON.parse(text) as unknown),
      };
      requests.push(recorded);
      const answer = reply(recorded);
      const payload = JSON.stringify(answer.body);
      response.writeHead(answer.status ?? 200, { "content-type": "application/json", "content-length": Buffer.byteLength(payload) });
      response.end(payload);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    requests,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

/** A base URL where nothing listens (a server that was started and closed). */
export async function closedServerUrl(): Promise<string> {
  const server = await startHubServer({ repos: {} });
  await server.close();
  return server.url;
}
