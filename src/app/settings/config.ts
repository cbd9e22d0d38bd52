import { notice, type Notice } from "../../core/next-step.js";
import fs from "node:fs";
import { writeFileDurablySync } from "../../core/durable-write.js";
import { ChunkpadError } from "../../core/errors.js";
import {
  findSetting,
  parseSettingText,
  requireSetting,
  resolveSettings,
  settingsToConfig,
  SETTINGS,
  type ChunkpadConfig,
  type ResolvedSetting,
} from "./settings.js";

export { DEFAULT_HUB_URL } from "../../hub/index.js";
export { defaultConfig, type ChunkpadConfig } from "./settings.js";

/**
 * The config file: a JSON object holding only the settings the user set, nested by section
 * (`{"search": {"limit": 5}}`). Reading it never fails on one bad value until that value is
 * used, so `config set` and `config unset` can always repair it.
 */

export type ConfigFile = Record<string, unknown>;

/** The config file as written, not validated. A missing file is an empty config. */
export function readConfigFile(configPath: string): ConfigFile {
  let raw: string;
  try {
    raw = fs.readFileSync(configPath, "utf8");
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === "ENOENT") return {};
    throw new ChunkpadError("CONFIG_INVALID", `Cannot read the config file ${configPath}: ${(error as Error).message}`, { cause: error });
  }
  let json: unknown;
  try {
    json = JSON.parse(raw);
  } catch (error) {
    throw new ChunkpadError("CONFIG_INVALID", `The config file ${configPath} is not valid JSON (${(error as Error).message}). Fix it by hand or delete it to go back to the defaults.`, { cause: error });
  }
  if (!isObject(json)) {
    throw new ChunkpadError("CONFIG_INVALID", `The config file ${configPath} is not a JSON object. Fix it by hand or delete it to go back to the defaults.`);
  }
  return json;
}

export interface UserSettings {
  /** The user's values by dotted key, unvalidated. */
  values: Map<string, unknown>;
  /** Keys the file names that no setting has, with the message to show. */
  problems: Map<string, Notice>;
}

/** The settings a config file sets, by dotted key. */
export function readUserSettings(file: ConfigFile, configPath?: string): UserSettings {
  const values = new Map<string, unknown>();
  const problems = new Map<string, Notice>();
  for (const [key, value] of leaves(withoutLegacyDefaults(file))) {
    if (findSetting(key) === undefined) {
      const where = configPath === undefined ? "The config file" : `The config file ${configPath}`;
      problems.set(key, notice(`${where} has an unknown key "${key}".`, { action: "unset-setting", key }, { action: "list-settings" }));
    } else {
      values.set(key, value);
    }
  }
  return { values, problems };
}

export interface LoadedSettings {
  settings: ResolvedSetting[];
  /** Keys in the file that no setting has, each with its fix. */
  unknownKeys: Notice[];
}

/** Every setting resolved: flag > environment > config file > default. Never throws for one bad value. */
export function loadSettings(options: { configPath: string; env: Record<string, string | undefined>; flags?: Record<string, unknown> }): LoadedSettings {
  const user = readUserSettings(readConfigFile(options.configPath), options.configPath);
  const settings = resolveSettings({ file: user.values, env: options.env, ...(options.flags ? { flags: options.flags } : {}), configPath: options.configPath });
  return { settings, unknownKeys: [...user.problems.values()] };
}

/** The settings as the use cases read them; CONFIG_INVALID (one line, with the fix) when one is bad. */
export function effectiveConfig(loaded: LoadedSettings): ChunkpadConfig {
  const [unknown] = loaded.unknownKeys;
  if (unknown !== undefined) throw new ChunkpadError("CONFIG_INVALID", unknown.message, { ...(unknown.nextSteps ? { nextSteps: unknown.nextSteps } : {}) });
  return settingsToConfig(loaded.settings);
}

/**
 * Sets one key from the string the user typed. Only that key is checked and written, so a
 * bad value elsewhere in the file does not block its repair, and no default is written.
 */
export function setConfigValue(file: ConfigFile, key: string, text: string): ConfigFile {
  const setting = requireSetting(key);
  const checked = parseSettingText(setting, text);
  if (!checked.ok) throw new ChunkpadError("INVALID_ARGUMENT", `${key} was not changed: ${checked.problem}.`);
  const next = withoutLegacyDefaults(file);
  writeLeaf(next, key, checked.value);
  checkChunking(next, (problem) => `${key} was not changed: ${problem}`);
  return next;
}

/** Removes one key from the file (its default, or the environment, applies again). */
export function unsetConfigValue(file: ConfigFile, key: string): ConfigFile {
  const next = withoutLegacyDefaults(file);
  const present = leaves(next).some(([name]) => name === key);
  // A key the file names but no setting knows can be removed too: that is how it is repaired.
  if (!present) requireSetting(key);
  removeLeaf(next, key);
  checkChunking(next, (problem) => `${key} was not reset: ${problem}`);
  return next;
}

