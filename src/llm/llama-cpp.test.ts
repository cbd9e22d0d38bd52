import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { beforeAll, describe, expect, it } from "vitest";
import type { ChatMessage, ChatStreamPart, ModelStatus } from "../core/types.js";
import { createLlamaCppClient } from "./llama-cpp.js";
import { checkGgufFile, loadLlamaCppGenerator, toChatHistory, type GenerateOptions, type LocalGenerator } from "./llama-cpp-engine.js";

/**
 * No GGUF weights can be downloaded here, so generation itself runs against a fake generator
 * (the node-llama-cpp seam); loading runs the real node-llama-cpp on files that are not models.
 */

const question: ChatMessage[] = [
  { role: "system", content: "Answer from the chunks." },
  { role: "user", content: "What is the warranty?" },
];

/** Pushes each word through onTextChunk the way LlamaChatSession does, honouring the signal. */
function fakeGenerator(words: string[], options: { failAfter?: number; waitForAbort?: boolean } = {}): LocalGenerator & { seen: ChatMessage[][] } {
  const seen: ChatMessage[][] = [];
  return {
    seen,
    async generate(messages, generateOptions: GenerateOptions) {
      seen.push(messages);
      for (const [index, word] of words.entries()) {
        if (options.failAfter === index) throw new Error("llama_decode failed: the context size is too small");
        generateOptions.onTextChunk(word);
        await new Promise((resolve) => setImmediate(resolve));
        if (generateOptions.signal?.aborted) return { reason: "cancelled", usage: { inputTokens: 12, outputTokens: index + 1 } };
      }
      if (options.waitForAbort && !generateOptions.signal?.aborted) {
        await new Promise((resolve) => generateOptions.signal?.addEventListener("abort", resolve));
      }
      return { reason: "stop", usage: { inputTokens: 12, outputTokens: words.length } };
    },
    dispose: async () => undefined,
  };
}

async function collect(stream: AsyncIterable<ChatStreamPart>) {
  const parts: ChatStreamPart[] = [];
  for await (const part of stream) parts.push(part);
  return parts;
}

describe("local llama.cpp client (fake generator)", () => {
  it("streams the chunks as text deltas, then finishes with usage, loading the model once", async () => {
    const generator = fakeGenerator(["Two", " years", " [C1]."]);
    let loads = 0;
    const statuses: ModelStatus["state"][] = [];
    const client = createLlamaCppClient({
      modelPath: "/models/Llama-3.2-3B-Instruct-Q4_K_M.gguf",
      loadGenerator: async () => {
        loads += 1;
        return generator;
      },
      onStatus: (status) => statuses.push(status.state),
    });
    expect(client.model).toBe("Llama-3.2-3B-Instruct-Q4_K_M");
    const parts = await collect(client.chatStream(question));
    expect(parts).toEqual([
      { type: "text-delta", text: "Two" },
      { type: "text-delta", text: " years" },
      { type: "text-delta", text: " [C1]." },
      { type: "finish", reason: "stop", usage: { inputTokens: 12, outputTokens: 3 } },
    ]);
    expect((await client.chat(question)).text).toBe("Two years [C1].");
    expect(loads).toBe(1);
    expect(statuses).toEqual(["loading", "ready"]);
    expect(generator.seen[0]).toEqual(question);
  });

  it("keeps the partial answer when generation fails midway, and names a full context", async () => {
    const client = createLlamaCppClient({ modelPath: "/m.gguf", loadGenerator: async () => fakeGenerator(["Two", " years"], { failAfter: 1 }) });
    const parts = await collect(client.chatStream(question));
    expect(parts[0]).toEqual({ type: "text-delta", text: "Two" });
    expect(parts[1]).toMatchObject({ type: "error", error: { code: "LLM_STREAM_INTERRUPTED", details: { partialText: "Two" } } });
    expect((parts[1] as { error: { cause: { code: string } } }).error.cause.code).toBe("LLM_CONTEXT_TOO_LONG");
  });

  it("stops generating when the signal aborts", async () => {
    const controller = new AbortController();
    const client = createLlamaCppClient({ modelPath: "/m.gguf", loadGenerator: async () => fakeGenerator(["a", "b", "c", "d"], { waitForAbort: true }) });
    const parts: ChatStreamPart[] = [];
    for await (const part of client.chatStream(question, { signal: controller.signal })) {
      parts.push(part);
      controller.abort();
    }
    expect(parts).toEqual([{ type: "text-delta", text: "a" }, { type: "finish", reason: "cancelled" }]);
  });

  it("reports a model that fails to load, and tries again on the next question", async () => {
    let loads = 0;
    const statuses: ModelStatus[] = [];
    const client = createLlamaCppClient({
      modelPath: "/m.gguf",
      loadGenerator: async () => {
        loads += 1;
        if (loads === 1) throw new Error("out of memory");
        return fakeGenerator(["ok"]);
      },
      onStatus: (status) => statuses.push(status),
    });
    const parts = await collect(client.chatStream(question));
    expect(parts).toHaveLength(1);
    expect(parts[0]).toMatchObject({ type: "error", error: { message: expect.stringContaining("out of memory") } });
    expect(statuses[1]).toMatchObject({ state: "error" });
    expect((await client.chat(question)).text).toBe("ok");
  });
});

