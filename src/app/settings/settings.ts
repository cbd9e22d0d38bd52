import { createRequire } from "node:module";
import type * as Zod from "zod";

/**
 * zod takes about 70 ms to load, a quarter of a keyword search's start: it is loaded the first
 * time a value is checked (a config file, a flag or an environment variable sets one), not when
 * every setting is at its default.
 */
let loadedZod: typeof Zod | undefined;
function zod(): typeof Zod.z {
  return (loadedZod ??= createRequire(import.meta.url)("zod") as typeof Zod).z;
}
import { ChunkpadError } from "../../core/errors.js";
import { DEFAULT_CHUNKING, DEFAULT_PARSE_LIMITS } from "../../core/types.js";
import { DEFAULT_HUB_URL } from "../../hub/index.js";
import { DEFAULT_MIN_SIMILARITY } from "../../rag/guardrail.js";
import { DEFAULT_KEYWORD_WEIGHT, DEFAULT_VECTOR_WEIGHT } from "../../search/fuse.js";
import { DEFAULT_RERANK_MODEL } from "../../embedding/rerank-catalog.js";
import { DEFAULT_LLM_MODELS, OLLAMA_DEFAULT_HOST, resolveOllamaHost } from "../../llm/index.js";

/**
 * Every setting in one table, and the one resolver every command reads them through:
 * a command-line flag beats an environment variable, which beats the config file, which beats
 * the default. The config file holds only what the user set (see docs/decisions/011).
 */

export type SettingSource = "flag" | "env" | "config" | "default";

type SettingKind =
  | { type: "integer"; min: number; max: number }
  | { type: "number"; min: number; max: number; aboveMinimum?: boolean }
  | { type: "enum"; values: readonly string[] }
  | { type: "text"; allowEmpty: boolean }
  | { type: "url" }
  | { type: "ollama-host" };

export interface SettingDefinition {
  key: string;
  kind: SettingKind;
  /** undefined: not set unless the user sets it (the code then decides, e.g. the first provider with a key). */
  default: string | number | undefined;
  /** The environment variable that overrides the config file. */
  env?: string;
  /** The command-line flag that overrides both, for `config list` and help. */
  flag?: string;
  description: string;
}

const MEGABYTE = 1024 * 1024;
const POSITIVE = { type: "number", min: 0, max: Number.MAX_SAFE_INTEGER, aboveMinimum: true } as const;
const FRACTION = { type: "number", min: 0, max: 1 } as const;
const TEXT = { type: "text", allowEmpty: false } as const;
const PREFIX = { type: "text", allowEmpty: true } as const;

