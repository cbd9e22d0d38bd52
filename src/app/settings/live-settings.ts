import fs from "node:fs";
import { ChunkpadError } from "../../core/errors.js";
import { effectiveConfig, loadSettings, saveConfig, type ChunkpadConfig, type LoadedSettings } from "./config.js";
import type { ResolvedSetting } from "./settings.js";

/** One process's view of the config file: read on first use, read again when another process changes it. */
export interface LiveSettings {
  settings(): LoadedSettings;
  config(): ChunkpadConfig;
  /** One resolved setting; an unknown key is an error naming `config list`. */
  setting(key: string): ResolvedSetting;
  /** Writes the config file and forgets what was read. */
  write(file: Record<string, unknown>): void;
  /** Forgets what was read (after a reset removed the file). */
  forget(): void;
  /** The store URL in force (store.url or CHUNKPAD_DATABASE_URL), checked. */
  storeUrl(): string | undefined;
}

export function createLiveSettings(configPath: string, env: NodeJS.ProcessEnv): LiveSettings {
  // Loaded on first use, so a config file with a bad value still lets `config set` repair it.
  let loadedSettings: LoadedSettings | undefined;
  let loadedConfig: ChunkpadConfig | undefined;
  // A config file changed by another process (`chunkpad config set` beside a running server) is
  // read again at once: where questions and keys go must never be an old setting.
  let loadedStamp = "";
  const configStamp = () => {
    try {
      const stat = fs.statSync(configPath);
      return `${stat.ino}:${stat.size}:${stat.mtimeMs}`;
    } catch {
      return "none";
    }
  };
  const forget = () => {
    loadedSettings = undefined;
    loadedConfig = undefined;
  };
  const settings = () => {
    const stamp = configStamp();
    if (stamp !== loadedStamp) {
      loadedSettings = undefined;
      loadedConfig = undefined;
      loadedStamp = stamp;
    }
    return (loadedSettings ??= loadSettings({ configPath, env }));
  };
  return {
    settings,
    config: () => (loadedConfig ??= effectiveConfig(settings())),
    setting(key) {
      const found = settings().settings.find((row) => row.key === key);
      if (found === undefined) throw new ChunkpadError("INVALID_ARGUMENT", `Unknown config key "${key}".`, { nextSteps: [{ action: "list-settings" }] });
      return found;
    },
    write(file) {
      saveConfig(configPath, file);
      forget();
    },
    forget,
    storeUrl: () => checkedStoreUrl(settings().settings.find((row) => row.key === "store.url")),
  };
}

/**
 * The store URL in force, checked: a password belongs in PGPASSWORD or ~/.pgpass (or the
 * environment variable), never in the config file, which `config list` shows and backups copy.
 */
function checkedStoreUrl(row: ResolvedSetting | undefined): string | undefined {
  const url = typeof row?.value === "string" ? row.value : undefined;
  if (url !== undefined && row?.source === "config" && /^[a-z][a-z0-9+.-]*:\/\/[^/@]*:[^/@]*@/i.test(url)) {
    throw new ChunkpadError("CONFIG_INVALID", 'store.url in the config file holds a password. Set it without one (postgres://user@host/db) and put the password in PGPASSWORD or ~/.pgpass, or set CHUNKPAD_DATABASE_URL in the environment instead.', { nextSteps: [{ action: "change-setting", key: "store.url" }] });
  }
  return url;
}
