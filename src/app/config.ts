import fs from "node:fs";
import { z } from "zod";
import { ChunkpadError } from "../core/errors.js";
import { writeFileDurablySync } from "../core/durable-write.js";

export { DEFAULT_HUB_URL } from "../hub/index.js";

const chunkingSchema = z.object({
  chunkSizeTokens: z.number().int().min(32).max(8192).default(400),
  chunkOverlapTokens: z.number().int().min(0).max(4096).default(60),
}).strict();

const configSchema = z
  .object({
    chunking: chunkingSchema.default({ chunkSizeTokens: 400, chunkOverlapTokens: 60 }),
    ingest: z
      .object({
        maxFileSizeMb: z.number().positive().default(200),
        perFileTimeoutSeconds: z.number().positive().default(120),
        maxDecompressedMb: z.number().positive().default(256),
        maxArchiveEntries: z.number().int().positive().default(5000),
        workers: z.number().int().min(1).max(16).default(2),
        workerHeapMb: z.number().int().min(64).max(16384).default(1024),
        ocr: z.enum(["auto", "off"]).default("auto"),
      })
      .strict()
      .default({ maxFileSizeMb: 200, perFileTimeoutSeconds: 120, maxDecompressedMb: 256, maxArchiveEntries: 5000, workers: 2, workerHeapMb: 1024, ocr: "auto" }),
    embedding: z
      .object({
        provider: z.enum(["local", "ollama", "openai"]).default("local"),
        model: z.string().min(1).default("bge-base-en-v1.5"),
        dtype: z.enum(["fp32", "q8"]).default("fp32"),
        hubUrl: z.string().url().optional(),
        baseUrl: z.string().url().optional(),
        batchSize: z.number().int().min(1).max(512).default(16),
      })
      .strict()
      .default({ provider: "local", model: "bge-base-en-v1.5", dtype: "fp32", batchSize: 16 }),
    search: z
      .object({
        fusion: z.enum(["weighted", "rrf"]).default("weighted"),
        minScore: z.number().min(0).max(1).default(0.1),
        limit: z.number().int().min(1).max(1000).default(10),
        vectorWeight: z.number().min(0).max(1).default(0.7),
        keywordWeight: z.number().min(0).max(1).default(0.3),
      })
      .strict()
      .default({ fusion: "weighted", minScore: 0.1, limit: 10, vectorWeight: 0.7, keywordWeight: 0.3 }),
    generation: z
      .object({
        provider: z.enum(["anthropic", "openai", "ollama", "local"]).optional(),
        mode: z.enum(["normal", "strict"]).default("normal"),
        minSimilarity: z.number().min(0).max(1).default(0.25),
        models: z.record(z.string(), z.string()).default({}),
        openaiBaseUrl: z.string().url().optional(),
        anthropicBaseUrl: z.string().url().optional(),
        ollamaHost: z.string().optional(),
        hubUrl: z.string().url().optional(),
      })
      .strict()
      .default({ mode: "normal", minSimilarity: 0.25, models: {} }),
  })
  .strict();

export type ChunkpadConfig = z.infer<typeof configSchema>;

export function defaultConfig(): ChunkpadConfig {
  return configSchema.parse({});
}

/** Reads and validates the config file; a missing file is the defaults. */
export function loadConfig(configPath: string): ChunkpadConfig {
  return validateConfig(readConfigFile(configPath), (problems) =>
    `The config file ${configPath} is invalid: ${problems}. Fix it with "chunkpad config set <key> <value>" or "chunkpad config unset <key>", or by hand.`);
}

/**
 * The config file as written, not validated, for `config set` and `unset` to repair: a bad
 * value must not stop the commands that fix it. A missing file is an empty config.
 */
export function readConfigFile(configPath: string): Record<string, unknown> {
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
  if (json === null || typeof json !== "object" || Array.isArray(json)) {
    throw new ChunkpadError("CONFIG_INVALID", `The config file ${configPath} is not a JSON object. Fix it by hand or delete it to go back to the defaults.`);
  }
  return json as Record<string, unknown>;
}

function validateConfig(json: unknown, describeInvalid: (problems: string) => string): ChunkpadConfig {
  const result = configSchema.safeParse(json);
  if (!result.success) {
    const problems = result.error.issues.map((issue) => `${issue.path.join(".") || "(root)"}: ${issue.message}`).join("; ");
    throw new ChunkpadError("CONFIG_INVALID", describeInvalid(problems));
  }
  const config = result.data;
  if (config.chunking.chunkOverlapTokens >= config.chunking.chunkSizeTokens) {
    throw new ChunkpadError("CONFIG_INVALID", `chunking.chunkOverlapTokens (${config.chunking.chunkOverlapTokens}) must be smaller than chunking.chunkSizeTokens (${config.chunking.chunkSizeTokens}).`);
  }
  return config;
}