export const SETTINGS: readonly SettingDefinition[] = [
  { key: "chunking.chunkSizeTokens", kind: { type: "integer", min: 32, max: 8192 }, default: DEFAULT_CHUNKING.chunkSizeTokens, flag: "--chunk-size", description: "tokens per chunk" },
  { key: "chunking.chunkOverlapTokens", kind: { type: "integer", min: 0, max: 4096 }, default: DEFAULT_CHUNKING.chunkOverlapTokens, flag: "--overlap", description: "tokens shared by neighbouring chunks" },
  { key: "store.url", kind: TEXT, default: undefined, env: "CHUNKPAD_DATABASE_URL", description: "a shared PostgreSQL + pgvector database (postgres://user@host/db; the password in PGPASSWORD or ~/.pgpass); unset: SQLite in the data folder" },
  { key: "ingest.maxFileSizeMb", kind: POSITIVE, default: 200, description: "larger files are skipped" },
  // At most a day: a longer time overflows the timer, which then fires at once.
  { key: "ingest.perFileTimeoutSeconds", kind: { type: "number", min: 1, max: 24 * 60 * 60 }, default: 120, flag: "--timeout", description: "parsing time limit per file" },
  { key: "ingest.maxDecompressedMb", kind: POSITIVE, default: DEFAULT_PARSE_LIMITS.maxDecompressedBytes / MEGABYTE, description: "zip-bomb limit for office files" },
  { key: "ingest.maxArchiveEntries", kind: { type: "integer", min: 1, max: 1_000_000 }, default: DEFAULT_PARSE_LIMITS.maxArchiveEntries, description: "zip-bomb limit for office files" },
  { key: "ingest.workers", kind: { type: "integer", min: 1, max: 16 }, default: 2, description: "parser worker threads" },
  { key: "ingest.workerHeapMb", kind: { type: "integer", min: 64, max: 16384 }, default: 1024, description: "memory limit per parser worker" },
  { key: "ingest.ocr", kind: { type: "enum", values: ["auto", "off"] }, default: "auto", description: "read scanned pages and images with OCR" },
  { key: "embedding.provider", kind: { type: "enum", values: ["local", "ollama", "openai"] }, default: "local", description: "who makes the vectors" },
  { key: "embedding.model", kind: TEXT, default: "bge-base-en-v1.5", flag: "embed --model", description: "catalog name, hub id, model directory, or the provider's model name" },
  { key: "embedding.dtype", kind: { type: "enum", values: ["fp32", "q8"] }, default: "fp32", flag: "embed --dtype", description: "local model weights" },
  { key: "embedding.hubUrl", kind: { type: "url" }, default: DEFAULT_HUB_URL, env: "CHUNKPAD_HUB_URL", description: "where embedding models are downloaded from" },
  { key: "embedding.baseUrl", kind: { type: "url" }, default: undefined, description: "the embedding server; unset: generation.ollamaHost or generation.openaiBaseUrl" },
  { key: "embedding.batchSize", kind: { type: "integer", min: 1, max: 512 }, default: 16, flag: "embed --batch-size", description: "chunks per embedding call and commit" },
  { key: "embedding.pooling", kind: { type: "enum", values: ["cls", "mean"] }, default: undefined, description: "models outside the catalog: pooling from the model card (default mean)" },
  { key: "embedding.queryPrefix", kind: PREFIX, default: undefined, description: "models outside the catalog: text put before each query" },
  { key: "embedding.documentPrefix", kind: PREFIX, default: undefined, description: "models outside the catalog: text put before each chunk" },
  { key: "search.fusion", kind: { type: "enum", values: ["weighted", "rrf"] }, default: "weighted", flag: "--fusion", description: "how hybrid search merges rankings" },
  { key: "search.minScore", kind: FRACTION, default: 0.1, flag: "--min-score", description: "results below this score are dropped" },
  { key: "search.limit", kind: { type: "integer", min: 1, max: 1000 }, default: 10, flag: "--limit", description: "results per search" },
  { key: "search.vectorWeight", kind: FRACTION, default: DEFAULT_VECTOR_WEIGHT, description: "weighted fusion: share of the vector score" },
  { key: "search.keywordWeight", kind: FRACTION, default: DEFAULT_KEYWORD_WEIGHT, description: "weighted fusion: share of the keyword score" },
  { key: "search.perDocument", kind: { type: "integer", min: 0, max: 100 }, default: 1, flag: "--per-document", description: "chunks shown per document (the rest fold into its first result); 0 lists every chunk" },
  { key: "search.rerank", kind: { type: "enum", values: ["off", "on"] }, default: "off", flag: "--rerank", description: "re-score the top results with a cross-encoder (downloaded once, with consent)" },
  { key: "search.rerankModel", kind: TEXT, default: DEFAULT_RERANK_MODEL, description: "the cross-encoder: catalog name, hub id or a local model directory" },
  { key: "search.rerankDtype", kind: { type: "enum", values: ["fp32", "q8"] }, default: "q8", description: "the cross-encoder's weights: q8 (quantized, smaller and faster) or fp32" },
  { key: "search.rerankCandidates", kind: { type: "integer", min: 2, max: 200 }, default: 20, description: "how many of the top results the cross-encoder re-scores" },
  { key: "search.rerankBudgetMs", kind: { type: "integer", min: 0, max: 60_000 }, default: 2000, flag: "--rerank-budget", description: "time the cross-encoder may take per search; it stops after the batch that passes it" },
  { key: "search.rerankWeight", kind: FRACTION, default: 0.7, description: "share of the cross-encoder's score in a re-scored result's score" },
  { key: "generation.provider", kind: { type: "enum", values: ["anthropic", "openai", "ollama", "local"] }, default: undefined, flag: "--provider", description: "the LLM that answers; unset: the first with a key, else local" },
  { key: "generation.mode", kind: { type: "enum", values: ["normal", "strict"] }, default: "normal", flag: "--strict", description: "strict answers only with sentences from the chunks" },
  { key: "generation.minSimilarity", kind: FRACTION, default: DEFAULT_MIN_SIMILARITY, description: 'below this share of the question\'s words (weighed by rarity) in the best chunk, answer "I don\'t know" without asking the LLM' },
  { key: "generation.minVectorSimilarity", kind: FRACTION, default: undefined, description: "the floor for vector similarity (it depends on the embedding model); unset: generation.minSimilarity" },
  ...(["anthropic", "openai", "ollama", "local"] as const).map(
    (provider): SettingDefinition => ({ key: `generation.models.${provider}`, kind: TEXT, default: DEFAULT_LLM_MODELS[provider], flag: "ask --model", description: `the ${provider} model that answers` }),
  ),
  { key: "generation.anthropicBaseUrl", kind: { type: "url" }, default: undefined, env: "ANTHROPIC_BASE_URL", description: "another Anthropic-compatible server" },
  { key: "generation.openaiBaseUrl", kind: { type: "url" }, default: undefined, env: "OPENAI_BASE_URL", description: "any OpenAI-compatible server (LM Studio, llama.cpp, vLLM)" },
  { key: "generation.ollamaHost", kind: { type: "ollama-host" }, default: OLLAMA_DEFAULT_HOST, env: "OLLAMA_HOST", description: "the Ollama server, for answers and Ollama embeddings" },
  { key: "generation.hubUrl", kind: { type: "url" }, default: DEFAULT_HUB_URL, env: "CHUNKPAD_HUB_URL", description: "where the local LLM is downloaded from" },
];

