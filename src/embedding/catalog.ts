import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import { ChunkpadError } from "../core/errors.js";

/**
 * The embedding models Chunkpad knows by name, with the settings each one was trained for.
 * Getting pooling or a prefix wrong does not fail loudly: it quietly makes search worse, so
 * these values come from the model cards.
 */

export type Pooling = "cls" | "mean";
export type EmbeddingDtype = "fp32" | "q8";

export interface CatalogEntry {
  /** Short name users type (`bge-base-en-v1.5`). */
  name: string;
  /** Hub repository of the ONNX build. */
  repoId: string;
  dimensions: number;
  /** Longest input we feed the model, in its own tokens (prefix included). */
  maxTokens: number;
  pooling: Pooling;
  /** Prepended to a query before embedding. */
  queryPrefix: string;
  /** Prepended to a document chunk before embedding. */
  documentPrefix: string;
  /** Approximate download size in bytes, per dtype (weights plus tokenizer). */
  approximateBytes: Record<EmbeddingDtype, number>;
  /** Other ids of the same model (the upstream repository) that resolve to this entry. */
  aliases: string[];
  /** The name the same model has in Ollama's library, when it has one. */
  ollamaName?: string;
  description: string;
}

export const DEFAULT_EMBEDDING_MODEL = "bge-base-en-v1.5";

/** Every model in the catalog is cut to this many tokens; our chunks are about 400. */
export const MAX_EMBEDDING_TOKENS = 512;

const BGE_QUERY_PREFIX = "Represent this sentence for searching relevant passages: ";
const MB = 1_000_000;

export const EMBEDDING_CATALOG: readonly CatalogEntry[] = [
  {
    name: "bge-small-en-v1.5",
    aliases: ["BAAI/bge-small-en-v1.5"],
    repoId: "Xenova/bge-small-en-v1.5",
    dimensions: 384,
    maxTokens: MAX_EMBEDDING_TOKENS,
    pooling: "cls",
    queryPrefix: BGE_QUERY_PREFIX,
    documentPrefix: "",
    approximateBytes: { fp32: 134 * MB, q8: 35 * MB },
    description: "BAAI bge-small: fast, good English retrieval",
  },
  {
    name: "bge-base-en-v1.5",
    aliases: ["BAAI/bge-base-en-v1.5"],
    repoId: "Xenova/bge-base-en-v1.5",
    dimensions: 768,
    maxTokens: MAX_EMBEDDING_TOKENS,
    pooling: "cls",
    queryPrefix: BGE_QUERY_PREFIX,
    documentPrefix: "",
    approximateBytes: { fp32: 438 * MB, q8: 111 * MB },
    description: "BAAI bge-base (default): the balance of quality and speed",
  },
  {
    name: "bge-large-en-v1.5",
    aliases: ["BAAI/bge-large-en-v1.5"],
    repoId: "Xenova/bge-large-en-v1.5",
    dimensions: 1024,
    maxTokens: MAX_EMBEDDING_TOKENS,
    pooling: "cls",
    queryPrefix: BGE_QUERY_PREFIX,
    documentPrefix: "",
    approximateBytes: { fp32: 1_340 * MB, q8: 337 * MB },
    ollamaName: "bge-large",
    description: "BAAI bge-large: best bge quality, about 3x slower than base",
  },
  {
    name: "all-MiniLM-L6-v2",
    aliases: ["sentence-transformers/all-MiniLM-L6-v2"],
    repoId: "Xenova/all-MiniLM-L6-v2",
    dimensions: 384,
    maxTokens: MAX_EMBEDDING_TOKENS,
    pooling: "mean",
    queryPrefix: "",
    documentPrefix: "",
    approximateBytes: { fp32: 91 * MB, q8: 23 * MB },
    ollamaName: "all-minilm",
    description: "sentence-transformers MiniLM: very small and fast (trained on 256 tokens)",
  },
  {
    name: "nomic-embed-text-v1.5",
    aliases: [],
    repoId: "nomic-ai/nomic-embed-text-v1.5",
    dimensions: 768,
    // The model reads 8,192 tokens, but our chunks are short and attention cost grows with length.
    maxTokens: MAX_EMBEDDING_TOKENS,
    pooling: "mean",
    queryPrefix: "search_query: ",
    documentPrefix: "search_document: ",
    approximateBytes: { fp32: 548 * MB, q8: 138 * MB },
    ollamaName: "nomic-embed-text",
    description: "Nomic embed v1.5: long-context model with task prefixes",
  },
  {
    name: "mxbai-embed-large-v1",
    aliases: [],
    repoId: "mixedbread-ai/mxbai-embed-large-v1",
    dimensions: 1024,
    maxTokens: MAX_EMBEDDING_TOKENS,
    pooling: "cls",
    queryPrefix: BGE_QUERY_PREFIX,
    documentPrefix: "",
    approximateBytes: { fp32: 1_340 * MB, q8: 337 * MB },
    ollamaName: "mxbai-embed-large",
    description: "mixedbread large: strong English retrieval with a query prompt",
  },
  {
    name: "multilingual-e5-small",
    aliases: ["intfloat/multilingual-e5-small"],
    repoId: "Xenova/multilingual-e5-small",
    dimensions: 384,
    maxTokens: MAX_EMBEDDING_TOKENS,
    pooling: "mean",
    queryPrefix: "query: ",
    documentPrefix: "passage: ",
    approximateBytes: { fp32: 470 * MB, q8: 118 * MB },
    description: "multilingual E5 small: about 100 languages (Chinese, Japanese, Korean, European), one vector space for all",
  },
];

