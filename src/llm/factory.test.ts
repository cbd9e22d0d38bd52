import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startOllamaServer } from "../../test/helpers/llm-servers/ollama-server.js";
import type { ScriptedServer } from "../../test/helpers/llm-servers/scripted-server.js";
import { chooseProvider, createLlmClient, DEFAULT_LLM_MODELS, type LlmProviderName } from "./factory.js";

let ollama: ScriptedServer;
beforeAll(async () => {
  ollama = await startOllamaServer();
});
afterAll(() => ollama.close());

describe("createLlmClient", () => {
  it.each(["anthropic", "openai", "ollama", "local"] as LlmProviderName[])("builds a %s client with its default model", (provider) => {
    const client = createLlmClient({ provider, cacheDir: "/nonexistent-cache", env: {} });
    expect(client.provider).toBe(provider);
    expect(client.model).toBe(DEFAULT_LLM_MODELS[provider]);
  });

  it("takes the model from --model, then from the config's per-provider models, then the default", () => {
    const models = { openai: "gpt-4.1-mini", anthropic: "claude-haiku-4-5" };
    expect(createLlmClient({ provider: "openai", models, cacheDir: "/c", env: {} }).model).toBe("gpt-4.1-mini");
    expect(createLlmClient({ provider: "openai", models, model: "o4-mini", cacheDir: "/c", env: {} }).model).toBe("o4-mini");
    expect(createLlmClient({ provider: "ollama", models, cacheDir: "/c", env: {} }).model).toBe("llama3.2");
  });

  it("wires the host and fetch through to the provider", async () => {
    let fetched = 0;
    const countingFetch: typeof fetch = (input, init) => {
      fetched += 1;
      return fetch(input, init);
    };
    const client = createLlmClient({ provider: "ollama", host: ollama.url, fetch: countingFetch, cacheDir: "/c", env: {} });
    expect((await client.chat([{ role: "user", content: "Hi?" }])).text).toBe("Hello from the server.");
    expect(fetched).toBe(1);
    expect(ollama.requests[0]?.body.model).toBe("llama3.2");
  });

  it("names the providers it knows when given another", () => {
    expect(() => createLlmClient({ provider: "gemini" as LlmProviderName, cacheDir: "/c" })).toThrow(/anthropic, openai, ollama, local/);
  });
});

describe("chooseProvider", () => {
  const keys = (...present: string[]) => async (provider: string) => present.includes(provider);

  it("uses the configured provider, else a cloud provider with a key, else the local model", async () => {
    expect(await chooseProvider("ollama", keys("anthropic"))).toBe("ollama");
    expect(await chooseProvider(undefined, keys("openai", "anthropic"))).toBe("anthropic");
    expect(await chooseProvider(undefined, keys("openai"))).toBe("openai");
    expect(await chooseProvider(undefined, keys())).toBe("local");
  });
});