export function saveConfig(configPath: string, config: ChunkpadConfig): void {
  writeFileDurablySync(configPath, `${JSON.stringify(config, null, 2)}\n`);
}

/** Reads a dotted key ("search.minScore"); undefined for a known setting that is not set. */
export function getConfigValue(config: ChunkpadConfig, key: string): unknown {
  const parts = key.split(".");
  let node: unknown = config;
  for (const [index, part] of parts.entries()) {
    if (node !== null && typeof node === "object" && part in node) {
      node = (node as Record<string, unknown>)[part];
      continue;
    }
    // generation.provider or generation.models.ollama: the schema knows them, the file may leave them out.
    if (index === parts.length - 1 && isOptionalConfigKey(parts)) return undefined;
    throw new ChunkpadError("INVALID_ARGUMENT", `Unknown config key "${key}". Run "chunkpad config list" to see the keys.`);
  }
  return node;
}

/** A section's field ("generation.provider") or an entry of a map field ("generation.models.ollama"). */
function isOptionalConfigKey(parts: readonly string[]): boolean {
  const [section = "", name = ""] = parts;
  const field = sectionFields(section)?.[name];
  if (parts.length === 2) return field !== undefined;
  return parts.length === 3 && field instanceof z.ZodDefault && field.unwrap() instanceof z.ZodRecord;
}

function sectionFields(section: string): Record<string, unknown> | undefined {
  const field: unknown = (configSchema.shape as Record<string, unknown>)[section];
  const inner = field instanceof z.ZodDefault ? field.unwrap() : field;
  return inner instanceof z.ZodObject ? (inner.shape as Record<string, unknown>) : undefined;
}

/**
 * Sets a dotted key from a string the user typed; numbers and booleans are parsed, and the
 * whole config is validated again so a bad value never reaches the file.
 */
export function setConfigValue(config: object, key: string, value: string): ChunkpadConfig {
  const copy = withSections(config);
  const parts = key.split(".");
  const last = parts.pop();
  if (!last || parts.length === 0) throw new ChunkpadError("INVALID_ARGUMENT", `Config keys have a section, like "search.minScore"; "${key}" has none.`);
  let node: Record<string, unknown> = copy;
  for (const part of parts) {
    const next = node[part];
    if (next === undefined || next === null || typeof next !== "object") {
      throw new ChunkpadError("INVALID_ARGUMENT", `Unknown config key "${key}". Run "chunkpad config list" to see the keys.`);
    }
    node = next as Record<string, unknown>;
  }
  node[last] = parseScalar(value);
  return validateConfig(copy, (problems) => `${key} was not changed: ${problems}.`);
}

export function unsetConfigValue(config: object, key: string): ChunkpadConfig {
  const copy = withSections(config);
  const parts = key.split(".");
  const last = parts.pop();
  let node: Record<string, unknown> | undefined = copy;
  for (const part of parts) node = node?.[part] as Record<string, unknown> | undefined;
  if (node && last) delete node[last];
  return validateConfig(copy, (problems) => `${key} was not reset: ${problems}.`);
}

/** A copy with every known section present (a config file may leave sections out). */
function withSections(config: object): Record<string, unknown> {
  const copy = structuredClone(config) as Record<string, unknown>;
  for (const section of Object.keys(defaultConfig())) copy[section] ??= {};
  return copy;
}

function parseScalar(value: string): unknown {
  if (value === "true") return true;
  if (value === "false") return false;
  if (value.trim() !== "" && Number.isFinite(Number(value))) return Number(value);
  return value;
}

/** Lists every leaf key with its value, for "chunkpad config list". */
export function flattenConfig(config: ChunkpadConfig): Array<{ key: string; value: unknown }> {
  const rows: Array<{ key: string; value: unknown }> = [];
  const visit = (node: unknown, prefix: string) => {
    if (node !== null && typeof node === "object" && !Array.isArray(node) && Object.keys(node).length > 0) {
      for (const [key, value] of Object.entries(node)) visit(value, prefix ? `${prefix}.${key}` : key);
    } else {
      rows.push({ key: prefix, value: node });
    }
  };
  visit(config, "");
  return rows;
}
