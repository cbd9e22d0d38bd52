import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startHubServer, type HubServer } from "../../../test/helpers/hub-server.js";
import { startAnthropicServer } from "../../../test/helpers/llm-servers/anthropic-server.js";
import { startOllamaServer } from "../../../test/helpers/llm-servers/ollama-server.js";
import type { ScriptedServer } from "../../../test/helpers/llm-servers/scripted-server.js";
import type { ChatStreamPart } from "../../core/types.js";
import { createSecretStore, LOCAL_LLM_MODELS, type DownloadOffer } from "../../llm/index.js";
import { createLlmSetup, parseProviderName } from "./llm-setup.js";
import { resolveSettings, settingsToConfig } from "../settings/settings.js";

const LOCAL_REPO = "bartowski/Llama-3.2-3B-Instruct-GGUF";
const LOCAL_FILE = "Llama-3.2-3B-Instruct-Q4_K_M.gguf";

let anthropic: ScriptedServer;
let ollama: ScriptedServer;
let hub: HubServer;
beforeAll(async () => {
  anthropic = await startAnthropicServer();
  ollama = await startOllamaServer();
  const repo = fs.mkdtempSync(path.join(os.tmpdir(), "chunkpad-llm-setup-hub-"));
  fs.writeFileSync(path.join(repo, LOCAL_FILE), Buffer.alloc(4096, 1));
  hub = await startHubServer({ repos: { [LOCAL_REPO]: repo } });
});
afterAll(async () => {
  await Promise.all([anthropic.close(), ollama.close(), hub.close()]);
});

/** `generation` as the config file would hold it (dotted keys below generation), resolved with `env` as the app does. */
function setup(options: { env?: NodeJS.ProcessEnv; generation?: Record<string, unknown>; fileKeys?: Record<string, string> } = {}) {
  const configDir = fs.mkdtempSync(path.join(os.tmpdir(), "chunkpad-llm-setup-"));
  if (options.fileKeys) fs.writeFileSync(path.join(configDir, "secrets.json"), JSON.stringify(options.fileKeys), { mode: 0o600 });
  const env = options.env ?? {};
  const file = new Map(Object.entries(options.generation ?? {}).map(([key, value]) => [`generation.${key}`, value]));
  const config = settingsToConfig(resolveSettings({ file, env }));
  const modelsDir = path.join(configDir, "models");
  const secrets = createSecretStore({ configDir, env, keyring: null });
  return { modelsDir, setup: createLlmSetup({ getConfig: () => config, secrets, modelsDir, retry: { maxAttempts: 1 } }) };
}

async function collect(stream: AsyncIterable<ChatStreamPart>): Promise<string> {
  let text = "";
  for await (const part of stream) if (part.type === "text-delta") text += part.text;
  return text;
}

describe("choosing the provider", () => {
  it("takes --provider first, then generation.provider", async () => {
    const { setup: chosen } = setup({ generation: { provider: "ollama" }, env: { ANTHROPIC_API_KEY: "k" } });
    expect(await chosen.select({ provider: "openai" })).toEqual({ provider: "openai", model: "gpt-4o-mini", chosenBy: "option" });
    expect(await chosen.select()).toEqual({ provider: "ollama", model: "llama3.2", chosenBy: "config" });
  });

  it("with none configured, picks Anthropic if it has a key, then OpenAI, else the local model", async () => {
    expect((await setup({ env: { OPENAI_API_KEY: "o" }, fileKeys: { anthropic: "a" } }).setup.select()).provider).toBe("anthropic");
    expect((await setup({ env: { OPENAI_API_KEY: "o" } }).setup.select()).provider).toBe("openai");
    expect(await setup().setup.select()).toEqual({ provider: "local", model: "llama-3.2-3b-instruct", chosenBy: "automatic" });
  });

  it("takes the model from --model, then generation.models", async () => {
    const { setup: chosen } = setup({ generation: { "models.anthropic": "claude-haiku-4-5" } });
    expect((await chosen.select({ provider: "anthropic" })).model).toBe("claude-haiku-4-5");
    expect((await chosen.select({ provider: "anthropic", model: "claude-opus-4-1" })).model).toBe("claude-opus-4-1");
  });

  it("names the providers when one is misspelled", () => {
    expect(parseProviderName(" OpenAI ")).toBe("openai");
    expect(() => parseProviderName("gemini")).toThrow(/anthropic, openai, ollama, local/);
  });
});

