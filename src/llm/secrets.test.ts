import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { beforeEach, describe, expect, it } from "vitest";
import type { Keyring } from "./keyring.js";
import { createSecretStore } from "./secrets.js";

const ANTHROPIC_KEY = "sk-ant-api03-secret-value-1234";
const OPENAI_KEY = "sk-proj-another-secret-5678";

function fakeKeyring(): Keyring & { entries: Map<string, string> } {
  const entries = new Map<string, string>();
  return {
    entries,
    get: async (service, account) => entries.get(`${service}/${account}`) ?? null,
    set: async (service, account, secret) => void entries.set(`${service}/${account}`, secret),
    delete: async (service, account) => entries.delete(`${service}/${account}`),
  };
}

/** What @napi-rs/keyring does on a headless Linux with no Secret Service. */
const brokenKeyring: Keyring = {
  get: async () => {
    throw new Error("Couldn't access platform storage: AccessDenied");
  },
  set: async () => {
    throw new Error("Couldn't access platform storage: AccessDenied");
  },
  delete: async () => {
    throw new Error("Couldn't access platform storage: AccessDenied");
  },
};

let configDir: string;
beforeEach(() => {
  configDir = path.join(fs.mkdtempSync(path.join(os.tmpdir(), "chunkpad-secrets-")), "config");
});

const secretsFile = () => path.join(configDir, "secrets.json");

describe("secret store with a working keychain", () => {
  it("keeps keys in the keychain under service chunkpad, one account per provider, and never in a file", async () => {
    const keyring = fakeKeyring();
    const store = createSecretStore({ configDir, env: {}, keyring });
    expect(await store.set("anthropic", `  ${ANTHROPIC_KEY}\n`)).toMatchObject({ source: "keychain" });
    await store.set("openai", OPENAI_KEY);
    expect(keyring.entries.get("chunkpad/anthropic")).toBe(ANTHROPIC_KEY);
    expect(await store.get("anthropic")).toBe(ANTHROPIC_KEY);
    expect(await store.get("openai")).toBe(OPENAI_KEY);
    expect(fs.existsSync(secretsFile())).toBe(false);
  });

  it("prefers the environment variable to a stored key (the convention), and says which stored key it overrides", async () => {
    const keyring = fakeKeyring();
    const env: Record<string, string | undefined> = { ANTHROPIC_API_KEY: "sk-ant-from-env-0000" };
    const store = createSecretStore({ configDir, env, keyring });
    expect(await store.describe("anthropic")).toEqual({ provider: "anthropic", source: "environment", location: "environment variable ANTHROPIC_API_KEY" });
    await store.set("anthropic", ANTHROPIC_KEY);
    expect(await store.get("anthropic")).toBe("sk-ant-from-env-0000");
    const description = await store.describe("anthropic");
    expect(description).toMatchObject({ source: "environment", overrides: "OS keychain" });
    expect(JSON.stringify(description)).not.toContain(ANTHROPIC_KEY);
    delete env.ANTHROPIC_API_KEY;
    expect(await store.get("anthropic")).toBe(ANTHROPIC_KEY);
    expect(await store.describe("anthropic")).toMatchObject({ source: "keychain" });
  });

  it("prefers OPENAI_API_KEY to a key in the key file too", async () => {
    const store = createSecretStore({ configDir, env: { OPENAI_API_KEY: "sk-env-key-0000" }, keyring: null });
    await store.set("openai", OPENAI_KEY);
    expect(await store.get("openai")).toBe("sk-env-key-0000");
    expect(await store.describe("openai")).toMatchObject({ source: "environment", overrides: secretsFile() });
  });

  it("deletes from the keychain, and reports an environment variable that still provides a key", async () => {
    const store = createSecretStore({ configDir, env: { OPENAI_API_KEY: "sk-env-key-0000" }, keyring: fakeKeyring() });
    await store.set("openai", OPENAI_KEY);
    expect(await store.delete("openai")).toMatchObject({ source: "environment" });
    expect(await store.get("openai")).toBe("sk-env-key-0000");
  });

  it("rejects an empty key or one with spaces inside", async () => {
    const store = createSecretStore({ configDir, env: {}, keyring: fakeKeyring() });
    await expect(store.set("openai", "   ")).rejects.toMatchObject({ code: "INVALID_ARGUMENT" });
    await expect(store.set("openai", "sk-one two")).rejects.toMatchObject({ code: "INVALID_ARGUMENT" });
  });
});

