import { describe, expect, it } from "vitest";
import { isChunkpadError } from "../../core/errors.js";
import { resolveSettings, settingsToConfig, SETTINGS, type ResolvedSetting, type SettingsInput } from "./settings.js";

function resolve(input: Omit<Partial<SettingsInput>, "file"> & { file?: Record<string, unknown> }): Map<string, ResolvedSetting> {
  const rows = resolveSettings({ env: {}, ...input, file: new Map(Object.entries(input.file ?? {})) });
  return new Map(rows.map((row) => [row.key, row]));
}

const pick = (rows: Map<string, ResolvedSetting>, key: string) => {
  const row = rows.get(key);
  return { value: row?.value, source: row?.source };
};

describe("one resolver for every setting: flag > environment > config file > default", () => {
  it("orders the four sources the same way for a host (OLLAMA_HOST), a URL, a number and a choice", () => {
    const everything = {
      file: { "generation.ollamaHost": "http://config-host:11434", "generation.openaiBaseUrl": "http://config/v1", "search.limit": 7, "generation.provider": "anthropic" },
      env: { OLLAMA_HOST: "env-host:9999", OPENAI_BASE_URL: "http://env/v1" },
      flags: { "generation.ollamaHost": "http://flag-host:1", "search.limit": 3, "generation.provider": "ollama" },
    };
    const all = resolve(everything);
    expect(pick(all, "generation.ollamaHost")).toEqual({ value: "http://flag-host:1", source: "flag" });
    expect(pick(all, "search.limit")).toEqual({ value: 3, source: "flag" });
    expect(pick(all, "generation.provider")).toEqual({ value: "ollama", source: "flag" });

    const noFlags = resolve({ ...everything, flags: {} });
    // OLLAMA_HOST in Ollama's own form (host:port) means an http URL.
    expect(pick(noFlags, "generation.ollamaHost")).toEqual({ value: "http://env-host:9999", source: "env" });
    expect(noFlags.get("generation.ollamaHost")?.variable).toBe("OLLAMA_HOST");
    expect(pick(noFlags, "generation.openaiBaseUrl")).toEqual({ value: "http://env/v1", source: "env" });
    expect(pick(noFlags, "search.limit")).toEqual({ value: 7, source: "config" });

    const fileOnly = resolve({ file: everything.file });
    expect(pick(fileOnly, "generation.ollamaHost")).toEqual({ value: "http://config-host:11434", source: "config" });
    expect(pick(fileOnly, "generation.openaiBaseUrl")).toEqual({ value: "http://config/v1", source: "config" });

    const nothing = resolve({});
    expect(pick(nothing, "generation.ollamaHost")).toEqual({ value: "http://127.0.0.1:11434", source: "default" });
    expect(pick(nothing, "search.limit")).toEqual({ value: 10, source: "default" });
    expect(pick(nothing, "generation.provider")).toEqual({ value: undefined, source: "default" });
    expect(pick(nothing, "embedding.hubUrl")).toEqual({ value: "https://huggingface.co", source: "default" });
  });

  it("treats an empty environment variable as not set", () => {
    expect(pick(resolve({ env: { OLLAMA_HOST: "  " }, file: { "generation.ollamaHost": "http://box:11434" } }), "generation.ollamaHost").source).toBe("config");
  });

  it("gives every setting a value or a reason it has none, and the defaults make a valid config", () => {
    const rows = resolveSettings({ file: new Map(), env: {} });
    expect(rows.map((row) => row.key)).toEqual(SETTINGS.map((setting) => setting.key));
    const config = settingsToConfig(rows);
    expect(config.search).toEqual({ fusion: "weighted", minScore: 0.1, limit: 10, vectorWeight: 0.7, keywordWeight: 0.3, perDocument: 1, rerank: "off", rerankModel: "bge-reranker-base", rerankDtype: "q8", rerankCandidates: 20, rerankBudgetMs: 2000, rerankWeight: 0.7 });
    expect(config.generation.models).toMatchObject({ ollama: "llama3.2" });
    expect(config.embedding.pooling).toBeUndefined();
  });

  it("reports a bad environment variable or file value as one line naming it and the fix, never a stack trace", () => {
    const badEnvironment = resolve({ env: { OLLAMA_HOST: "ftp://box" } }).get("generation.ollamaHost");
    expect(badEnvironment?.problem).toMatch(/^The environment variable OLLAMA_HOST \(for generation\.ollamaHost\) is "ftp:\/\/box", which is not an http\(s\) URL or host:port\. Fix it or unset it\.$/);
    const badFile = resolve({ file: { "search.limit": "ten" }, configPath: "/x/config.json" }).get("search.limit");
    expect(badFile?.problem).toBe(
      'The config file /x/config.json has a bad value for search.limit: "ten" is not a whole number from 1 to 1000.',
    );
    try {
      settingsToConfig(resolveSettings({ file: new Map([["embedding.hubUrl", "not a url"]]), env: {} }));
      throw new Error("accepted a bad URL");
    } catch (error) {
      expect(isChunkpadError(error) && error.code).toBe("CONFIG_INVALID");
      expect((error as Error).message).toMatch(/embedding\.hubUrl/);
      // The fix travels as a step each face words (the CLI a command, the web app a place in Settings).
      expect(isChunkpadError(error) && error.nextSteps).toEqual([{ action: "change-setting", key: "embedding.hubUrl", orUnset: true }]);
      expect((error as Error).message).not.toContain("\n");
    }
  });

  it("refuses an overlap as large as the chunk size, naming the key to change", () => {
    expect(() => settingsToConfig(resolveSettings({ file: new Map([["chunking.chunkOverlapTokens", 400]]), env: {} }))).toThrow(
      expect.objectContaining({ message: expect.stringMatching(/chunkOverlapTokens \(400\) must be smaller/), nextSteps: [{ action: "change-setting", key: "chunking.chunkOverlapTokens", orUnset: true }] }),
    );
  });
});