/** A catalog entry by short name, hub id, alias or Ollama name (case-insensitive). */
export function findCatalogEntry(name: string): CatalogEntry | undefined {
  const wanted = name.trim().toLowerCase();
  const withoutTag = wanted.replace(/:latest$/, "");
  return EMBEDDING_CATALOG.find(
    (entry) =>
      entry.name.toLowerCase() === wanted ||
      entry.repoId.toLowerCase() === wanted ||
      entry.aliases.some((alias) => alias.toLowerCase() === wanted) ||
      entry.ollamaName === withoutTag,
  );
}

/** A remote provider's prefixes for a model: the configured ones, else the catalog's, else none. */
export function modelPrefixes(model: string, overrides: { queryPrefix?: string; documentPrefix?: string } = {}): { queryPrefix: string; documentPrefix: string } {
  const entry = findCatalogEntry(model);
  return { queryPrefix: overrides.queryPrefix ?? entry?.queryPrefix ?? "", documentPrefix: overrides.documentPrefix ?? entry?.documentPrefix ?? "" };
}

/** The entry a local directory holds, judged by its folder name (`.../bge-base-en-v1.5`). */
export function findCatalogEntryByFolderName(folderName: string): CatalogEntry | undefined {
  const wanted = folderName.trim().toLowerCase();
  return EMBEDDING_CATALOG.find((entry) => entry.name.toLowerCase() === wanted);
}

// ---------------------------------------------------------------------------------------------
// Resolving what the user typed (--model, config) into files and settings.

export interface ResolveModelOptions {
  dtype?: EmbeddingDtype;
  /** Overrides for models the catalog does not know (from the config file). */
  pooling?: Pooling;
  queryPrefix?: string;
  documentPrefix?: string;
}

export interface ResolvedModel {
  /** What the user asked for, for messages. */
  spec: string;
  source: "catalog" | "hub" | "directory";
  /** Hub repository to download from; null for a local directory. */
  repoId: string | null;
  /** Absolute path of a local model directory; null for hub models (they live in the cache). */
  directory: string | null;
  entry: CatalogEntry | undefined;
  /** Known from the catalog or the directory's config.json; null until the files are read. */
  dimensions: number | null;
  maxTokens: number;
  pooling: Pooling;
  queryPrefix: string;
  documentPrefix: string;
  dtype: EmbeddingDtype;
  /** The ONNX weights this dtype loads. */
  modelFile: string;
  /** Every file the model needs, in the hub layout. */
  files: string[];
  approximateBytes: number | null;
  /** Set when a setting was guessed for a model the catalog does not know. */
  assumption?: string;
}

export const MODEL_FILE_BY_DTYPE: Record<EmbeddingDtype, string> = { fp32: "onnx/model.onnx", q8: "onnx/model_quantized.onnx" };
export const TOKENIZER_FILES = ["config.json", "tokenizer.json", "tokenizer_config.json"];

const HUB_ID = /^[A-Za-z0-9][A-Za-z0-9._-]*\/[A-Za-z0-9][A-Za-z0-9._-]*$/;

function looksLikePath(spec: string): boolean {
  return path.isAbsolute(spec) || /^(\.{1,2}|~)([\\/]|$)/.test(spec) || /^[A-Za-z]:[\\/]/.test(spec);
}

