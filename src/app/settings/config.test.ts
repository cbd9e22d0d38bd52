import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { defaultConfig, effectiveConfig, isLegacyFullFile, loadSettings, readConfigFile, saveConfig, setConfigValue, unsetConfigValue } from "./config.js";

const temp = () => fs.mkdtempSync(path.join(os.tmpdir(), "chunkpad-config-"));

/** What `config set search.limit 5` wrote before 0.1: every default too. */
const LEGACY_FULL_FILE = {
  chunking: { chunkSizeTokens: 400, chunkOverlapTokens: 60 },
  ingest: { maxFileSizeMb: 200, perFileTimeoutSeconds: 120, maxDecompressedMb: 256, maxArchiveEntries: 5000, workers: 2, workerHeapMb: 1024 },
  embedding: { provider: "local", model: "bge-base-en-v1.5", dtype: "fp32", batchSize: 16 },
  search: { fusion: "weighted", minScore: 0.1, limit: 5, vectorWeight: 0.7, keywordWeight: 0.3 },
  generation: { mode: "normal", minSimilarity: 0.3, models: {} },
};

/** What every command reads: the settings of this file, resolved (no flags, no environment unless given). */
function loadTestConfig(configPath: string, env: Record<string, string | undefined> = {}) {
  return effectiveConfig(loadSettings({ configPath, env }));
}

describe("the config file keeps only what the user set", () => {
  it("writes one key for one `config set`, and is the defaults when missing", () => {
    const file = path.join(temp(), "nested", "config.json");
    expect(loadTestConfig(file)).toEqual(defaultConfig());
    saveConfig(file, setConfigValue(readConfigFile(file), "chunking.chunkSizeTokens", "300"));
    expect(JSON.parse(fs.readFileSync(file, "utf8"))).toEqual({ chunking: { chunkSizeTokens: 300 } });
    saveConfig(file, setConfigValue(readConfigFile(file), "generation.models.ollama", "qwen2.5:7b"));
    expect(readConfigFile(file)).toEqual({ chunking: { chunkSizeTokens: 300 }, generation: { models: { ollama: "qwen2.5:7b" } } });
    expect(loadTestConfig(file).chunking.chunkSizeTokens).toBe(300);
  });

  it("unset removes the key and its empty section", () => {
    const set = setConfigValue(setConfigValue({}, "search.limit", "25"), "generation.provider", "ollama");
    expect(unsetConfigValue(set, "search.limit")).toEqual({ generation: { provider: "ollama" } });
    expect(unsetConfigValue(unsetConfigValue(set, "search.limit"), "generation.provider")).toEqual({});
  });

  it("parses each value as its setting's type, so a prefix that looks like a number stays text", () => {
    expect(setConfigValue({}, "search.minScore", "0.25")).toEqual({ search: { minScore: 0.25 } });
    expect(setConfigValue({}, "embedding.queryPrefix", "1 ")).toEqual({ embedding: { queryPrefix: "1 " } });
    expect(setConfigValue({}, "generation.ollamaHost", "gpu-box:11434")).toEqual({ generation: { ollamaHost: "http://gpu-box:11434" } });
  });

  it("refuses bad values when set, naming the key and what it takes", () => {
    for (const [key, value, expected] of [
      ["generation.ollamaHost", "not a host at all", /generation\.ollamaHost was not changed: "not a host at all" is not an http\(s\) URL or host:port/],
      ["generation.openaiBaseUrl", "ftp://example.com", /is not an http:\/\/ or https:\/\/ URL/],
      ["embedding.hubUrl", "huggingface.co", /is not an http:\/\/ or https:\/\/ URL/],
      ["search.limit", "-3", /^search\.limit was not changed: -3 is not a whole number from 1 to 1000\.$/],
      ["search.fusion", "magic", /one of weighted, rrf/],
      ["embedding.pooling", "max", /one of cls, mean/],
      ["nope.key", "1", /Unknown config key "nope\.key"/],
      ["chunking.chunkOverlapTokens", "400", /smaller than/],
    ] as const) {
      expect(() => setConfigValue({}, key, value), `${key}=${value}`).toThrow(expected);
    }
  });

  it("lets set and unset repair a file with a bad value, keeping the other settings", () => {
    const file = path.join(temp(), "config.json");
    fs.writeFileSync(file, JSON.stringify({ search: { limit: "ten", fusion: "rrf" }, bogus: { key: 1 } }));
    expect(() => loadTestConfig(file)).toThrow(expect.objectContaining({ message: expect.stringMatching(/unknown key "bogus\.key"/), nextSteps: [{ action: "unset-setting", key: "bogus.key" }, { action: "list-settings" }] }));
    const loaded = loadSettings({ configPath: file, env: {} });
    expect(loaded.settings.find((row) => row.key === "search.limit")?.problem).toMatch(/bad value for search\.limit: "ten" is not a whole number/);
    const repaired = unsetConfigValue(setConfigValue(readConfigFile(file), "search.limit", "5"), "bogus.key");
    expect(repaired).toEqual({ search: { limit: 5, fusion: "rrf" } });
  });

  it("explains a file that is not JSON", () => {
    const file = path.join(temp(), "config.json");
    fs.writeFileSync(file, "{ not json");
    expect(() => loadTestConfig(file)).toThrow(/not valid JSON/);
  });

  it("reads a full file from an older version as if only its non-default values were set, and writes it back sparse", () => {
    const file = path.join(temp(), "config.json");
    fs.writeFileSync(file, JSON.stringify(LEGACY_FULL_FILE));
    expect(isLegacyFullFile(LEGACY_FULL_FILE)).toBe(true);
    const sources = Object.fromEntries(loadSettings({ configPath: file, env: {} }).settings.map((row) => [row.key, row.source]));
    expect(sources["search.limit"]).toBe("config");
    expect(sources["search.minScore"]).toBe("default");
    expect(setConfigValue(readConfigFile(file), "generation.mode", "strict")).toEqual({ search: { limit: 5 }, generation: { mode: "strict" } });
    // A sparse file that happens to hold a default keeps it: the user set it.
    expect(isLegacyFullFile({ search: { limit: 10 } })).toBe(false);
  });
});
