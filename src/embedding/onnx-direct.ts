import fs from "node:fs";
import { createRequire } from "node:module";
import path from "node:path";
import type { Tokenizer } from "@huggingface/tokenizers";
import type * as Ort from "onnxruntime-node";
import type { EmbeddingDtype, Pooling } from "./catalog.js";

/**
 * The local embedding model run without transformers.js: its tokenizer library and
 * onnxruntime-node called directly, doing what transformers.js's feature-extraction pipeline does
 * for a BERT model (the same files, session options, token ids, padding, truncation, pooling and
 * normalisation, to the bit). Loading transformers.js costs more than the rest of a query model's
 * load (about 60–90 ms of CPU with its code cache), which a one-off vector search pays for one
 * query (issue 22). Only models whose every step this reproduces are run here: anything else
 * (another tokenizer class or model type, transformers.js settings in config.json, another input)
 * is left to the pipeline.
 */

export interface DirectModelSettings {
  /** The model directory (the hub layout: config.json, tokenizer files, onnx/). */
  modelDirectory: string;
  dtype: EmbeddingDtype;
  pooling: Pooling;
  maxTokens: number;
  threads: number;
}

export interface DirectModel {
  /** One batch: tokenized together (padded to its longest text), run once, pooled and L2-normalised. */
  embedBatch(texts: string[]): Promise<Float32Array[]>;
  /** Frees the ONNX session. */
  release(): Promise<void>;
}

/** transformers.js's file suffix for each dtype (DEFAULT_DTYPE_SUFFIX_MAPPING). */
const DTYPE_SUFFIX: Record<EmbeddingDtype, string> = { fp32: "", q8: "_quantized" };
/** transformers.js's log level WARNING, as ONNX Runtime's severity (getOnnxLogSeverityLevel). */
const LOG_SEVERITY_WARNING = 3;
const INPUTS = new Set(["input_ids", "attention_mask", "token_type_ids"]);

type Json = Record<string, unknown>;

function readJson(file: string): Json | null {
  try {
    const value = JSON.parse(fs.readFileSync(file, "utf8")) as unknown;
    return value !== null && typeof value === "object" && !Array.isArray(value) ? (value as Json) : null;
  } catch {
    return null;
  }
}

/** A special token's text from the tokenizer config, as transformers.js reads it (getTokenFromConfig); undefined when it cannot be read. */
function tokenFromConfig(config: Json, ...keys: string[]): string | null | undefined {
  for (const key of keys) {
    if (!Object.hasOwn(config, key)) continue;
    const item = config[key];
    if (!item) continue;
    if (typeof item === "string") return item;
    if (typeof item === "object" && (item as Json).__type === "AddedToken" && typeof (item as Json).content === "string") return (item as Json).content as string;
    return undefined;
  }
  return null;
}

/**
 * Loads the model to run directly, or null when it is not one this file reproduces exactly (the
 * caller then uses transformers.js's pipeline, which also reports missing or damaged files).
 * `runtimeFrom` is the module transformers.js is loaded from: its tokenizer library and ONNX
 * Runtime are the ones it would use.
 */