const BY_KEY = new Map(SETTINGS.map((setting) => [setting.key, setting]));

export function findSetting(key: string): SettingDefinition | undefined {
  return BY_KEY.get(key);
}

export function requireSetting(key: string): SettingDefinition {
  const setting = BY_KEY.get(key);
  if (setting === undefined) throw new ChunkpadError("INVALID_ARGUMENT", `Unknown config key "${key}".`, { nextSteps: [{ action: "list-settings" }] });
  return setting;
}

/** What a setting accepts, in words, for messages. */
export function describeKind(kind: SettingKind): string {
  switch (kind.type) {
    case "integer":
      return `a whole number from ${kind.min} to ${kind.max}`;
    case "number":
      return kind.aboveMinimum ? `a number above ${kind.min}` : `a number from ${kind.min} to ${kind.max}`;
    case "enum":
      return `one of ${kind.values.join(", ")}`;
    case "text":
      return kind.allowEmpty ? "text" : "non-empty text";
    case "url":
      return "an http:// or https:// URL";
    case "ollama-host":
      return "an http(s) URL or host:port";
  }
}

function httpUrl() {
  return zod()
    .string()
    .trim()
    .refine((value) => {
      try {
        const url = new URL(value);
        return (url.protocol === "http:" || url.protocol === "https:") && url.hostname !== "";
      } catch {
        return false;
      }
    })
    .transform((value) => value.replace(/\/+$/, ""));
}

