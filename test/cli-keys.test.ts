import fs from "node:fs";
import path from "node:path";
import { PassThrough } from "node:stream";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { json, makeTempDir, writeFile, type CliResult } from "./helpers/cli.js";
import { runCliInProcess } from "./helpers/cli-in-process.js";
import { startAnthropicServer } from "./helpers/llm-servers/anthropic-server.js";
import type { ScriptedServer } from "./helpers/llm-servers/scripted-server.js";
import { main } from "../src/cli/main.js";

/**
 * `chunkpad keys` through the real CLI on this headless machine: no keychain works, so keys go
 * to a user-only file. CHUNKPAD_KEYCHAIN=off keeps a developer's real keychain out of the
 * tests that write; the read-only test uses the real keychain lookup.
 */

const KEY = "sk-ant-api03-TOPSECRET-0123456789abcdef";
const NO_KEYCHAIN = { CHUNKPAD_KEYCHAIN: "off" };

let anthropic: ScriptedServer;
beforeAll(async () => {
  anthropic = await startAnthropicServer();
});
afterAll(() => anthropic.close());

/** Every file under the folder except the key file, as text. */
function everythingButTheKeyFile(root: string): string {
  let text = "";
  for (const entry of fs.readdirSync(root, { recursive: true, withFileTypes: true })) {
    if (entry.isFile() && entry.name !== "secrets.json") text += fs.readFileSync(path.join(entry.parentPath, entry.name), "latin1");
  }
  return text;
}

const outputOf = (...results: CliResult[]) => results.map((result) => result.stdout + result.stderr).join("\n");