export async function loadDirectModel(settings: DirectModelSettings, runtimeFrom: string): Promise<DirectModel | null> {
  const directory = settings.modelDirectory;
  const config = readJson(path.join(directory, "config.json"));
  const tokenizerJson = readJson(path.join(directory, "tokenizer.json"));
  const tokenizerConfig = readJson(path.join(directory, "tokenizer_config.json"));
  const modelFile = path.join(directory, "onnx", `model${DTYPE_SUFFIX[settings.dtype]}.onnx`);
  if (config === null || tokenizerJson === null || tokenizerConfig === null || !fs.existsSync(modelFile)) return null;
  // BertModel through encoder_forward, BertTokenizer (token type ids on): what every catalogue model is.
  if (config.model_type !== "bert" || config["transformers.js_config"] !== undefined || tokenizerConfig.tokenizer_class !== "BertTokenizer") return null;
  const paddingSide = tokenizerConfig.padding_side ?? "right";
  if (paddingSide !== "right" && paddingSide !== "left") return null;
  const modelMaxLength = typeof tokenizerConfig.model_max_length === "number" ? tokenizerConfig.model_max_length : Infinity;

  const require = createRequire(runtimeFrom);
  const { Tokenizer: TokenizerClass } = require("@huggingface/tokenizers") as { Tokenizer: new (json: object, config: object) => Tokenizer };
  const tokenizer = new TokenizerClass(tokenizerJson, tokenizerConfig);
  const padToken = tokenFromConfig(tokenizerConfig, "pad_token", "eos_token");
  const padId = typeof padToken === "string" ? tokenizer.token_to_id(padToken) : undefined;
  if (padId === undefined) return null;

  const ort = require("onnxruntime-node") as typeof Ort;
  const session = await ort.InferenceSession.create(modelFile, {
    logSeverityLevel: LOG_SEVERITY_WARNING,
    intraOpNumThreads: settings.threads,
    interOpNumThreads: 1,
    executionProviders: ["cpu"],
  });
  if (!session.inputNames.includes("input_ids") || session.inputNames.some((name) => !INPUTS.has(name)) || !session.outputNames.includes("last_hidden_state")) {
    await session.release();
    return null;
  }

  const tensor = (rows: number[][], width: number) => new ort.Tensor("int64", BigInt64Array.from(rows.flat().map(BigInt)), [rows.length, width]);

  return {
    async embedBatch(texts) {
      // The tokenizer's call with padding and truncation (PreTrainedTokenizer._call).
      const encoded = texts.map((text) => tokenizer.encode(text, { text_pair: null, add_special_tokens: true, return_token_type_ids: true }));
      const width = Math.min(Math.max(...encoded.map((encoding) => encoding.ids.length)), settings.maxTokens, modelMaxLength);
      const fit = (values: number[], pad: number): number[] => {
        if (values.length >= width) return values.slice(0, width);
        const padding = new Array<number>(width - values.length).fill(pad);
        return paddingSide === "right" ? [...values, ...padding] : [...padding, ...values];
      };
      const ids = encoded.map((encoding) => fit(encoding.ids, padId));
      const mask = encoded.map((encoding) => fit(encoding.attention_mask, 0));
      const feeds: Record<string, Ort.Tensor> = { input_ids: tensor(ids, width) };
      if (session.inputNames.includes("attention_mask")) feeds.attention_mask = tensor(mask, width);
      if (session.inputNames.includes("token_type_ids")) {
        // transformers.js passes the tokenizer's type ids, or zeros when it gave none.
        feeds.token_type_ids = tensor(encoded.map((encoding) => fit(encoding.token_type_ids ?? new Array<number>(encoding.ids.length).fill(0), 0)), width);
      }
      const outputs = await session.run(feeds);
      const hidden = outputs.last_hidden_state as Ort.Tensor;
      const [batch = 0, length = 0, dimensions = 0] = hidden.dims;
      const data = hidden.data as Float32Array;
      const vectors: Float32Array[] = [];
      for (let row = 0; row < batch; row++) {
        const vector = settings.pooling === "cls" ? data.slice(row * length * dimensions, row * length * dimensions + dimensions) : meanOf(data, mask[row] ?? [], row, length, dimensions);
        vectors.push(normalized(vector));
      }
      return vectors;
    },
    release: () => session.release(),
  };
}

/** Embeds texts in batches of similar length (sorted by length, so short texts are not padded to the longest), in the caller's order. */
export async function embedInBatches(embedBatch: (texts: string[]) => Promise<Float32Array[]>, texts: string[], batchSize: number): Promise<Float32Array[]> {
  const order = texts.map((_, index) => index).sort((a, b) => (texts[a]?.length ?? 0) - (texts[b]?.length ?? 0));
  const vectors = new Array<Float32Array>(texts.length);
  for (let start = 0; start < order.length; start += batchSize) {
    const indexes = order.slice(start, start + batchSize);
    const batch = await embedBatch(indexes.map((index) => texts[index] ?? ""));
    indexes.forEach((index, row) => {
      vectors[index] = batch[row] ?? new Float32Array();
    });
  }
  return vectors;
}

/** transformers.js's mean_pooling for one row: sums in doubles, over the tokens the mask keeps. */
function meanOf(data: Float32Array, mask: number[], row: number, length: number, dimensions: number): Float32Array {
  const vector = new Float32Array(dimensions);
  const offset = row * dimensions * length;
  for (let k = 0; k < dimensions; k++) {
    let sum = 0;
    let count = 0;
    for (let j = 0; j < length; j++) {
      const attention = mask[j] ?? 0;
      count += attention;
      sum += (data[offset + k + j * dimensions] ?? 0) * attention;
    }
    vector[k] = sum / count;
  }
  return vector;
}

/** transformers.js's Tensor.normalize(2, -1) for one row: the sum of squares kept in float32 at each step, as its reduce does. */
function normalized(vector: Float32Array): Float32Array {
  let sum = 0;
  for (const value of vector) sum = Math.fround(sum + value ** 2);
  const norm = Math.fround(sum ** (1 / 2));
  for (let index = 0; index < vector.length; index++) vector[index] = (vector[index] ?? 0) / norm;
  return vector;
}
