import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { startAnthropicServer } from "../../test/helpers/llm-servers/anthropic-server.js";
import { startOllamaServer } from "../../test/helpers/llm-servers/ollama-server.js";
import { startOpenAiServer } from "../../test/helpers/llm-servers/openai-server.js";
import type { RecordedRequest, ScriptedError, ScriptedServer } from "../../test/helpers/llm-servers/scripted-server.js";
import { isChunkpadError, type ChunkpadError, type ErrorCode } from "../core/errors.js";
import type { ChatMessage, ChatStreamPart, LlmClient } from "../core/types.js";
import { createAnthropicClient } from "./anthropic.js";
import { createOllamaClient } from "./ollama.js";
import { createOpenAiClient } from "./openai.js";
import type { RetryPolicy } from "./stream-runner.js";

/**
 * One suite, every provider (hono's common.case pattern): each runs against a local server
 * that speaks its real wire protocol frame by frame.
 */

const API_KEY = "sk-ant-test-0123456789abcdefSECRET";

interface Harness {
  name: string;
  start(): Promise<ScriptedServer>;
  client(url: string, options: { retry?: Partial<RetryPolicy>; model?: string }): LlmClient;
  /** The request as the provider's wire format carries it. */
  read(request: RecordedRequest): { system?: string; messages: ChatMessage[]; temperature?: number; key?: string };
}

const harnesses: Harness[] = [
  {
    name: "anthropic",
    start: startAnthropicServer,
    client: (url, options) => createAnthropicClient({ model: options.model ?? "claude-test", apiKey: API_KEY, baseURL: url, env: {}, retry: options.retry }),
    read: (request) => ({
      system: request.body.system as string | undefined,
      messages: request.body.messages as ChatMessage[],
      temperature: request.body.temperature as number | undefined,
      key: String(request.headers["x-api-key"] ?? request.headers.authorization ?? "").replace(/^Bearer /, ""),
    }),
  },
  {
    name: "openai",
    start: startOpenAiServer,
    client: (url, options) => createOpenAiClient({ model: options.model ?? "gpt-test", apiKey: API_KEY, baseURL: `${url}/v1`, env: {}, retry: options.retry }),
    read: (request) => withSystemFromMessages(request),
  },
  {
    name: "ollama",
    start: () => startOllamaServer(),
    client: (url, options) => createOllamaClient({ model: options.model ?? "llama-test", apiKey: API_KEY, host: url, env: {}, retry: options.retry }),
    read: (request) => ({ ...withSystemFromMessages(request), temperature: (request.body.options as { temperature?: number }).temperature }),
  },
];

function withSystemFromMessages(request: RecordedRequest) {
  const all = request.body.messages as ChatMessage[];
  return {
    system: all.find((message) => message.role === "system")?.content,
    messages: all.filter((message) => message.role !== "system").map(({ role, content }) => ({ role, content })),
    temperature: request.body.temperature as number | undefined,
    key: String(request.headers.authorization ?? "").replace(/^Bearer /, ""),
  };
}

const QUESTION: ChatMessage[] = [
  { role: "system", content: "Answer only from the chunks. Cite [C1]." },
  { role: "user", content: "What is the warranty period?" },
];

async function collect(stream: AsyncIterable<ChatStreamPart>): Promise<ChatStreamPart[]> {
  const parts: ChatStreamPart[] = [];
  for await (const part of stream) parts.push(part);
  return parts;
}

function deltas(parts: ChatStreamPart[]): string[] {
  return parts.flatMap((part) => (part.type === "text-delta" ? [part.text] : []));
}

function lastError(parts: ChatStreamPart[]): ChunkpadError {
  const last = parts.at(-1);
  if (last?.type !== "error") throw new Error(`expected an error part last, got ${JSON.stringify(last)}`);
  return last.error;
}