describe("chunkpad keys", () => {
  it("lists no keys on a fresh machine, looking in the real keychain first", async () => {
    const home = makeTempDir("keys-fresh");
    const listed = await runCliInProcess(["keys", "list"], { home });
    expect(listed.code, listed.stderr).toBe(0);
    expect(listed.stdout).toBe("anthropic  no key\nopenai     no key\n");
  });

  it("stores a key piped on stdin in a user-only file, says where, and never shows it", async () => {
    const home = makeTempDir("keys-set");
    const set = await runCliInProcess(["keys", "set", "anthropic"], { home, env: NO_KEYCHAIN, input: `${KEY}\n` });
    expect(set.code, set.stderr).toBe(0);
    const keyFile = path.join(home, "config", "secrets.json");
    expect(set.stdout).toBe(`Stored the anthropic key in the key file ${keyFile} (readable only by you).\n`);
    expect(fs.statSync(keyFile).mode & 0o777).toBe(0o600);

    const listed = await runCliInProcess(["keys", "list"], { home, env: NO_KEYCHAIN });
    expect(listed.stdout).toBe(`anthropic  file (${keyFile})\nopenai     no key\n`);
    const asJson = await runCliInProcess(["keys", "list", "--json"], { home, env: NO_KEYCHAIN });
    expect(json(asJson)).toEqual([
      { provider: "anthropic", source: "file", location: keyFile },
      { provider: "openai", source: null, location: "not set" },
    ]);

    // The stored key is what ask sends; it never reaches the output, the config or the databases.
    writeFile(home, "docs/warranty.md", "# Warranty\n\nThe warranty lasts two years.\n");
    await runCliInProcess(["add", path.join(home, "docs")], { home });
    await runCliInProcess(["config", "set", "generation.mode", "strict"], { home });
    anthropic.reset();
    anthropic.script({ reply: "text", deltas: ["Two years [C1]."] }, { reply: "error", error: "auth" });
    const asked = await runCliInProcess(["ask", "--json", "How long does the warranty last?"], { home, env: { ...NO_KEYCHAIN, ANTHROPIC_BASE_URL: anthropic.url } });
    expect(asked.code, asked.stderr).toBe(0);
    const headers = anthropic.requests[0]?.headers ?? {};
    expect(headers["x-api-key"] ?? headers.authorization).toMatch(new RegExp(`^(Bearer )?${KEY}$`));
    const rejected = await runCliInProcess(["ask", "How long does the warranty last?"], { home, env: { ...NO_KEYCHAIN, ANTHROPIC_BASE_URL: anthropic.url } });
    expect(rejected.code).toBe(1);

    expect(outputOf(set, listed, asJson, asked, rejected)).not.toContain(KEY);
    expect(outputOf(set, listed, asJson, asked, rejected)).not.toContain("TOPSECRET");
    expect(fs.readFileSync(path.join(home, "config", "config.json"), "utf8")).toContain('"mode": "strict"');
    expect(everythingButTheKeyFile(home)).not.toContain("TOPSECRET");
  });

  it("on a terminal, reads the key at a prompt that does not echo it", async () => {
    const home = makeTempDir("keys-tty");
    const rawModes: boolean[] = [];
    const stdin = Object.assign(new PassThrough(), { isTTY: true, setRawMode: (mode: boolean) => rawModes.push(mode) });
    const stderr = Object.assign(new PassThrough(), { isTTY: true });
    const stdout = new PassThrough();
    let shown = "";
    for (const stream of [stdout, stderr]) stream.on("data", (data: Buffer) => (shown += data.toString()));
    // Typed: the key, a typo erased with backspace, Enter.
    stdin.write("sk-typed-key-123\u007fX\r");
    const code = await main(["keys", "set", "anthropic"], { stdin, stdout, stderr, env: { CHUNKPAD_HOME: home, ...NO_KEYCHAIN } });
    expect(code, shown).toBe(0);
    expect(shown).toContain("anthropic API key (input hidden): ");
    expect(shown).not.toContain("sk-typed");
    expect(rawModes).toEqual([true, false]);
    const stored = JSON.parse(fs.readFileSync(path.join(home, "config", "secrets.json"), "utf8")) as Record<string, string>;
    expect(stored.anthropic).toBe("sk-typed-key-12X");
  });

  it("deletes a stored key, and says when an environment variable still provides one", async () => {
    const home = makeTempDir("keys-delete");
    await runCliInProcess(["keys", "set", "openai"], { home, env: NO_KEYCHAIN, input: "sk-proj-abcdefgh12345678" });
    const deleted = await runCliInProcess(["keys", "delete", "openai"], { home, env: { ...NO_KEYCHAIN, OPENAI_API_KEY: "sk-env-key-12345678" } });
    expect(deleted.code, deleted.stderr).toBe(0);
    expect(deleted.stdout).toBe("Deleted the stored openai key.\n");
    expect(deleted.stderr).toContain("a key is still set in the environment variable OPENAI_API_KEY");
    expect(fs.existsSync(path.join(home, "config", "secrets.json"))).toBe(false);
    const listed = await runCliInProcess(["keys", "list"], { home, env: { ...NO_KEYCHAIN, OPENAI_API_KEY: "sk-env-key-12345678" } });
    expect(listed.stdout).toBe("anthropic  no key\nopenai     environment (environment variable OPENAI_API_KEY)\n");
    expect(listed.stdout).not.toContain("sk-env-key");
  });

  it("never takes a key from the command line, and refuses an empty key or a provider without keys", async () => {
    const home = makeTempDir("keys-refuse");
    const onArgv = await runCliInProcess(["keys", "set", "anthropic", KEY], { home, env: NO_KEYCHAIN });
    expect(onArgv.code).toBe(2);
    expect(outputOf(onArgv)).not.toContain(KEY);
    expect(fs.existsSync(path.join(home, "config", "secrets.json"))).toBe(false);

    const empty = await runCliInProcess(["keys", "set", "anthropic"], { home, env: NO_KEYCHAIN, input: "\n" });
    expect(empty.code).toBe(1);
    expect(empty.stderr).toMatch(/^chunkpad: No key was given\. Pipe it in/);

    const ollama = await runCliInProcess(["keys", "set", "ollama"], { home, env: NO_KEYCHAIN, input: "x" });
    expect(ollama.code).toBe(1);
    expect(ollama.stderr).toContain("Ollama and the local model need no key");
  });
});
