import fs from "node:fs";
import path from "node:path";
import { ChunkpadError, describeError } from "../core/errors.js";
import { writeFileDurablySync } from "../core/durable-write.js";
import { createOsKeyring, type Keyring } from "./keyring.js";

/**
 * API keys. The provider's usual environment variable wins (the convention every SDK follows:
 * a variable set for one run beats what is stored), then the OS keychain, then
 * {configDir}/secrets.json, a file only the user can read (0600, in a 0700 directory), where no
 * keychain works. Keys never go into the config file; describe() says where a key comes from,
 * and which stored key it overrides, without ever returning it.
 */

export type SecretProvider = "anthropic" | "openai";
export type KeySource = "keychain" | "environment" | "file";

export const SECRET_PROVIDERS: readonly SecretProvider[] = ["anthropic", "openai"];
export const KEYCHAIN_SERVICE = "chunkpad";
export const KEY_ENVIRONMENT_VARIABLES: Record<SecretProvider, string> = {
  anthropic: "ANTHROPIC_API_KEY",
  openai: "OPENAI_API_KEY",
};
const SECRETS_FILE_NAME = "secrets.json";
const FILE_MODE = 0o600;
const DIRECTORY_MODE = 0o700;

export interface KeyDescription {
  provider: SecretProvider;
  /** Where the key in use comes from; null when there is none. */
  source: KeySource | null;
  /** In words, for `chunkpad keys list`: "OS keychain", "environment variable OPENAI_API_KEY", a path. */
  location: string;
  /** Why the keychain could not be used, when it could not. */
  keychainProblem?: string;
  /** When the environment variable wins: where the stored key it overrides is ("OS keychain", a path). */
  overrides?: string;
}

export interface SecretStore {
  get(provider: SecretProvider): Promise<string | undefined>;
  /** Stores the key in the keychain, or in the user-only file when there is no keychain. */
  set(provider: SecretProvider, key: string): Promise<KeyDescription>;
  /** Removes the key from the keychain and the file; an environment variable stays (described). */
  delete(provider: SecretProvider): Promise<KeyDescription>;
  describe(provider: SecretProvider): Promise<KeyDescription>;
}

export interface SecretStoreOptions {
  configDir: string;
  env?: Record<string, string | undefined>;
  /** Defaults to the OS keychain; null to use none. */
  keyring?: Keyring | null;
  platform?: NodeJS.Platform;
}

export function createSecretStore(options: SecretStoreOptions): SecretStore {
  const env = options.env ?? process.env;
  const keyring = options.keyring === undefined ? createOsKeyring() : options.keyring;
  const filePath = path.join(options.configDir, SECRETS_FILE_NAME);
  const posix = (options.platform ?? process.platform) !== "win32";

  async function fromKeychain(provider: SecretProvider): Promise<{ key?: string; problem?: string }> {
    if (!keyring) return { problem: "no keychain configured" };
    try {
      const key = await keyring.get(KEYCHAIN_SERVICE, provider);
      return key ? { key } : {};
    } catch (error) {
      return { problem: describeError(error) };
    }
  }

  async function lookUp(provider: SecretProvider): Promise<{ key?: string; description: KeyDescription }> {
    const keychain = await fromKeychain(provider);
    const problem = keychain.problem ? { keychainProblem: keychain.problem } : {};
    const fromFile = keychain.key ? undefined : readSecretsFile(filePath, posix)[provider];
    const variable = KEY_ENVIRONMENT_VARIABLES[provider];
    const fromEnvironment = env[variable]?.trim();
    if (fromEnvironment) {
      const stored = keychain.key ? { overrides: "OS keychain" } : fromFile ? { overrides: filePath } : {};
      return { key: fromEnvironment, description: { provider, source: "environment", location: `environment variable ${variable}`, ...problem, ...stored } };
    }
    if (keychain.key) return { key: keychain.key, description: { provider, source: "keychain", location: "OS keychain" } };
    if (fromFile) return { key: fromFile, description: { provider, source: "file", location: filePath, ...problem } };
    return { description: { provider, source: null, location: "not set", ...problem } };
  }

  return {
    get: async (provider) => (await lookUp(provider)).key,
    describe: async (provider) => (await lookUp(provider)).description,

    async set(provider, key) {
      const trimmed = key.trim();
      if (trimmed === "" || /\s/.test(trimmed)) {
        throw new ChunkpadError("INVALID_ARGUMENT", `That ${provider} key is empty or contains spaces. Paste the key exactly as the provider shows it.`);
      }
      let problem: string | undefined;
      if (keyring) {
        try {
          await keyring.set(KEYCHAIN_SERVICE, provider, trimmed);
          // One place per key: an older copy in the file would be found after a keychain reset.
          removeFromFile(filePath, provider, posix);
          return { provider, source: "keychain", location: "OS keychain" };
        } catch (error) {
          problem = describeError(error);
        }
      }
      writeSecretsFile(filePath, { ...readSecretsFile(filePath, posix), [provider]: trimmed }, posix);
      return { provider, source: "file", location: filePath, keychainProblem: problem ?? "no keychain configured" };
    },

    async delete(provider) {
      if (keyring) {
        try {
          await keyring.delete(KEYCHAIN_SERVICE, provider);
        } catch {
          // No keychain: nothing stored there to delete.
        }
      }
      removeFromFile(filePath, provider, posix);
      return (await lookUp(provider)).description;
    },
  };
}

function readSecretsFile(filePath: string, posix: boolean): Partial<Record<SecretProvider, string>> {
  let raw: string;
  try {
    raw = fs.readFileSync(filePath, "utf8");
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === "ENOENT") return {};
    throw new ChunkpadError("CONFIG_INVALID", `Cannot read the key file ${filePath}: ${describeError(error)}. Check its owner and permissions.`, { cause: error });
  }
  // A copy someone loosened (or restored from a backup) is tightened again before use; a link is
  // left alone, since chmod would change whatever file it points to (the next write replaces it).
  const stats = posix ? fs.lstatSync(filePath) : undefined;
  if (stats && !stats.isSymbolicLink() && (stats.mode & 0o077) !== 0) fs.chmodSync(filePath, FILE_MODE);
  try {
    const parsed = JSON.parse(raw) as unknown;
    if (parsed === null || typeof parsed !== "object" || Array.isArray(parsed)) throw new Error("not a JSON object");
    const keys: Partial<Record<SecretProvider, string>> = {};
    for (const [name, value] of Object.entries(parsed)) {
      if ((name === "anthropic" || name === "openai") && typeof value === "string" && value !== "") keys[name] = value;
    }
    return keys;
  } catch {
    throw new ChunkpadError("CONFIG_INVALID", `The key file ${filePath} is damaged. Delete it and set the keys again.`, { nextSteps: [{ action: "set-up-llm" }] });
  }
}

function writeSecretsFile(filePath: string, keys: Partial<Record<SecretProvider, string>>, posix: boolean): void {
  const directory = path.dirname(filePath);
  fs.mkdirSync(directory, { recursive: true, mode: DIRECTORY_MODE });
  if (posix) fs.chmodSync(directory, DIRECTORY_MODE);
  writeFileDurablySync(filePath, `${JSON.stringify(keys, null, 2)}\n`, { mode: FILE_MODE });
}

function removeFromFile(filePath: string, provider: SecretProvider, posix: boolean): void {
  const keys = readSecretsFile(filePath, posix);
  if (!(provider in keys)) return;
  delete keys[provider];
  if (Object.keys(keys).length === 0) fs.rmSync(filePath, { force: true });
  else writeSecretsFile(filePath, keys, posix);
}
