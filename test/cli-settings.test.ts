import fs from "node:fs";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { json, makeTempDir, writeFile, writeSampleDocuments } from "./helpers/cli.js";
import { runCliInProcess } from "./helpers/cli-in-process.js";
import { closedServerUrl, TINY_BERT_DIR } from "./helpers/hub-server.js";
import { startOllamaServer } from "./helpers/llm-servers/ollama-server.js";
import { startOpenAiServer } from "./helpers/llm-servers/openai-server.js";
import type { ScriptedServer } from "./helpers/llm-servers/scripted-server.js";

interface SettingRow {
  key: string;
  value: unknown;
  source: "flag" | "env" | "config" | "default";
  variable?: string;
  default: unknown;
  problem?: string;
}

const NO_KEYCHAIN = { CHUNKPAD_KEYCHAIN: "off" };
const configFile = (home: string) => path.join(home, "config", "config.json");

describe("chunkpad config: one key written, every key listed with its source", () => {
  it("`config set` writes only that key; `config list` shows every key with its effective value and where it comes from", async () => {
    const home = makeTempDir("settings");
    const set = await runCliInProcess(["config", "set", "search.limit", "5"], { home });
    expect(set.code, set.stderr).toBe(0);
    expect(set.stdout).toBe("search.limit = 5\n");
    expect(JSON.parse(fs.readFileSync(configFile(home), "utf8"))).toEqual({ search: { limit: 5 } });

    const env = { OLLAMA_HOST: "127.0.0.1:5555" };
    const rows = json<SettingRow[]>(await runCliInProcess(["config", "list", "--json"], { home, env }));
    const byKey = Object.fromEntries(rows.map((row) => [row.key, row]));
    expect(rows.length).toBeGreaterThanOrEqual(30);
    expect(byKey["search.limit"]).toMatchObject({ value: 5, source: "config", default: 10 });
    expect(byKey["search.minScore"]).toMatchObject({ value: 0.1, source: "default" });
    expect(byKey["generation.ollamaHost"]).toMatchObject({ value: "http://127.0.0.1:5555", source: "env", variable: "OLLAMA_HOST" });
    expect(byKey["generation.provider"]).toMatchObject({ value: null, source: "default" });
    expect(byKey["embedding.pooling"]).toMatchObject({ value: null, source: "default" });

    const text = await runCliInProcess(["config", "list"], { home, env });
    expect(text.stdout).toMatch(/^generation\.ollamaHost += "http:\/\/127\.0\.0\.1:5555" {2}\(env OLLAMA_HOST\)$/m);
    expect(text.stdout).toMatch(/^search\.limit += 5 {2}\(config\)$/m);
    expect(text.stdout).toMatch(/^generation\.provider +=? \(not set\) {2}\(default\)$/m);
    expect(text.stdout.trim().split("\n")).toHaveLength(rows.length);

    // The file still decides nothing an environment variable overrides, and says so.
    const shadowed = await runCliInProcess(["config", "set", "generation.ollamaHost", "http://gpu-box:11434"], { home, env });
    expect(shadowed.code, shadowed.stderr).toBe(0);
    expect(shadowed.stderr).toMatch(/OLLAMA_HOST is set and overrides the config file/);

    const unset = await runCliInProcess(["config", "unset", "search.limit"], { home });
    expect(unset.stdout).toBe("search.limit = 10\n");
    expect(JSON.parse(fs.readFileSync(configFile(home), "utf8"))).toEqual({ generation: { ollamaHost: "http://gpu-box:11434" } });
  });

  it("refuses a host that is not a URL when set, and leaves the file alone", async () => {
    const home = makeTempDir("settings-bad-host");
    const refused = await runCliInProcess(["config", "set", "generation.ollamaHost", "not a host"], { home });
    expect(refused.code).toBe(1);
    expect(refused.stderr).toBe('chunkpad: generation.ollamaHost was not changed: "not a host" is not an http(s) URL or host:port.\n');
    const url = await runCliInProcess(["config", "set", "generation.openaiBaseUrl", "localhost:8080/v1"], { home });
    expect(url.code).toBe(1);
    expect(url.stderr).toMatch(/is not an http:\/\/ or https:\/\/ URL/);
    expect(fs.existsSync(configFile(home))).toBe(false);
  });

  it("reports a hand-broken config file in one line naming the key and the fix, never a stack trace", async () => {
    const home = makeTempDir("settings-broken");
    writeFile(home, "config/config.json", JSON.stringify({ generation: { ollamaHost: "ftp://nowhere" }, search: { limit: 5 } }));
    const providers = await runCliInProcess(["providers"], { home, env: NO_KEYCHAIN });
    expect(providers.code).toBe(1);
    expect(providers.stderr).toBe(
      `chunkpad: The config file ${configFile(home)} has a bad value for generation.ollamaHost: "ftp://nowhere" is not an http(s) URL or host:port. ` +
        'Fix it with "chunkpad config set generation.ollamaHost <value>" or "chunkpad config unset generation.ollamaHost".\n',
    );
    const list = await runCliInProcess(["config", "list"], { home });
    expect(list.code).toBe(1);
    expect(list.stdout).toMatch(/^generation\.ollamaHost +\s= \(invalid\) {2}config: The config file/m);
    expect(list.stdout).toMatch(/^search\.limit += 5 {2}\(config\)$/m);

    writeFile(home, "config/config.json", JSON.stringify({ search: { limitt: 5 } }));
    const search = await runCliInProcess(["search", "river"], { home });
    expect(search.code).toBe(1);
    expect(search.stderr).toMatch(/^chunkpad: The config file .* has an unknown key "search\.limitt"\. Remove it with "chunkpad config unset search\.limitt"/);
    expect(search.stderr.trim().split("\n")).toHaveLength(1);
    expect((await runCliInProcess(["config", "unset", "search.limitt"], { home })).code).toBe(0);
    expect((await runCliInProcess(["search", "river"], { home })).code).toBe(0);
  });

  it("reports a bad environment variable cleanly", async () => {
    const home = makeTempDir("settings-bad-env");
    const result = await runCliInProcess(["providers"], { home, env: { ...NO_KEYCHAIN, OLLAMA_HOST: "ftp://nowhere" } });
    expect(result.code).toBe(1);
    expect(result.stderr).toBe('chunkpad: The environment variable OLLAMA_HOST (for generation.ollamaHost) is "ftp://nowhere", which is not an http(s) URL or host:port. Fix it or unset it.\n');
  });
});

