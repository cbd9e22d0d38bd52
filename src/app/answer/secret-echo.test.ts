import http from "node:http";
import type { AddressInfo } from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ChunkpadError } from "../../core/errors.js";
import { createOllamaEmbedder } from "../../embedding/ollama.js";
import { createOpenAiEmbedder } from "../../embedding/openai.js";
import { downloadModelFiles } from "../../hub/download.js";
import { createAnthropicClient } from "../../llm/anthropic.js";
import { createOllamaClient } from "../../llm/ollama.js";
import { createOpenAiClient } from "../../llm/openai.js";

/**
 * Servers that echo the credentials they were sent — in the error body, as plain text, inside a
 * stream — must never get those credentials into an error message or its details.
 */

const KEY = "sk-proj-ECHOEDSECRET0123456789abcdef";
/** Not shaped like any known key, so only "remove the key we sent" can catch it. */
const PLAIN_KEY = "plainsecretvalue-7f3a9c";
const URL_PASSWORD = "urlpassword-5d2e8b";

type Answer = "json" | "text" | "ndjson-error" | "sse-error";
let status = 401;
let answer: Answer = "json";
let server: http.Server;
let base: string;

beforeAll(async () => {
  server = http.createServer((request, response) => {
    request.resume();
    request.on("end", () => {
      const sent = [request.headers.authorization, request.headers["x-api-key"], request.url].filter(Boolean).join(" ");
      const said = `invalid credentials ${sent}`;
      if (answer === "ndjson-error") {
        response.writeHead(200, { "content-type": "application/x-ndjson" });
        response.end(`${JSON.stringify({ error: said })}\n`);
      } else if (answer === "sse-error") {
        response.writeHead(200, { "content-type": "text/event-stream" });
        response.end(`event: error\ndata: ${JSON.stringify({ type: "error", error: { type: "api_error", message: said } })}\n\n`);
      } else if (answer === "text") {
        response.writeHead(status, { "content-type": "text/html", "www-authenticate": sent });
        response.end(`<html><body>Proxy refused ${sent}</body></html>`);
      } else {
        response.writeHead(status, { "content-type": "application/json", "www-authenticate": sent });
        response.end(JSON.stringify({ error: { message: said, type: "invalid_request_error", code: null } }));
      }
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));

async function failure(work: () => Promise<unknown>): Promise<ChunkpadError> {
  try {
    await work();
  } catch (error) {
    expect(error).toBeInstanceOf(ChunkpadError);
    return error as ChunkpadError;
  }
  throw new Error("expected the call to fail");
}

function expectNoSecret(error: ChunkpadError): void {
  const shown = `${error.message} ${JSON.stringify(error.details ?? {})}`;
  for (const secret of [KEY, PLAIN_KEY, URL_PASSWORD, "ECHOEDSECRET"]) expect(shown).not.toContain(secret);
}

const STATUSES = [400, 401, 403, 404, 413, 429, 500, 503];
const noRetry = { maxAttempts: 1 };
const withCredentials = () => base.replace("http://", `http://user:${URL_PASSWORD}@`);
const message = [{ role: "user" as const, content: "hello" }];

const providers: Record<string, { key: string; call: () => Promise<unknown>; streamError?: Answer }> = {
  "OpenAI embeddings": { key: KEY, call: () => createOpenAiEmbedder({ model: "m", baseURL: `${base}/v1`, apiKey: KEY }).embedQuery("x") },
  "OpenAI-compatible embeddings with another key": {
    key: PLAIN_KEY,
    call: () => createOpenAiEmbedder({ model: "m", baseURL: `${base}/v1`, apiKey: PLAIN_KEY }).embedDocuments(["x"]),
  },
  "Ollama embeddings at a URL with a password": { key: URL_PASSWORD, call: () => createOllamaEmbedder({ model: "m", host: withCredentials(), dimensions: 3 }).embedQuery("x") },
  "Anthropic chat": { key: KEY, call: () => createAnthropicClient({ model: "m", apiKey: KEY, baseURL: base, retry: noRetry }).chat(message), streamError: "sse-error" },
  "OpenAI chat": { key: PLAIN_KEY, call: () => createOpenAiClient({ model: "m", apiKey: PLAIN_KEY, baseURL: `${base}/v1`, retry: noRetry }).chat(message) },
  "Ollama chat behind a proxy key": {
    key: PLAIN_KEY,
    call: () => createOllamaClient({ model: "m", host: base, apiKey: PLAIN_KEY, retry: noRetry }).chat(message),
    streamError: "ndjson-error",
  },
};

describe.each(Object.entries(providers))("%s never shows the key a server echoes", (_name, provider) => {
  it.each(STATUSES)("in a JSON error body with HTTP %i", async (code) => {
    status = code;
    answer = "json";
    expectNoSecret(await failure(provider.call));
  });

  it.each([401, 502])("in a plain-text error page with HTTP %i", async (code) => {
    status = code;
    answer = "text";
    expectNoSecret(await failure(provider.call));
  });

  const streams = provider.streamError;
  it.skipIf(streams === undefined)(streams === undefined ? "inside the stream (skipped: no in-stream error is recorded for this provider)" : "inside the stream", async () => {
    answer = streams ?? "json";
    expectNoSecret(await failure(provider.call));
  });
});

describe("connection failures and downloads", () => {
  it("never show a password in a server or hub URL", async () => {
    const closed = `http://user:${URL_PASSWORD}@127.0.0.1:9/`;
    expectNoSecret(await failure(() => createOllamaEmbedder({ model: "m", host: closed, dimensions: 3 }).embedQuery("x")));
    expectNoSecret(await failure(() => createOpenAiEmbedder({ model: "m", baseURL: closed, apiKey: KEY }).embedQuery("x")));
    status = 403;
    answer = "json";
    const hub = `${base}/?token=${URL_PASSWORD}`;
    expectNoSecret(await failure(() => downloadModelFiles("someone/model", ["config.json"], { baseUrl: hub, cacheDir: "/nonexistent-cache" })));
  });
});