function readJson(file: string): Record<string, unknown> | undefined {
  try {
    const value: unknown = JSON.parse(fs.readFileSync(file, "utf8"));
    return value !== null && typeof value === "object" ? (value as Record<string, unknown>) : undefined;
  } catch {
    return undefined;
  }
}

/** Pooling a sentence-transformers export declares in `1_Pooling/config.json`, if it has one. */
function declaredPooling(directory: string): Pooling | undefined {
  const config = readJson(path.join(directory, "1_Pooling", "config.json"));
  if (config?.pooling_mode_cls_token === true) return "cls";
  if (config?.pooling_mode_mean_tokens === true) return "mean";
  return undefined;
}

function expandHome(spec: string): string {
  return spec === "~" || spec.startsWith("~/") ? path.join(os.homedir(), spec.slice(1)) : spec;
}

/**
 * Turns a catalog name, a hub model id or a local directory into the files and settings to use.
 * Models the catalog does not know get mean pooling, L2 normalization and no prefixes unless the
 * options say otherwise; `assumption` says so, for the user.
 */
export function resolveModel(spec: string, options: ResolveModelOptions = {}): ResolvedModel {
  const dtype = options.dtype ?? "fp32";
  const modelFile = MODEL_FILE_BY_DTYPE[dtype];
  const files = [...TOKENIZER_FILES, modelFile];
  const trimmed = spec.trim();
  const base = { spec: trimmed, dtype, modelFile, files, maxTokens: MAX_EMBEDDING_TOKENS };

  const fromEntry = (entry: CatalogEntry): Pick<ResolvedModel, "entry" | "dimensions" | "pooling" | "queryPrefix" | "documentPrefix"> => ({
    entry,
    dimensions: entry.dimensions,
    pooling: options.pooling ?? entry.pooling,
    queryPrefix: options.queryPrefix ?? entry.queryPrefix,
    documentPrefix: options.documentPrefix ?? entry.documentPrefix,
  });
  const guessed = (pooling: Pooling | undefined, what: string): Pick<ResolvedModel, "pooling" | "queryPrefix" | "documentPrefix" | "assumption"> => {
    const chosen = options.pooling ?? pooling ?? "mean";
    const assumption =
      options.pooling === undefined && pooling === undefined
        ? `${what} is not in the catalog: using mean pooling, L2 normalization and no prefixes. If its model card says otherwise, set embedding.pooling (cls or mean), embedding.queryPrefix and embedding.documentPrefix in the settings.`
        : undefined;
    return { pooling: chosen, queryPrefix: options.queryPrefix ?? "", documentPrefix: options.documentPrefix ?? "", ...(assumption === undefined ? {} : { assumption }) };
  };

  if (!looksLikePath(trimmed)) {
    const entry = findCatalogEntry(trimmed);
    if (entry !== undefined) {
      return { ...base, source: "catalog", repoId: entry.repoId, directory: null, approximateBytes: entry.approximateBytes[dtype], ...fromEntry(entry) };
    }
  }

  const candidate = path.resolve(expandHome(trimmed));
  if (looksLikePath(trimmed) || (fs.existsSync(candidate) && fs.statSync(candidate).isDirectory())) {
    const entry = findCatalogEntryByFolderName(path.basename(candidate));
    const hiddenSize = readJson(path.join(candidate, "config.json"))?.hidden_size;
    const dimensions = typeof hiddenSize === "number" ? hiddenSize : (entry?.dimensions ?? null);
    const settings = entry !== undefined ? fromEntry(entry) : { entry: undefined, ...guessed(declaredPooling(candidate), `The model in ${candidate}`) };
    return { ...base, source: "directory", repoId: null, directory: candidate, approximateBytes: null, ...settings, dimensions };
  }

  if (HUB_ID.test(trimmed)) {
    return { ...base, source: "hub", repoId: trimmed, directory: null, entry: undefined, dimensions: null, approximateBytes: null, ...guessed(undefined, `"${trimmed}"`) };
  }

  const names = EMBEDDING_CATALOG.map((entry) => entry.name).join(", ");
  throw new ChunkpadError(
    "INVALID_ARGUMENT",
    `"${spec}" is not a known embedding model. Use a catalog name (${names}), a hub model id (owner/name), or a path to a local model directory.`,
  );
}
