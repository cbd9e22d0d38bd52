import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { writeTinyGguf } from "../../test/helpers/llm-servers/tiny-gguf.js";
import type { ChatMessage, ChatStreamPart } from "../core/types.js";
import { createLlamaCppClient, type LocalLlmClient } from "./llama-cpp.js";

/**
 * The real node-llama-cpp path, on a tiny random-weight Llama GGUF written by the test (the
 * Llama 3.2 weights cannot be downloaded here). The answers are gibberish; the streaming, stop
 * reasons, token counts, history and abort are real.
 */

const question: ChatMessage[] = [
  { role: "system", content: "Answer from the chunks." },
  { role: "user", content: "What is the warranty?" },
];

let client: LocalLlmClient;
const statuses: string[] = [];

beforeAll(() => {
  const modelPath = path.join(fs.mkdtempSync(path.join(os.tmpdir(), "chunkpad-tiny-gguf-")), "tiny.gguf");
  writeTinyGguf(modelPath);
  // One thread: llama.cpp's spinning worker threads crawl on a busy two-core machine.
  client = createLlamaCppClient({ modelPath, threads: 1, onStatus: (status) => statuses.push(status.state) });
});
afterAll(() => client.dispose());

async function collect(stream: AsyncIterable<ChatStreamPart>) {
  const parts: ChatStreamPart[] = [];
  for await (const part of stream) parts.push(part);
  return parts;
}

describe("local model through node-llama-cpp (tiny test GGUF)", () => {
  it("loads the model and streams text deltas, then finishes with the stop reason and token counts", async () => {
    const parts = await collect(client.chatStream(question, { maxTokens: 8, temperature: 0 }));
    expect(statuses).toEqual(["loading", "ready"]);
    const deltas = parts.filter((part) => part.type === "text-delta");
    expect(deltas.length).toBeGreaterThan(0);
    expect(parts.at(-1)).toMatchObject({ type: "finish", reason: "length", usage: { outputTokens: 8 } });
    const finish = parts.at(-1) as Extract<ChatStreamPart, { type: "finish" }>;
    expect(finish.usage?.inputTokens).toBeGreaterThan(10);
  });

  it("starts every answer from a clean context, so the same greedy question gives the same answer", async () => {
    const first = await client.chat(question, { maxTokens: 6, temperature: 0 });
    const second = await client.chat(question, { maxTokens: 6, temperature: 0 });
    expect(second.text).toBe(first.text);
    expect(first.usage?.inputTokens).toBe(second.usage?.inputTokens);
  });

  it("takes a whole conversation: earlier turns count as input", async () => {
    const short = await client.chat(question, { maxTokens: 2, temperature: 0 });
    const long = await client.chat([...question, { role: "assistant", content: "Two years." }, { role: "user", content: "And the battery?" }], {
      maxTokens: 2,
      temperature: 0,
    });
    expect(long.usage?.inputTokens).toBeGreaterThan(short.usage?.inputTokens ?? Infinity);
  });

  it("answers two questions asked at once, one after the other, on its single context", async () => {
    const [first, second] = await Promise.all([
      client.chat(question, { maxTokens: 3, temperature: 0 }),
      client.chat(question, { maxTokens: 3, temperature: 0 }),
    ]);
    expect(first.finishReason).toBe("length");
    expect(second.text).toBe(first.text);
  });

  it("stops when the signal aborts", async () => {
    const controller = new AbortController();
    const parts: ChatStreamPart[] = [];
    for await (const part of client.chatStream(question, { maxTokens: 200, signal: controller.signal })) {
      parts.push(part);
      if (part.type === "text-delta") controller.abort();
    }
    expect(parts.at(-1)).toEqual({ type: "finish", reason: "cancelled" });
    expect(parts.filter((part) => part.type === "text-delta").length).toBeLessThan(200);
    // The model is still usable after a cancelled answer.
    expect((await client.chat(question, { maxTokens: 2 })).finishReason).toBe("length");
  });
});
