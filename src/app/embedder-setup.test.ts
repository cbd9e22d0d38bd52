import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { createSecretStore } from "../llm/index.js";
import { defaultConfig } from "./config.js";
import { configModelValue, embedderConfigFor, hubUrlFor, modelIdentity } from "./embedder-setup.js";
import { resolvePaths } from "./paths.js";

const TINY_BERT_DIR = path.resolve("../shared/models/tiny-bert");
const paths = resolvePaths({ env: { CHUNKPAD_HOME: "/tmp/chunkpad-home" } });

describe("embedder setup", () => {
  it("takes the hub from CHUNKPAD_HUB_URL, else the config, else the Hugging Face hub", () => {
    const config = defaultConfig();
    expect(hubUrlFor(config, {})).toBe("https://huggingface.co");
    config.embedding.hubUrl = "http://mirror.example/hub";
    expect(hubUrlFor(config, {})).toBe("http://mirror.example/hub");
    expect(hubUrlFor(config, { CHUNKPAD_HUB_URL: "http://127.0.0.1:1234" })).toBe("http://127.0.0.1:1234");
  });

  it("uses the config's model unless the run names another, with the model cache under CHUNKPAD_HOME", () => {
    const config = defaultConfig();
    expect(embedderConfigFor(config, paths, {})).toMatchObject({ provider: "local", model: "bge-base-en-v1.5", dtype: "fp32", cacheDir: paths.modelsDir });
    expect(embedderConfigFor(config, paths, {}, { model: "owner/name", dtype: "q8", threads: 1 })).toMatchObject({ model: "owner/name", dtype: "q8", threads: 1 });
  });

  it("names the model by what makes its vectors: the hub repository of a catalog name, or a directory's absolute path", () => {
    const config = defaultConfig();
    expect(modelIdentity(embedderConfigFor(config, paths, {}))).toEqual({ provider: "local", model: "Xenova/bge-base-en-v1.5", dtype: "fp32" });
    const relative = path.relative(process.cwd(), TINY_BERT_DIR);
    const local = embedderConfigFor(config, paths, {}, { model: relative, dtype: "q8" });
    expect(modelIdentity(local)).toEqual({ provider: "local", model: TINY_BERT_DIR, dtype: "q8" });
    expect(configModelValue(local)).toBe(TINY_BERT_DIR);
    expect(configModelValue(embedderConfigFor(config, paths, {}, { model: "bge-small-en-v1.5" }))).toBe("bge-small-en-v1.5");
    config.embedding.provider = "ollama";
    expect(modelIdentity(embedderConfigFor(config, paths, {}, { model: "nomic-embed-text" }))).toEqual({ provider: "ollama", model: "nomic-embed-text", dtype: null });
  });

  it("reaches Ollama and OpenAI-compatible servers where OLLAMA_HOST and OPENAI_BASE_URL say, unless the config names one", () => {
    const config = defaultConfig();
    config.embedding.provider = "ollama";
    expect(embedderConfigFor(config, paths, { OLLAMA_HOST: "127.0.0.1:5555" }).baseUrl).toBe("http://127.0.0.1:5555");
    config.embedding.baseUrl = "http://gpu-box:11434";
    expect(embedderConfigFor(config, paths, { OLLAMA_HOST: "127.0.0.1:5555" }).baseUrl).toBe("http://gpu-box:11434");
    config.embedding.provider = "openai";
    delete config.embedding.baseUrl;
    expect(embedderConfigFor(config, paths, { OPENAI_BASE_URL: "http://127.0.0.1:8080/v1" }).baseUrl).toBe("http://127.0.0.1:8080/v1");
    expect(embedderConfigFor(config, paths, {}).baseUrl).toBeUndefined();
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
