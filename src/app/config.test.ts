import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { isChunkpadError } from "../core/errors.js";
import { defaultConfig, flattenConfig, getConfigValue, loadConfig, readConfigFile, saveConfig, setConfigValue, unsetConfigValue } from "./config.js";

const temp = () => fs.mkdtempSync(path.join(os.tmpdir(), "chunkpad-config-"));

describe("config file", () => {
  it("is the defaults when missing, and round-trips through the file", () => {
    const file = path.join(temp(), "nested", "config.json");
    expect(loadConfig(file)).toEqual(defaultConfig());
    const changed = setConfigValue(defaultConfig(), "chunking.chunkSizeTokens", "300");
    saveConfig(file, changed);
    expect(loadConfig(file).chunking.chunkSizeTokens).toBe(300);
  });

  it("parses typed values and rejects bad ones with the key in the message", () => {
    let config = setConfigValue(defaultConfig(), "search.minScore", "0.25");
    expect(getConfigValue(config, "search.minScore")).toBe(0.25);
    config = setConfigValue(config, "generation.provider", "ollama");
    expect(config.generation.provider).toBe("ollama");
    for (const [key, value] of [["search.minScore", "high"], ["search.fusion", "magic"], ["nope.key", "1"], ["search.unknownKey", "1"]] as const) {
      try {
        setConfigValue(config, key, value);
        throw new Error(`accepted ${key}=${value}`);
      } catch (error) {
        expect(isChunkpadError(error) && /INVALID|CONFIG/.test(error.code), String(error)).toBe(true);
      }
    }
  });

  it("refuses an overlap as large as the chunk size", () => {
    expect(() => setConfigValue(defaultConfig(), "chunking.chunkOverlapTokens", "400")).toThrow(/smaller than/);
  });

  it("explains a file that is not JSON", () => {
    const file = path.join(temp(), "config.json");
    fs.writeFileSync(file, "{ not json");
    expect(() => loadConfig(file)).toThrow(/not valid JSON/);
  });

  it("lets set and unset repair a file with a bad value, keeping the other settings", () => {
    const file = path.join(temp(), "config.json");
    fs.writeFileSync(file, JSON.stringify({ search: { limit: "ten", fusion: "rrf" } }));
    expect(() => loadConfig(file)).toThrow(/search\.limit.*chunkpad config unset <key>/);
    const repaired = setConfigValue(readConfigFile(file), "search.limit", "5");
    expect(repaired.search).toMatchObject({ limit: 5, fusion: "rrf" });
    expect(unsetConfigValue(readConfigFile(file), "search.limit").search).toMatchObject({ limit: 10, fusion: "rrf" });
    expect(readConfigFile(path.join(temp(), "missing.json"))).toEqual({});
  });

  it("says a rejected value was not changed, naming the key", () => {
    expect(() => setConfigValue(defaultConfig(), "search.limit", "-3")).toThrow(/^search\.limit was not changed: search\.limit: /);
  });

  it("tells a known setting that is not set from an unknown key", () => {
    const chosen = setConfigValue(setConfigValue(defaultConfig(), "generation.provider", "ollama"), "generation.models.ollama", "qwen2.5:7b");
    const reset = unsetConfigValue(unsetConfigValue(chosen, "generation.provider"), "generation.models.ollama");
    expect(getConfigValue(reset, "generation.provider")).toBeUndefined();
    expect(getConfigValue(reset, "generation.models.ollama")).toBeUndefined();
    expect(getConfigValue(reset, "generation.models")).toEqual({});
    expect(() => getConfigValue(reset, "generation.bogus")).toThrow(/Unknown config key "generation\.bogus"/);
    expect(() => getConfigValue(reset, "search.limit.more")).toThrow(/Unknown config key/);
  });

  it("unset returns a key to its default, and list shows every leaf", () => {
    const changed = setConfigValue(defaultConfig(), "search.limit", "25");
    expect(unsetConfigValue(changed, "search.limit").search.limit).toBe(10);
    const keys = flattenConfig(defaultConfig()).map((row) => row.key);
    expect(keys).toContain("embedding.model");
    expect(keys).toContain("chunking.chunkOverlapTokens");
  });
});
