import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { closedServerUrl } from "./helpers/hub-server.js";
import { json, makeTempDir } from "./helpers/cli.js";
import { runCliInProcess } from "./helpers/cli-in-process.js";
import { startOllamaServer } from "./helpers/llm-servers/ollama-server.js";
import type { ScriptedServer } from "./helpers/llm-servers/scripted-server.js";

interface Row {
  provider: string;
  model: string;
  selected: boolean;
  ready: boolean;
  detail: string;
  keySource?: string | null;
  installedModels?: string[];
}

describe("chunkpad providers", () => {
  let ollama: ScriptedServer;
  beforeAll(async () => {
    ollama = await startOllamaServer();
  });
  afterAll(async () => {
    await ollama.close();
  });

  it("lists Ollama's installed models and marks the provider that answers now", async () => {
    const home = makeTempDir("providers");
    const env = { OLLAMA_HOST: ollama.url, CHUNKPAD_KEYCHAIN: "off", ANTHROPIC_API_KEY: "sk-ant-test-secret-123" };
    expect((await runCliInProcess(["config", "set", "generation.provider", "ollama"], { home, env })).code).toBe(0);
    const result = await runCliInProcess(["providers", "--json"], { home, env });
    expect(result.code, result.stderr).toBe(0);
    const rows = json<Row[]>(result);
    const byName = Object.fromEntries(rows.map((row) => [row.provider, row]));
    expect(byName.ollama).toMatchObject({ selected: true, ready: true, model: "llama3.2" });
    expect(byName.ollama?.installedModels).toContain("llama3.2:latest");
    expect(byName.anthropic).toMatchObject({ ready: true, keySource: "environment", selected: false });
    expect(byName.openai?.ready).toBe(false);
    expect(byName.local).toMatchObject({ ready: false });
    expect(result.stdout + result.stderr).not.toContain("sk-ant-test-secret-123");

    const text = await runCliInProcess(["providers"], { home, env });
    expect(text.stdout).toMatch(/→ ollama\s+llama3\.2 {2}\(ready\)/);

    // Unsetting the provider goes back to the automatic choice: the first with a key.
    const unset = await runCliInProcess(["config", "unset", "generation.provider"], { home, env });
    expect(unset.code, unset.stderr).toBe(0);
    expect(unset.stdout).toBe("generation.provider is not set\n");
    expect((await runCliInProcess(["config", "get", "generation.provider"], { home, env })).stdout).toBe("(not set)\n");
    const automatic = json<Row[]>(await runCliInProcess(["providers", "--json"], { home, env }));
    expect(automatic.find((row) => row.selected)?.provider).toBe("anthropic");
  });

  it("says when Ollama is not running and what to do about a missing key", async () => {
    const home = makeTempDir("providers-down");
    const env = { OLLAMA_HOST: await closedServerUrl(), CHUNKPAD_KEYCHAIN: "off" };
    const rows = json<Row[]>(await runCliInProcess(["providers", "--json"], { home, env }));
    const byName = Object.fromEntries(rows.map((row) => [row.provider, row]));
    expect(byName.ollama?.ready).toBe(false);
    expect(byName.ollama?.detail).toMatch(/not reachable/);
    expect(byName.anthropic?.detail).toBe("no key set");
    // No key and no provider configured: the local model is the one a question would use.
    expect(byName.local?.selected).toBe(true);
  });
});