function schemaFor(kind: SettingKind): Zod.ZodType<string | number> {
  const z = zod();
  switch (kind.type) {
    case "integer":
      return z.number().int().min(kind.min).max(kind.max);
    case "number":
      return kind.aboveMinimum ? z.number().gt(kind.min).max(kind.max) : z.number().min(kind.min).max(kind.max);
    case "enum":
      return z.enum(kind.values as [string, ...string[]]);
    case "text":
      return kind.allowEmpty ? z.string() : z.string().trim().min(1);
    case "url":
      return httpUrl();
    case "ollama-host":
      // Ollama's own forms (host, host:port, :port, a URL), stored as the URL they mean.
      return z
        .string()
        .trim()
        .min(1)
        .transform((value, context) => {
          try {
            const url = resolveOllamaHost(value, {});
            if (httpUrl().safeParse(url).success) return url;
          } catch {
            // reported below
          }
          context.addIssue({ code: "custom", message: "not a host" });
          return z.NEVER;
        });
  }
}

export type Checked = { ok: true; value: string | number } | { ok: false; problem: string };

/** Validates a value from the file, a flag or a typed string; the problem says what the setting accepts. */
export function checkSettingValue(setting: SettingDefinition, value: unknown): Checked {
  const parsed = schemaFor(setting.kind).safeParse(value);
  if (parsed.success) return { ok: true, value: parsed.data };
  return { ok: false, problem: `${JSON.stringify(value)} is not ${describeKind(setting.kind)}` };
}

/** A string the user typed (`config set`, an environment variable) as the setting's type. */
export function parseSettingText(setting: SettingDefinition, text: string): Checked {
  const numeric = setting.kind.type === "integer" || setting.kind.type === "number";
  const value = numeric && text.trim() !== "" && Number.isFinite(Number(text)) ? Number(text) : text;
  return checkSettingValue(setting, value);
}

export interface ResolvedSetting {
  key: string;
  /** The effective value; undefined when nothing sets it and it has no default. */
  value: string | number | undefined;
  source: SettingSource;
  /** The environment variable, when source is "env". */
  variable?: string;
  /** Set when the value that would win is invalid: the message says what to fix. */
  problem?: string;
  setting: SettingDefinition;
}

export interface SettingsInput {
  /** The user's values from the config file, by dotted key (see readUserSettings). */
  file: ReadonlyMap<string, unknown>;
  env: Record<string, string | undefined>;
  /** Values given on the command line for this run, by dotted key. */
  flags?: Readonly<Record<string, unknown>>;
  /** For messages: where the config file is. */
  configPath?: string;
}

/** Every setting's effective value and where it came from: flag > environment > config file > default. */
export function resolveSettings(input: SettingsInput): ResolvedSetting[] {
  return SETTINGS.map((setting) => resolveOne(setting, input));
}

function resolveOne(setting: SettingDefinition, input: SettingsInput): ResolvedSetting {
  const { key } = setting;
  const flag = input.flags?.[key];
  if (flag !== undefined) {
    const checked = checkSettingValue(setting, flag);
    if (checked.ok) return { key, value: checked.value, source: "flag", setting };
    return { key, value: undefined, source: "flag", setting, problem: `${setting.flag ?? key}: ${checked.problem}.` };
  }
  const raw = setting.env === undefined ? undefined : input.env[setting.env]?.trim();
  if (setting.env !== undefined && raw !== undefined && raw !== "") {
    const checked = parseSettingText(setting, raw);
    if (checked.ok) return { key, value: checked.value, source: "env", variable: setting.env, setting };
    return {
      key, value: undefined, source: "env", variable: setting.env, setting,
      problem: `The environment variable ${setting.env} (for ${key}) is ${JSON.stringify(raw)}, which is not ${describeKind(setting.kind)}. Fix it or unset it.`,
    };
  }
  if (input.file.has(key)) {
    const checked = checkSettingValue(setting, input.file.get(key));
    if (checked.ok) return { key, value: checked.value, source: "config", setting };
    return { key, value: undefined, source: "config", setting, problem: badFileValue(input.configPath, key, checked.problem) };
  }
  return { key, value: setting.default, source: "default", setting };
}

