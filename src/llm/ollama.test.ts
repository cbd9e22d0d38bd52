import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { startOllamaServer } from "../../test/helpers/llm-servers/ollama-server.js";
import type { ScriptedServer } from "../../test/helpers/llm-servers/scripted-server.js";
import { readJsonLines } from "./ndjson.js";
import { createOllamaClient, listOllamaModels, resolveOllamaHost } from "./ollama.js";

let server: ScriptedServer;
beforeAll(async () => {
  server = await startOllamaServer({ installedModels: ["llama3.2:latest", "mistral:7b"] });
});
afterAll(() => server.close());
beforeEach(() => server.reset());

describe("resolveOllamaHost", () => {
  it.each([
    [undefined, {}, "http://127.0.0.1:11434"],
    [undefined, { OLLAMA_HOST: "gpu-box" }, "http://gpu-box:11434"],
    [undefined, { OLLAMA_HOST: "0.0.0.0:8080" }, "http://127.0.0.1:8080"],
    [undefined, { OLLAMA_HOST: ":9999" }, "http://127.0.0.1:9999"],
    [undefined, { OLLAMA_HOST: "https://ollama.example.com" }, "https://ollama.example.com"],
    ["http://10.0.0.5:11434/", { OLLAMA_HOST: "ignored" }, "http://10.0.0.5:11434"],
  ])("reads %s with %j as %s", (host, env, expected) => {
    expect(resolveOllamaHost(host, env)).toBe(expected);
  });
});

describe("createOllamaClient", () => {
  it("honours OLLAMA_HOST given without a scheme", async () => {
    const client = createOllamaClient({ model: "llama3.2", env: { OLLAMA_HOST: server.url.replace("http://", "") } });
    expect((await client.chat([{ role: "user", content: "Hi?" }])).text).toBe("Hello from the server.");
    expect(server.requests[0]?.body).toMatchObject({ model: "llama3.2", stream: true });
  });

  it("passes temperature and the answer length as Ollama options", async () => {
    await createOllamaClient({ model: "llama3.2", host: server.url, env: {} }).chat([{ role: "user", content: "Hi?" }], { temperature: 0.1, maxTokens: 300 });
    expect(server.requests[0]?.body.options).toEqual({ temperature: 0.1, num_predict: 300 });
  });
});

describe("listOllamaModels", () => {
  it("lists the installed models with their size and quantization", async () => {
    const models = await listOllamaModels(server.url, fetch, { env: {} });
    expect(models.map((model) => model.name)).toEqual(["llama3.2:latest", "mistral:7b"]);
    expect(models[0]).toMatchObject({ family: "llama", parameterSize: "3.2B", quantization: "Q4_K_M" });
    expect(models[0]?.sizeBytes).toBeGreaterThan(0);
  });

  it("says the server is not running when nothing answers", async () => {
    const refusingFetch: typeof fetch = async () => {
      throw new TypeError("fetch failed", { cause: Object.assign(new Error("connect ECONNREFUSED"), { code: "ECONNREFUSED" }) });
    };
    await expect(listOllamaModels("127.0.0.1:9", refusingFetch, { env: {} })).rejects.toMatchObject({
      code: "LLM_UNAVAILABLE",
      message: expect.stringContaining("ollama serve"),
    });
  });
});

describe("readJsonLines", () => {
  const body = (...chunks: string[]) =>
    new ReadableStream<Uint8Array>({
      start(controller) {
        for (const chunk of chunks) controller.enqueue(new TextEncoder().encode(chunk));
        controller.close();
      },
    });

  it("joins lines split across chunks, including a multi-byte character", async () => {
    const values: unknown[] = [];
    const euro = new TextEncoder().encode('{"t":"€"}\n');
    const stream = new ReadableStream<Uint8Array>({
      start(controller) {
        controller.enqueue(new TextEncoder().encode('{"a":1}\n{"b"'));
        controller.enqueue(new TextEncoder().encode(":2}\n"));
        controller.enqueue(euro.subarray(0, 7));
        controller.enqueue(euro.subarray(7));
        controller.close();
      },
    });
    for await (const value of readJsonLines(stream)) values.push(value);
    expect(values).toEqual([{ a: 1 }, { b: 2 }, { t: "€" }]);
  });

  it("rejects a line that is not JSON, and a body cut in the middle of a line", async () => {
    await expect(async () => {
      for await (const _ of readJsonLines(body("<html>\n"))) void _;
    }).rejects.toThrow(/not JSON/);
    await expect(async () => {
      for await (const _ of readJsonLines(body('{"a":1}\n{"b":'))) void _;
    }).rejects.toThrow(/middle of a line/);
  });
});