describe("secret store without a keychain (headless Linux)", () => {
  it("falls back to a file only the user can read, in a directory only the user can open", async () => {
    const store = createSecretStore({ configDir, env: {}, keyring: brokenKeyring });
    const stored = await store.set("anthropic", ANTHROPIC_KEY);
    expect(stored).toMatchObject({ source: "file", location: secretsFile() });
    expect(stored.keychainProblem).toContain("AccessDenied");
    expect(fs.statSync(secretsFile()).mode & 0o777).toBe(0o600);
    expect(fs.statSync(configDir).mode & 0o777).toBe(0o700);
    expect(await store.get("anthropic")).toBe(ANTHROPIC_KEY);
    expect(await store.describe("anthropic")).toMatchObject({ source: "file" });
    expect(await store.get("openai")).toBeUndefined();
    expect(await store.describe("openai")).toMatchObject({ source: null, location: "not set" });
  });

  it("uses the provider's environment variable before the file", async () => {
    const store = createSecretStore({ configDir, env: {}, keyring: brokenKeyring });
    await store.set("openai", OPENAI_KEY);
    const withEnv = createSecretStore({ configDir, env: { OPENAI_API_KEY: "sk-env-key-0000" }, keyring: brokenKeyring });
    expect(await withEnv.get("openai")).toBe("sk-env-key-0000");
    expect(await withEnv.describe("openai")).toMatchObject({ source: "environment" });
  });

  it("keeps both keys in the file and deletes one without touching the other", async () => {
    const store = createSecretStore({ configDir, env: {}, keyring: null });
    await store.set("anthropic", ANTHROPIC_KEY);
    await store.set("openai", OPENAI_KEY);
    expect(await store.delete("anthropic")).toMatchObject({ source: null });
    expect(await store.get("anthropic")).toBeUndefined();
    expect(await store.get("openai")).toBe(OPENAI_KEY);
    await store.delete("openai");
    expect(fs.existsSync(secretsFile())).toBe(false);
  });

  it("tightens a key file whose permissions were loosened", async () => {
    const store = createSecretStore({ configDir, env: {}, keyring: null });
    await store.set("openai", OPENAI_KEY);
    fs.chmodSync(secretsFile(), 0o644);
    expect(await store.get("openai")).toBe(OPENAI_KEY);
    expect(fs.statSync(secretsFile()).mode & 0o777).toBe(0o600);
  });

  it.skipIf(process.platform === "win32")("never changes the permissions of the file a linked key file points to", async () => {
    fs.mkdirSync(configDir, { recursive: true });
    const shared = path.join(path.dirname(configDir), "team-keys.json");
    fs.writeFileSync(shared, JSON.stringify({ openai: OPENAI_KEY }));
    fs.chmodSync(shared, 0o644);
    fs.symlinkSync(shared, secretsFile());
    const store = createSecretStore({ configDir, env: {}, keyring: null });
    expect(await store.get("openai")).toBe(OPENAI_KEY);
    expect(fs.statSync(shared).mode & 0o777).toBe(0o644);
  });

  it("says how to recover from a damaged key file", async () => {
    fs.mkdirSync(configDir, { recursive: true });
    fs.writeFileSync(secretsFile(), "{ not json", { mode: 0o600 });
    const store = createSecretStore({ configDir, env: {}, keyring: null });
    await expect(store.get("openai")).rejects.toMatchObject({ code: "CONFIG_INVALID", message: expect.stringContaining("set the keys again"), nextSteps: [{ action: "set-up-llm" }] });
  });

  it("moves a key out of the file once the keychain works again", async () => {
    await createSecretStore({ configDir, env: {}, keyring: brokenKeyring }).set("anthropic", "sk-ant-old-key-0000");
    const keyring = fakeKeyring();
    const store = createSecretStore({ configDir, env: {}, keyring });
    await store.set("anthropic", ANTHROPIC_KEY);
    expect(fs.existsSync(secretsFile())).toBe(false);
    expect(await store.get("anthropic")).toBe(ANTHROPIC_KEY);
  });
});