export function badFileValue(configPath: string | undefined, key: string, problem: string): string {
  const where = configPath === undefined ? "The config file" : `The config file ${configPath}`;
  return `${where} has a bad value for ${key}: ${problem}.`;
}

// ---------------------------------------------------------------------------------------------
// The effective settings as one typed object, for the use cases.

export type EmbeddingProviderName = "local" | "ollama" | "openai";
export type GenerationProviderName = "anthropic" | "openai" | "ollama" | "local";

export interface ChunkpadConfig {
  chunking: { chunkSizeTokens: number; chunkOverlapTokens: number };
  store?: { url?: string };
  ingest: { maxFileSizeMb: number; perFileTimeoutSeconds: number; maxDecompressedMb: number; maxArchiveEntries: number; workers: number; workerHeapMb: number; ocr: "auto" | "off" };
  embedding: {
    provider: EmbeddingProviderName;
    model: string;
    dtype: "fp32" | "q8";
    hubUrl: string;
    baseUrl?: string;
    batchSize: number;
    pooling?: "cls" | "mean";
    queryPrefix?: string;
    documentPrefix?: string;
  };
  search: {
    fusion: "weighted" | "rrf";
    minScore: number;
    limit: number;
    vectorWeight: number;
    keywordWeight: number;
    perDocument: number;
    rerank: "off" | "on";
    rerankModel: string;
    rerankDtype: "fp32" | "q8";
    rerankCandidates: number;
    rerankBudgetMs: number;
    rerankWeight: number;
  };
  generation: {
    provider?: GenerationProviderName;
    mode: "normal" | "strict";
    minSimilarity: number;
    minVectorSimilarity?: number;
    /** The model per provider (defaults included). */
    models: Record<string, string>;
    openaiBaseUrl?: string;
    anthropicBaseUrl?: string;
    ollamaHost: string;
    hubUrl: string;
  };
}

/**
 * The resolved settings as the nested object the use cases read. Throws CONFIG_INVALID with
 * the first problem (one line: the key, the bad value, the fix).
 */
export function settingsToConfig(resolved: readonly ResolvedSetting[]): ChunkpadConfig {
  const root: Record<string, unknown> = {};
  for (const row of resolved) {
    if (row.problem !== undefined) throw new ChunkpadError(row.source === "flag" ? "INVALID_ARGUMENT" : "CONFIG_INVALID", row.problem, { nextSteps: row.source === "config" ? [{ action: "change-setting", key: row.key, orUnset: true }] : [] });
    if (row.value === undefined) continue;
    const parts = row.key.split(".");
    let node = root;
    for (const part of parts.slice(0, -1)) node = (node[part] ??= {}) as Record<string, unknown>;
    node[parts.at(-1) as string] = row.value;
  }
  const config = root as unknown as ChunkpadConfig;
  if (config.chunking.chunkOverlapTokens >= config.chunking.chunkSizeTokens) {
    const source = (key: string) => resolved.find((row) => row.key === key)?.source;
    const culprit = source("chunking.chunkOverlapTokens") === "default" ? "chunking.chunkSizeTokens" : "chunking.chunkOverlapTokens";
    throw new ChunkpadError(
      "CONFIG_INVALID",
      `chunking.chunkOverlapTokens (${config.chunking.chunkOverlapTokens}) must be smaller than chunking.chunkSizeTokens (${config.chunking.chunkSizeTokens}).`,
      { nextSteps: [{ action: "change-setting", key: culprit, orUnset: true }] },
    );
  }
  return config;
}

/** The defaults alone (no file, no environment). */
export function defaultConfig(): ChunkpadConfig {
  return settingsToConfig(resolveSettings({ file: new Map(), env: {} }));
}
