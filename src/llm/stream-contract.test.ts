import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startAnthropicServer } from "../../test/helpers/llm-servers/anthropic-server.js";
import { startOllamaServer } from "../../test/helpers/llm-servers/ollama-server.js";
import { startOpenAiServer } from "../../test/helpers/llm-servers/openai-server.js";
import type { ScriptedServer } from "../../test/helpers/llm-servers/scripted-server.js";
import { writeTinyGguf } from "../../test/helpers/llm-servers/tiny-gguf.js";
import { isChunkpadError } from "../core/errors.js";
import type { ChatMessage, ChatStreamPart, LlmClient } from "../core/types.js";
import { createAnthropicClient } from "./anthropic.js";
import { createLlamaCppClient, type LocalLlmClient } from "./llama-cpp.js";
import { createOllamaClient } from "./ollama.js";
import { createOpenAiClient } from "./openai.js";

/**
 * What every LlmClient does for the answer view, the local llama.cpp model included (on a tiny
 * random-weight GGUF the test writes; its text is gibberish, its streaming is real): deltas, then
 * one finish, last; chat() says what the stream says; an abort ends the answer as cancelled.
 * The wire details of the server providers are in conformance.test.ts.
 */

const QUESTION: ChatMessage[] = [
  { role: "system", content: "Answer from the chunks." },
  { role: "user", content: "What is the warranty?" },
];
const LONG = Array.from({ length: 200 }, (_, index) => `w${index} `);

interface Harness {
  name: string;
  start(): Promise<void>;
  stop(): Promise<void>;
  /** The client, with its next answer set up: a few words, or a long slow one to abort. */
  client(next: "short" | "long"): LlmClient;
}

function serverHarness(name: string, start: () => Promise<ScriptedServer>, create: (url: string) => LlmClient): Harness {
  let server: ScriptedServer | undefined;
  return {
    name,
    async start() {
      server = await start();
    },
    async stop() {
      await server?.close();
    },
    client(next) {
      server?.script(next === "short" ? { reply: "text", deltas: ["Two ", "years ", "[C1]."] } : { reply: "text", deltas: LONG, delayMs: 20 });
      return create(server?.url ?? "");
    },
  };
}

let llama: LocalLlmClient | undefined;
const harnesses: Harness[] = [
  serverHarness("anthropic", startAnthropicServer, (url) => createAnthropicClient({ model: "claude-test", apiKey: "sk-ant-test", baseURL: url, env: {} })),
  serverHarness("openai", startOpenAiServer, (url) => createOpenAiClient({ model: "gpt-test", apiKey: "sk-test", baseURL: `${url}/v1`, env: {} })),
  serverHarness("ollama", () => startOllamaServer(), (url) => createOllamaClient({ model: "llama-test", host: url, env: {} })),
  {
    name: "llama.cpp (tiny GGUF)",
    async start() {
      const modelPath = path.join(fs.mkdtempSync(path.join(os.tmpdir(), "chunkpad-tiny-gguf-")), "tiny.gguf");
      writeTinyGguf(modelPath);
      // One thread: llama.cpp's spinning worker threads crawl on a busy two-core machine.
      llama = createLlamaCppClient({ modelPath, threads: 1 });
    },
    async stop() {
      await llama?.dispose();
    },
    client: () => llama as LocalLlmClient,
  },
];

async function collect(stream: AsyncIterable<ChatStreamPart>): Promise<ChatStreamPart[]> {
  const parts: ChatStreamPart[] = [];
  for await (const part of stream) parts.push(part);
  return parts;
}

const textOf = (parts: ChatStreamPart[]): string => parts.map((part) => (part.type === "text-delta" ? part.text : "")).join("");

describe.each(harnesses)("LlmClient stream contract: $name", (harness) => {
  beforeAll(() => harness.start());
  afterAll(() => harness.stop());
  const options = { maxTokens: 6, temperature: 0 };

  it("streams text deltas, then one finish, last, with token counts", async () => {
    const parts = await collect(harness.client("short").chatStream(QUESTION, options));
    expect(parts.filter((part) => part.type === "text-delta").length).toBeGreaterThan(0);
    expect(parts.filter((part) => part.type === "finish")).toHaveLength(1);
    const finish = parts.at(-1);
    expect(finish?.type).toBe("finish");
    expect(["stop", "length"]).toContain((finish as Extract<ChatStreamPart, { type: "finish" }>).reason);
    expect((finish as Extract<ChatStreamPart, { type: "finish" }>).usage?.outputTokens).toBeGreaterThan(0);
  });

  it("chat() returns the text the stream gives for the same question", async () => {
    const streamed = textOf(await collect(harness.client("short").chatStream(QUESTION, options)));
    const whole = await harness.client("short").chat(QUESTION, options);
    expect(whole.text).toBe(streamed);
    expect(whole.text.length).toBeGreaterThan(0);
  });

  it("ends the answer as cancelled when the signal aborts, and refuses to start once aborted", async () => {
    const controller = new AbortController();
    const parts: ChatStreamPart[] = [];
    for await (const part of harness.client("long").chatStream(QUESTION, { maxTokens: 200, signal: controller.signal })) {
      parts.push(part);
      if (part.type === "text-delta") controller.abort();
    }
    expect(parts.filter((part) => part.type === "text-delta").length).toBeLessThan(LONG.length);
    expect(parts.at(-1)).toEqual({ type: "finish", reason: "cancelled" });
    const refused = await harness.client("short").chat(QUESTION, { ...options, signal: AbortSignal.abort() }).then(() => null, (error: unknown) => error);
    expect(isChunkpadError(refused, "CANCELLED"), String(refused)).toBe(true);
  });
});