describe("the client", () => {
  it("sends to ANTHROPIC_BASE_URL before the configured base URL, with the stored key", async () => {
    anthropic.reset();
    const { setup: chosen } = setup({ env: { ANTHROPIC_BASE_URL: anthropic.url }, generation: { anthropicBaseUrl: "http://127.0.0.1:9" }, fileKeys: { anthropic: "file-key" } });
    const client = await chosen.client(await chosen.select());
    expect(await collect(client.chatStream([{ role: "user", content: "hi" }]))).toBe("Hello from the server.");
    const headers = anthropic.requests[0]?.headers ?? {};
    expect(headers["x-api-key"] ?? headers.authorization).toMatch(/^(Bearer )?file-key$/);
  });

  it("uses generation.ollamaHost when OLLAMA_HOST is not set", async () => {
    ollama.reset();
    const { setup: chosen } = setup({ generation: { provider: "ollama", ollamaHost: ollama.url } });
    const client = await chosen.client(await chosen.select());
    expect(await collect(client.chatStream([{ role: "user", content: "hi" }]))).toBe("Hello from the server.");
    expect(ollama.requests).toHaveLength(1);
  });

  it("never downloads the local model without consent, and says how to give it", async () => {
    hub.requests.length = 0;
    const { setup: chosen, modelsDir } = setup({ env: { CHUNKPAD_HUB_URL: hub.url } });
    await expect(chosen.client(await chosen.select())).rejects.toMatchObject({ code: "MODEL_CONSENT_REQUIRED", nextSteps: [{ action: "download-model", model: "llm" }, { action: "set-up-llm" }] });
    await expect(chosen.client(await chosen.select(), { consent: () => false })).rejects.toMatchObject({ code: "MODEL_CONSENT_REQUIRED" });
    expect(hub.requests.filter((request) => request.method === "GET")).toEqual([]);
    expect(fs.existsSync(modelsDir)).toBe(false);
  });

  it("downloads the local model from the configured hub once the user agrees, showing the catalog's size", async () => {
    const { setup: chosen, modelsDir } = setup({ env: { CHUNKPAD_HUB_URL: hub.url } });
    const offers: number[] = [];
    const progress: number[] = [];
    hub.requests.length = 0;
    const requestsBeforeConsent: number[] = [];
    const consent = (offer: DownloadOffer) => {
      offers.push(offer.sizeBytes);
      requestsBeforeConsent.push(hub.requests.length);
      return true;
    };
    const client = await chosen.client(await chosen.select(), { consent, onDownloadProgress: (step) => progress.push(step.percent) });
    expect(client.provider).toBe("local");
    // The catalog's estimate: the hub is not asked anything (not even a size) before the user agrees.
    expect(offers).toEqual([LOCAL_LLM_MODELS.find((model) => model.name === "llama-3.2-3b-instruct")?.approximateSizeBytes]);
    expect(requestsBeforeConsent).toEqual([0]);
    expect(progress.at(-1)).toBe(100);
    expect(fs.statSync(path.join(modelsDir, LOCAL_REPO, LOCAL_FILE)).size).toBe(4096);
    await chosen.close();
  });

  it("reads the Ollama host from OLLAMA_HOST before generation.ollamaHost, as `chunkpad providers` does", async () => {
    ollama.reset();
    const { setup: chosen } = setup({ env: { OLLAMA_HOST: ollama.url }, generation: { provider: "ollama", ollamaHost: "http://127.0.0.1:9" } });
    const client = await chosen.client(await chosen.select());
    expect(await collect(client.chatStream([{ role: "user", content: "hi" }]))).toBe("Hello from the server.");
    expect(ollama.requests).toHaveLength(1);
  });
});