describe("providers and ask agree on every setting", () => {
  let ollama: ScriptedServer;
  let openai: ScriptedServer;
  const home = makeTempDir("settings-agree");
  const folder = makeTempDir("settings-docs");
  beforeAll(async () => {
    [ollama, openai] = await Promise.all([startOllamaServer(), startOpenAiServer()]);
    writeSampleDocuments(folder);
    expect((await runCliInProcess(["add", folder], { home })).code).toBe(0);
  });
  afterAll(async () => {
    await Promise.all([ollama.close(), openai.close()]);
  });

  it("OLLAMA_HOST beats generation.ollamaHost in `providers` and in `ask` alike", async () => {
    const env = { ...NO_KEYCHAIN, OLLAMA_HOST: ollama.url };
    expect((await runCliInProcess(["config", "set", "generation.ollamaHost", await closedServerUrl()], { home })).code).toBe(0);
    expect((await runCliInProcess(["config", "set", "generation.provider", "ollama"], { home })).code).toBe(0);
    const rows = json<Array<{ provider: string; ready: boolean; baseUrl?: string }>>(await runCliInProcess(["providers", "--json"], { home, env }));
    expect(rows.find((row) => row.provider === "ollama")).toMatchObject({ ready: true, baseUrl: ollama.url });

    ollama.reset();
    const asked = await runCliInProcess(["ask", "Where does the heron wait?", "--mode", "keyword"], { home, env });
    expect(asked.code, asked.stderr).toBe(0);
    expect(asked.stdout).toContain("Hello from the server.");
    expect(ollama.requests.map((request) => request.path)).toContain("/api/chat");
  });

  it("OPENAI_API_KEY beats a stored key, and `keys list` and `providers` say so", async () => {
    const stored = await runCliInProcess(["keys", "set", "openai"], { home, env: NO_KEYCHAIN, input: "sk-stored-key-0000\n" });
    expect(stored.code, stored.stderr).toBe(0);
    const env = { ...NO_KEYCHAIN, OPENAI_API_KEY: "sk-env-key-1111", OPENAI_BASE_URL: `${openai.url}/v1` };

    const keys = await runCliInProcess(["keys", "list"], { home, env });
    expect(keys.stdout).toMatch(/^openai +environment \(environment variable OPENAI_API_KEY; overrides the key stored in .*secrets\.json\)$/m);
    const rows = json<Array<{ provider: string; detail: string; keySource?: string }>>(await runCliInProcess(["providers", "--json"], { home, env }));
    expect(rows.find((row) => row.provider === "openai")).toMatchObject({ keySource: "environment", detail: expect.stringMatching(/OPENAI_API_KEY \(overrides the key in .*secrets\.json\)/) });

    openai.reset();
    const asked = await runCliInProcess(["ask", "Where does the heron wait?", "--mode", "keyword", "--provider", "openai"], { home, env });
    expect(asked.code, asked.stderr).toBe(0);
    expect(openai.requests[0]?.headers.authorization).toBe("Bearer sk-env-key-1111");
    expect(`${asked.stdout}${asked.stderr}${keys.stdout}`).not.toContain("sk-env-key-1111");
  });
});

describe("pooling and prefixes of a model outside the catalog", () => {
  it("are part of what made the vectors: changing one is never 'nothing to embed', and --reembed applies it", async () => {
    const home = makeTempDir("settings-pooling");
    const folder = makeTempDir("settings-pooling-docs");
    writeSampleDocuments(folder);
    expect((await runCliInProcess(["add", folder], { home })).code).toBe(0);
    const first = await runCliInProcess(["embed", "--model", TINY_BERT_DIR], { home });
    expect(first.code, first.stderr).toBe(0);
    expect(first.stdout).toMatch(/Embedded 3 chunks/);

    const model = json<{ assumption: string | null }>(await runCliInProcess(["model", "status", "--json"], { home }));
    expect(model.assumption).toMatch(/set embedding\.pooling \(cls or mean\), embedding\.queryPrefix/);
    expect((await runCliInProcess(["config", "set", "embedding.pooling", "cls"], { home })).code).toBe(0);
    expect(json<{ assumption: string | null }>(await runCliInProcess(["model", "status", "--json"], { home })).assumption).toBeNull();

    const changed = await runCliInProcess(["embed"], { home });
    expect(changed.code).toBe(1);
    expect(changed.stderr).toMatch(/other settings: pooling.*chunkpad embed --reembed/);
    const search = await runCliInProcess(["search", "heron", "--mode", "vector"], { home });
    expect(search.code).toBe(1);
    expect(search.stderr).toMatch(/--reembed/);

    const again = await runCliInProcess(["embed", "--reembed"], { home });
    expect(again.code, again.stderr).toBe(0);
    expect(again.stdout).toMatch(/Embedded 3 chunks/);
    expect((await runCliInProcess(["search", "heron", "--mode", "vector"], { home })).code).toBe(0);
  });
});