describe("toChatHistory", () => {
  it("turns the conversation into node-llama-cpp history, the last user message being the prompt", () => {
    const { history, prompt } = toChatHistory([...question, { role: "assistant", content: "Two years." }, { role: "user", content: "And the battery?" }]);
    expect(history).toEqual([
      { type: "system", text: "Answer from the chunks." },
      { type: "user", text: "What is the warranty?" },
      { type: "model", response: ["Two years."] },
    ]);
    expect(prompt).toBe("And the battery?");
  });

  it("refuses a conversation that does not end with the user", () => {
    expect(() => toChatHistory([{ role: "assistant", content: "x" }])).toThrow(/end with a user message/);
  });
});

describe("loading with node-llama-cpp (no real weights on this machine)", () => {
  let directory: string;
  beforeAll(() => {
    directory = fs.mkdtempSync(path.join(os.tmpdir(), "chunkpad-gguf-"));
  });

  const write = (name: string, data: Buffer | string) => {
    const file = path.join(directory, name);
    fs.writeFileSync(file, data);
    return file;
  };

  it("says a missing file is not downloaded", () => {
    expect(() => checkGgufFile(path.join(directory, "absent.gguf"))).toThrow(expect.objectContaining({ code: "MODEL_NOT_DOWNLOADED" }));
  });

  it("rejects a file that is not a GGUF before llama.cpp sees it", () => {
    const html = write("error-page.gguf", "<html>Entry not found</html>");
    expect(() => checkGgufFile(html)).toThrow(expect.objectContaining({ code: "MODEL_LOAD_FAILED", message: expect.stringContaining("not a GGUF file") }));
    // A GGUF magic with a garbage version kept llama.cpp's parser busy for minutes: refused up front.
    const garbage = write("garbage-version.gguf", "GGUF-not-really");
    expect(() => checkGgufFile(garbage)).toThrow(expect.objectContaining({ code: "MODEL_LOAD_FAILED", message: expect.stringContaining("unknown GGUF version") }));
  });

  it("reports MODEL_LOAD_FAILED when node-llama-cpp cannot load a GGUF with no model in it", async () => {
    const header = Buffer.alloc(24);
    header.write("GGUF", 0, "latin1");
    header.writeUInt32LE(3, 4);
    const emptyModel = write("empty.gguf", header);
    const logs: string[] = [];
    await expect(loadLlamaCppGenerator(emptyModel, { onLog: (line) => logs.push(line) })).rejects.toMatchObject({
      code: "MODEL_LOAD_FAILED",
      message: expect.stringContaining(emptyModel),
    });
  });

  it("gives the first question a clear error when the local model is not a model", async () => {
    const client = createLlamaCppClient({ modelPath: write("fake.gguf", "not a model") });
    await expect(client.chat(question)).rejects.toMatchObject({ code: "MODEL_LOAD_FAILED" });
  });
});