describe.each(harnesses)("LlmClient conformance: $name", (harness) => {
  let server: ScriptedServer;
  let sleeps: number[];
  const noWait = () => ({ sleep: async (delayMs: number) => void sleeps.push(delayMs) });
  const client = (options: { retry?: Partial<RetryPolicy>; model?: string } = {}) => harness.client(server.url, { retry: noWait(), ...options });

  beforeAll(async () => {
    server = await harness.start();
  });
  afterAll(() => server.close());
  beforeEach(() => {
    server.reset();
    sleeps = [];
  });

  it("streams the text deltas in order, then finishes with usage", async () => {
    server.script({ reply: "text", deltas: ["The warranty ", "lasts ", "two years [C1]."], usage: { inputTokens: 120, outputTokens: 9 } });
    const parts = await collect(client().chatStream(QUESTION));
    expect(deltas(parts)).toEqual(["The warranty ", "lasts ", "two years [C1]."]);
    expect(parts.at(-1)).toEqual({ type: "finish", reason: "stop", usage: { inputTokens: 120, outputTokens: 9 } });
  });

  it("chat() returns the whole text, and a cut by max tokens says so", async () => {
    server.script({ reply: "text", deltas: ["Two ", "years."] }, { reply: "text", deltas: ["Two"], finishReason: "length" });
    const result = await client().chat(QUESTION);
    expect(result.text).toBe("Two years.");
    expect(result.finishReason).toBe("stop");
    expect((await client().chat(QUESTION, { maxTokens: 1 })).finishReason).toBe("length");
  });

  it("sends the model, temperature, system prompt, messages and key on the wire", async () => {
    const conversation: ChatMessage[] = [...QUESTION, { role: "assistant", content: "Two years [C1]." }, { role: "user", content: "And the battery?" }];
    await client({ model: "configured-model" }).chat(conversation, { temperature: 0 });
    await client({ model: "configured-model" }).chat(QUESTION, { model: "per-call-model", temperature: 0.1 });
    const [first, second] = server.requests.map((request) => ({ model: request.body.model, ...harness.read(request) }));
    expect(first).toMatchObject({ model: "configured-model", temperature: 0, system: QUESTION[0]?.content, messages: conversation.slice(1) });
    expect(second).toMatchObject({ model: "per-call-model", temperature: 0.1 });
    expect(first?.key).toBe(API_KEY);
  });

  const errorCases: Array<{ error: ScriptedError; code: ErrorCode; status: number; says: RegExp; next?: unknown[] }> = [
    { error: "auth", code: "LLM_AUTH", status: 401, says: /401/, ...(harness.name === "ollama" ? {} : { next: [{ action: "set-api-key", provider: harness.name }] }) },
    { error: "forbidden", code: "LLM_AUTH", status: 403, says: /403/ },
    { error: "model-not-found", code: "LLM_MODEL_NOT_FOUND", status: 404, says: harness.name === "ollama" ? /ollama pull missing-model/ : /missing-model/, next: [{ action: "choose-llm-model", provider: harness.name }] },
    { error: "context-length", code: "LLM_CONTEXT_TOO_LONG", status: 400, says: /fewer chunks/ },
    { error: "server", code: "LLM_UNAVAILABLE", status: 500, says: /Is the server running at http:\/\/127\.0\.0\.1/ },
    { error: "rate-limit", code: "LLM_RATE_LIMITED", status: 429, says: /Try again/ },
  ];

  it.each(errorCases)("maps $error to $code, with a next step and without the key", async ({ error, code, status, says, next }) => {
    server.script({ reply: "error", error }, { reply: "error", error }, { reply: "error", error });
    const parts = await collect(client({ model: "missing-model" }).chatStream(QUESTION));
    expect(parts).toHaveLength(1);
    const failure = lastError(parts);
    expect(failure.code).toBe(code);
    expect(failure.statusCode).toBe(status);
    expect(failure.message).toMatch(says);
    if (next) expect(failure.nextSteps).toEqual(next);
    expect(`${failure.message} ${JSON.stringify(failure.details)} ${String(failure.cause)}`).not.toContain(API_KEY);
    // Only what a retry can fix is retried: rate limits and server errors, three attempts in all.
    expect(server.requests).toHaveLength(failure.isRetryable ? 3 : 1);
  });

  it("chat() throws the same error", async () => {
    server.script({ reply: "error", error: "auth" });
    await expect(client().chat(QUESTION)).rejects.toMatchObject({ code: "LLM_AUTH" });
  });

  it("retries a 429 after the retry-after the server asked for, then succeeds", async () => {
    server.script({ reply: "error", error: "rate-limit", retryAfterSeconds: 2 }, { reply: "text", deltas: ["Two ", "years."] });
    const result = await client().chat(QUESTION);
    expect(result.text).toBe("Two years.");
    expect(server.requests).toHaveLength(2);
    expect(sleeps).toEqual([2000]);
  });

  it("retries a connection dropped before the first token", async () => {
    server.script({ reply: "text", deltas: ["lost"], dropAfterDeltas: 0 }, { reply: "text", deltas: ["Two ", "years."] });
    expect((await client().chat(QUESTION)).text).toBe("Two years.");
    expect(server.requests).toHaveLength(2);
  });

  it("delivers a slow stream whole", async () => {
    const words = ["One ", "word ", "at ", "a ", "time."];
    server.script({ reply: "text", deltas: words, delayMs: 40 });
    expect(deltas(await collect(client().chatStream(QUESTION)))).toEqual(words);
  });

  it.each([
    { how: "a dropped connection", step: { dropAfterDeltas: 2 } },
    { how: "a response that ends without its closing frames", step: { endAfterDeltas: 2 } },
    { how: "an error frame mid-stream", step: { errorAfterDeltas: 2 } },
  ])("keeps the partial text, then reports LLM_STREAM_INTERRUPTED, on $how", async ({ step }) => {
    server.script({ reply: "text", deltas: ["The warranty ", "lasts ", "two years."], ...step });
    const parts = await collect(client().chatStream(QUESTION));
    expect(deltas(parts)).toEqual(["The warranty ", "lasts "]);
    const failure = lastError(parts);
    expect(failure.code).toBe("LLM_STREAM_INTERRUPTED");
    expect(failure.details?.partialText).toBe("The warranty lasts ");
    expect(server.requests).toHaveLength(1);

    server.script({ reply: "text", deltas: ["The warranty ", "lasts ", "two years."], ...step });
    await expect(client().chat(QUESTION)).rejects.toMatchObject({ code: "LLM_STREAM_INTERRUPTED", details: { partialText: "The warranty lasts " } });
  });

  it("stops the stream when the signal aborts, and the server sees the client leave", async () => {
    const many = Array.from({ length: 200 }, (_, index) => `w${index} `);
    server.script({ reply: "text", deltas: many, delayMs: 20 });
    const controller = new AbortController();
    const disconnected = server.nextDisconnect();
    const parts: ChatStreamPart[] = [];
    for await (const part of client().chatStream(QUESTION, { signal: controller.signal })) {
      parts.push(part);
      if (part.type === "text-delta") controller.abort();
    }
    await disconnected;
    expect(deltas(parts).length).toBeLessThan(many.length);
    expect(parts.at(-1)).toEqual({ type: "finish", reason: "cancelled" });

    await expect(client().chat(QUESTION, { signal: AbortSignal.abort() })).rejects.toMatchObject({ code: "CANCELLED" });
  });

  it("says the server is not running when nothing listens", async () => {
    const closed = await closedPort();
    const parts = await collect(harness.client(`http://127.0.0.1:${closed}`, { retry: noWait() }).chatStream(QUESTION));
    const failure = lastError(parts);
    expect(isChunkpadError(failure, "LLM_UNAVAILABLE")).toBe(true);
    expect(failure.message).toContain(`Is the server running at http://127.0.0.1:${closed}`);
    expect(sleeps).toEqual([]);
  });
});

async function closedPort(): Promise<number> {
  const probe = createServer();
  await new Promise<void>((resolve) => probe.listen(0, "127.0.0.1", resolve));
  const { port } = probe.address() as AddressInfo;
  await new Promise<void>((resolve) => probe.close(() => resolve()));
  return port;
}
