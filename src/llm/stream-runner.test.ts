import { describe, expect, it } from "vitest";
import { ChunkpadError } from "../core/errors.js";
import type { ChatStreamPart } from "../core/types.js";
import { collectChat, DEFAULT_RETRY_POLICY, retryDelay, runChatStream, type StreamAttempt } from "./stream-runner.js";

const unavailable = (details?: Record<string, unknown>) =>
  new ChunkpadError("LLM_UNAVAILABLE", "server error", { isRetryable: true, statusCode: 503, ...(details ? { details } : {}) });

/** Each attempt plays the next script: parts to yield, then an optional error to throw. */
function scripted(scripts: Array<{ parts?: ChatStreamPart[]; error?: unknown }>): { attempt: StreamAttempt; calls: () => number } {
  let calls = 0;
  return {
    calls: () => calls,
    attempt: async function* () {
      const script = scripts[calls] ?? scripts.at(-1) ?? {};
      calls += 1;
      for (const part of script.parts ?? []) yield part;
      if (script.error) throw script.error;
    },
  };
}

async function run(attempt: StreamAttempt, options: { signal?: AbortSignal; sleeps?: number[]; maxAttempts?: number } = {}) {
  const parts: ChatStreamPart[] = [];
  const stream = runChatStream({
    provider: "openai",
    attempt,
    toError: (thrown) => (thrown instanceof ChunkpadError ? thrown : new ChunkpadError("LLM_BAD_RESPONSE", String(thrown))),
    signal: options.signal,
    retry: { sleep: async (delayMs) => void options.sleeps?.push(delayMs), ...(options.maxAttempts ? { maxAttempts: options.maxAttempts } : {}) },
  });
  for await (const part of stream) parts.push(part);
  return parts;
}

const finish: ChatStreamPart = { type: "finish", reason: "stop" };

describe("runChatStream", () => {
  it("backs off exponentially between attempts and gives up after the last one", async () => {
    const { attempt, calls } = scripted([{ error: unavailable() }]);
    const sleeps: number[] = [];
    const parts = await run(attempt, { sleeps, maxAttempts: 4 });
    expect(calls()).toBe(4);
    expect(sleeps).toEqual([500, 1000, 2000]);
    expect(parts).toEqual([{ type: "error", error: expect.objectContaining({ code: "LLM_UNAVAILABLE" }) }]);
  });

  it("never retries once a token has been streamed", async () => {
    const { attempt, calls } = scripted([{ parts: [{ type: "text-delta", text: "Half an" }], error: unavailable() }]);
    const parts = await run(attempt, { sleeps: [] });
    expect(calls()).toBe(1);
    expect(parts[0]).toEqual({ type: "text-delta", text: "Half an" });
    expect(parts[1]).toMatchObject({ type: "error", error: { code: "LLM_STREAM_INTERRUPTED", details: { partialText: "Half an" } } });
    expect(parts).toHaveLength(2);
  });

  it("does not wait for a retry-after longer than the limit; it reports the rate limit instead", async () => {
    const limited = new ChunkpadError("LLM_RATE_LIMITED", "slow down", { isRetryable: true, details: { retryAfterMs: 3_600_000 } });
    const { attempt, calls } = scripted([{ error: limited }]);
    const sleeps: number[] = [];
    const parts = await run(attempt, { sleeps });
    expect(calls()).toBe(1);
    expect(sleeps).toEqual([]);
    expect(parts).toEqual([{ type: "error", error: limited }]);
  });

  it("treats a stream that ends without a finish part as interrupted, retrying only if nothing came", async () => {
    const { attempt, calls } = scripted([{ parts: [] }, { parts: [{ type: "text-delta", text: "ok" }, finish] }]);
    const parts = await run(attempt, { sleeps: [] });
    expect(calls()).toBe(2);
    expect(parts).toEqual([{ type: "text-delta", text: "ok" }, finish]);
  });

  it("stops waiting for a retry when the signal aborts, and finishes as cancelled", async () => {
    const controller = new AbortController();
    const { attempt } = scripted([{ error: unavailable() }]);
    const stream = runChatStream({
      provider: "openai",
      attempt,
      toError: (thrown) => thrown as ChunkpadError,
      signal: controller.signal,
      retry: {
        sleep: (_delayMs, signal) =>
          new Promise((_resolve, reject) => {
            signal?.addEventListener("abort", () => reject(new Error("aborted")));
            controller.abort();
          }),
      },
    });
    const parts: ChatStreamPart[] = [];
    for await (const part of stream) parts.push(part);
    expect(parts).toEqual([{ type: "finish", reason: "cancelled" }]);
  });

  it("closes the provider's stream when the consumer stops reading", async () => {
    let closed = false;
    const attempt: StreamAttempt = async function* () {
      try {
        yield { type: "text-delta", text: "one" };
        yield { type: "text-delta", text: "two" };
        yield finish;
      } finally {
        closed = true;
      }
    };
    for await (const part of runChatStream({ provider: "ollama", attempt, toError: (thrown) => thrown as ChunkpadError })) {
      if (part.type === "text-delta") break;
    }
    expect(closed).toBe(true);
  });
});

describe("retryDelay", () => {
  it("caps the backoff", () => {
    const policy = { ...DEFAULT_RETRY_POLICY, maxAttempts: 10, maxDelayMs: 3000 };
    expect([1, 2, 3, 4, 5].map((attempt) => retryDelay(unavailable(), attempt, policy))).toEqual([500, 1000, 2000, 3000, 3000]);
  });
});

describe("collectChat", () => {
  it("returns the text with the finish reason and usage", async () => {
    async function* parts(): AsyncGenerator<ChatStreamPart> {
      yield { type: "text-delta", text: "Two " };
      yield { type: "text-delta", text: "years." };
      yield { type: "finish", reason: "stop", usage: { inputTokens: 5, outputTokens: 2 } };
    }
    expect(await collectChat(parts())).toEqual({ text: "Two years.", finishReason: "stop", usage: { inputTokens: 5, outputTokens: 2 } });
  });
});