/** Writes the sparse config object (keys the user set, nothing else). */
export function saveConfig(configPath: string, file: ConfigFile): void {
  writeFileDurablySync(configPath, `${JSON.stringify(file, null, 2)}\n`);
}

/** Chunk overlap must stay below chunk size, whichever of the two the file sets. */
function checkChunking(file: ConfigFile, describe: (problem: string) => string): void {
  const value = (key: string): number => {
    const found = leaves(file).find(([name]) => name === key)?.[1];
    return typeof found === "number" ? found : (requireSetting(key).default as number);
  };
  const size = value("chunking.chunkSizeTokens");
  const overlap = value("chunking.chunkOverlapTokens");
  if (overlap >= size) throw new ChunkpadError("INVALID_ARGUMENT", describe(`chunking.chunkOverlapTokens (${overlap}) must be smaller than chunking.chunkSizeTokens (${size}).`));
}

// ---------------------------------------------------------------------------------------------
// Files written by versions before 0.1 held every setting, defaults included, so a user never
// saw an improved default. Such a file is recognised by holding all of these keys (a user who
// set each of them by hand is very unlikely); its values equal to today's defaults are dropped.
// See docs/decisions/011-one-settings-resolver.md.

const LEGACY_FULL_FILE_KEYS = [
  "chunking.chunkSizeTokens", "chunking.chunkOverlapTokens",
  "embedding.provider", "embedding.model", "embedding.dtype", "embedding.batchSize",
  "search.fusion", "search.minScore", "search.limit", "search.vectorWeight", "search.keywordWeight",
  "generation.mode", "generation.minSimilarity",
];

export function isLegacyFullFile(file: ConfigFile): boolean {
  const keys = new Set(leaves(file).map(([key]) => key));
  return LEGACY_FULL_FILE_KEYS.every((key) => keys.has(key));
}

/** Defaults an older writer put in every file, since changed: such a value was the default, not a choice. */
const FORMER_DEFAULTS: Record<string, readonly unknown[]> = { "generation.minSimilarity": [0.25, 0.3] };

function withoutLegacyDefaults(file: ConfigFile): ConfigFile {
  const copy = structuredClone(file);
  if (!isLegacyFullFile(file)) return copy;
  for (const setting of SETTINGS) {
    const found = leaves(copy).find(([key]) => key === setting.key);
    if (found !== undefined && (found[1] === setting.default || FORMER_DEFAULTS[setting.key]?.includes(found[1]))) removeLeaf(copy, setting.key);
  }
  return withoutEmptySections(copy);
}

/** The old writer's empty maps (`"models": {}`) say nothing. */
function withoutEmptySections(file: ConfigFile): ConfigFile {
  for (const [name, value] of Object.entries(file)) {
    if (!isObject(value)) continue;
    withoutEmptySections(value);
    if (Object.keys(value).length === 0) delete file[name];
  }
  return file;
}

function leaves(node: ConfigFile, prefix = ""): Array<[string, unknown]> {
  const rows: Array<[string, unknown]> = [];
  for (const [name, value] of Object.entries(node)) {
    const key = prefix === "" ? name : `${prefix}.${name}`;
    // A known setting is a leaf whatever it holds (so a wrong type is reported, not walked into).
    if (isObject(value) && findSetting(key) === undefined) rows.push(...leaves(value, key));
    else rows.push([key, value]);
  }
  return rows;
}

function writeLeaf(file: ConfigFile, key: string, value: unknown): void {
  const parts = key.split(".");
  let node = file;
  for (const part of parts.slice(0, -1)) {
    if (!isObject(node[part])) node[part] = {};
    node = node[part] as ConfigFile;
  }
  node[parts.at(-1) as string] = value;
}

function removeLeaf(file: ConfigFile, key: string): void {
  const parts = key.split(".");
  const trail: ConfigFile[] = [file];
  for (const part of parts.slice(0, -1)) {
    const next = trail.at(-1)?.[part];
    if (!isObject(next)) return;
    trail.push(next);
  }
  delete trail.at(-1)?.[parts.at(-1) as string];
  // Empty sections go too, so the file shows only what is set.
  for (let depth = parts.length - 1; depth > 0; depth--) {
    const parent = trail[depth - 1] as ConfigFile;
    const name = parts[depth - 1] as string;
    if (isObject(parent[name]) && Object.keys(parent[name]).length === 0) delete parent[name];
  }
}

function isObject(value: unknown): value is ConfigFile {
  return value !== null && typeof value === "object" && !Array.isArray(value);
}
