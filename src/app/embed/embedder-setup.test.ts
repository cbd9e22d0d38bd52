import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { createSecretStore } from "../../llm/index.js";
import { defaultConfig } from "../settings/config.js";
import { configModelValue, embedderConfigFor, modelIdentity } from "./embedder-setup.js";
import { resolveSettings, settingsToConfig } from "../settings/settings.js";
import { resolvePaths } from "../settings/paths.js";

const TINY_BERT_DIR = path.resolve("../shared/models/tiny-bert");
const paths = resolvePaths({ env: { CHUNKPAD_HOME: "/tmp/chunkpad-home" } });

/** The settings as the app resolves them from a config file (dotted keys) and an environment. */
const resolved = (file: Record<string, unknown>, env: Record<string, string> = {}) => settingsToConfig(resolveSettings({ file: new Map(Object.entries(file)), env }));

describe("embedder setup", () => {
  it("takes the hub from CHUNKPAD_HUB_URL, else the config, else the Hugging Face hub", () => {
    expect(embedderConfigFor(resolved({}), paths, {}).hubUrl).toBe("https://huggingface.co");
    const file = { "embedding.hubUrl": "http://mirror.example/hub" };
    expect(embedderConfigFor(resolved(file), paths, {}).hubUrl).toBe("http://mirror.example/hub");
    expect(embedderConfigFor(resolved(file, { CHUNKPAD_HUB_URL: "http://127.0.0.1:1234" }), paths, {}).hubUrl).toBe("http://127.0.0.1:1234");
  });

  it("uses the config's model unless the run names another, with the model cache under CHUNKPAD_HOME", () => {
    const config = defaultConfig();
    expect(embedderConfigFor(config, paths, {})).toMatchObject({ provider: "local", model: "bge-base-en-v1.5", dtype: "fp32", cacheDir: paths.modelsDir });
    expect(embedderConfigFor(config, paths, {}, { model: "owner/name", dtype: "q8", threads: 1 })).toMatchObject({ model: "owner/name", dtype: "q8", threads: 1 });
  });

  it("names the model by what makes its vectors: the hub repository of a catalog name, or a directory's absolute path", () => {
    const config = defaultConfig();
    expect(modelIdentity(embedderConfigFor(config, paths, {}))).toMatchObject({ provider: "local", model: "Xenova/bge-base-en-v1.5", dtype: "fp32", pooling: "cls" });
    const relative = path.relative(process.cwd(), TINY_BERT_DIR);
    const local = embedderConfigFor(config, paths, {}, { model: relative, dtype: "q8" });
    expect(modelIdentity(local)).toEqual({ provider: "local", model: TINY_BERT_DIR, dtype: "q8", pooling: "mean", queryPrefix: "", documentPrefix: "" });
    expect(configModelValue(local)).toBe(TINY_BERT_DIR);
    expect(configModelValue(embedderConfigFor(config, paths, {}, { model: "bge-small-en-v1.5" }))).toBe("bge-small-en-v1.5");
    config.embedding.provider = "ollama";
    expect(modelIdentity(embedderConfigFor(config, paths, {}, { model: "nomic-embed-text" }))).toEqual({ provider: "ollama", model: "nomic-embed-text", dtype: null, pooling: null, queryPrefix: "search_query: ", documentPrefix: "search_document: " });
  });

  it("reaches Ollama and OpenAI-compatible servers at the host answers use (OLLAMA_HOST, OPENAI_BASE_URL), unless embedding.baseUrl names one", () => {
    const ollama = { "embedding.provider": "ollama" };
    expect(embedderConfigFor(resolved(ollama, { OLLAMA_HOST: "127.0.0.1:5555" }), paths, {}).baseUrl).toBe("http://127.0.0.1:5555");
    expect(embedderConfigFor(resolved({ ...ollama, "generation.ollamaHost": "http://box:11434" }), paths, {}).baseUrl).toBe("http://box:11434");
    expect(embedderConfigFor(resolved({ ...ollama, "embedding.baseUrl": "http://gpu-box:11434" }, { OLLAMA_HOST: "127.0.0.1:5555" }), paths, {}).baseUrl).toBe("http://gpu-box:11434");
    const openai = { "embedding.provider": "openai" };
    expect(embedderConfigFor(resolved(openai, { OPENAI_BASE_URL: "http://127.0.0.1:8080/v1" }), paths, {}).baseUrl).toBe("http://127.0.0.1:8080/v1");
    expect(embedderConfigFor(resolved(openai), paths, {}).baseUrl).toBeUndefined();
  });

  it("gives a model outside the catalog the configured pooling and prefixes, and a catalog model its model card's", () => {
    const custom = { "embedding.pooling": "cls", "embedding.queryPrefix": "query: ", "embedding.documentPrefix": "passage: " };
    expect(embedderConfigFor(resolved({ ...custom, "embedding.model": "intfloat/e5-base-v2" }), paths, {})).toMatchObject({ pooling: "cls", queryPrefix: "query: ", documentPrefix: "passage: " });
    expect(embedderConfigFor(resolved(custom), paths, {}, { model: TINY_BERT_DIR })).toMatchObject({ pooling: "cls", queryPrefix: "query: " });
    const catalog = embedderConfigFor(resolved(custom), paths, {}, { model: "bge-small-en-v1.5" });
    expect([catalog.pooling, catalog.queryPrefix, catalog.documentPrefix]).toEqual([undefined, undefined, undefined]);
    // Remote providers: prefixes for a model the catalog does not know (pooling is the server's business).
    const remote = embedderConfigFor(resolved({ ...custom, "embedding.provider": "openai", "embedding.model": "e5-on-my-server" }), paths, {});
    expect(remote).toMatchObject({ queryPrefix: "query: ", documentPrefix: "passage: " });
    expect(remote.pooling).toBeUndefined();
    expect(embedderConfigFor(resolved({ ...custom, "embedding.provider": "ollama", "embedding.model": "nomic-embed-text" }), paths, {}).queryPrefix).toBeUndefined();
  });

  it("gives OpenAI embeddings the key stored with `chunkpad keys set openai`, read when a request is made", async () => {
    const home = fs.mkdtempSync(path.join(os.tmpdir(), "chunkpad-embedder-setup-"));
    try {
      const env = { CHUNKPAD_HOME: home, CHUNKPAD_KEYCHAIN: "off" };
      const homePaths = resolvePaths({ env });
      const config = defaultConfig();
      config.embedding.provider = "openai";
      const apiKey = embedderConfigFor(config, homePaths, env).apiKey;
      expect(typeof apiKey === "function" ? await apiKey() : apiKey).toBeUndefined();
      await createSecretStore({ configDir: homePaths.configDir, env, keyring: null }).set("openai", "sk-stored");
      expect(typeof apiKey === "function" ? await apiKey() : apiKey).toBe("sk-stored");
      const fromEnvironment = embedderConfigFor(config, homePaths, { ...env, OPENAI_API_KEY: "sk-env" }).apiKey;
      expect(typeof fromEnvironment === "function" ? await fromEnvironment() : fromEnvironment).toBe("sk-env");
    } finally {
      fs.rmSync(home, { recursive: true, force: true });
    }
  });

  it("rejects a model that is neither a catalog name, a hub id nor a directory", () => {
    expect(() => modelIdentity(embedderConfigFor(defaultConfig(), paths, {}, { model: "not a model!" }))).toThrow(/not a known embedding model/);
  });
});
