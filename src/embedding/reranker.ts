import path from "node:path";
import type { ModelStatus } from "../core/types.js";
import { ChunkpadError, describeError } from "../core/errors.js";
import { assertInstalled, importOptional } from "../core/optional-module.js";
import { resolveModel, type EmbeddingDtype } from "./catalog.js";
import { ensureModelAvailable, type ModelConsentRequest } from "./ensure-model.js";
import { findRerankEntry } from "./rerank-catalog.js";

/**
 * A cross-encoder: reads the question and a passage together and gives one relevance logit,
 * which ranks better than comparing two separately made vectors, at a cost per passage. Used
 * on the top few results only (the rerank stage of search), loaded in this thread with
 * transformers.js from files our hub code downloaded (it never fetches anything itself).
 */

export interface Reranker {
  /** The hub id or directory of the model. */
  readonly model: string;
  /** One relevance logit per passage, in order (higher is more relevant). */
  score(query: string, passages: readonly string[]): Promise<number[]>;
  close(): Promise<void>;
}

export interface RerankerConfig {
  /** Catalog name, hub id or a local model directory. */
  model: string;
  dtype: EmbeddingDtype;
  cacheDir: string;
  hubUrl: string;
  fetch?: typeof fetch;
  /** ONNX Runtime intra-op threads (default 2). */
  threads?: number;
}

export interface CreateRerankerOptions {
  /** Search may download the model only after the user agreed (a prompt or --yes). */
  allowDownload?: boolean;
  consent?: (request: ModelConsentRequest) => Promise<boolean>;
  onStatus?: (status: ModelStatus) => void;
  signal?: AbortSignal;
}

/** Tokens of question and passage together the model reads; longer passages are cut. */
const MAX_PAIR_TOKENS = 512;

interface SequenceClassifier {
  (inputs: unknown): Promise<{ logits: { data: ArrayLike<number>; dims: number[] } }>;
  dispose?(): Promise<unknown>;
}

export async function createReranker(config: RerankerConfig, options: CreateRerankerOptions = {}): Promise<Reranker> {
  const entry = findRerankEntry(config.model);
  const spec = entry?.repoId ?? config.model;
  assertInstalled("@huggingface/transformers", "onnxruntime-node");
  const directory = await ensureModelAvailable({
    model: spec,
    dtype: config.dtype,
    cacheDir: config.cacheDir,
    hubUrl: config.hubUrl,
    allowDownload: options.allowDownload ?? false,
    label: "rerank model",
    approximateBytes: entry ? entry.approximateBytes[config.dtype] : null,
    downloadSteps: [{ action: "download-model", model: "rerank" }, { action: "change-setting", key: "search.rerank", value: "off" }],
    ...(config.fetch === undefined ? {} : { fetch: config.fetch }),
    ...(options.consent === undefined ? {} : { consent: options.consent }),
    ...(options.onStatus === undefined ? {} : { onStatus: options.onStatus }),
    ...(options.signal === undefined ? {} : { signal: options.signal }),
  });
  const { AutoModelForSequenceClassification, AutoTokenizer, env } = await importOptional("@huggingface/transformers", () => import("@huggingface/transformers"));
  // Our hub code downloads; transformers.js only reads the directory it is given.
  env.allowRemoteModels = false;
  env.allowLocalModels = true;
  env.useFSCache = false;
  const absolute = path.resolve(directory);
  env.localModelPath = path.dirname(absolute);
  const name = path.basename(absolute);
  let tokenizer: Awaited<ReturnType<typeof AutoTokenizer.from_pretrained>>;
  let model: SequenceClassifier;
  try {
    tokenizer = await AutoTokenizer.from_pretrained(name, { local_files_only: true });
    model = (await AutoModelForSequenceClassification.from_pretrained(name, {
      dtype: config.dtype,
      local_files_only: true,
      session_options: { intraOpNumThreads: config.threads ?? 2, interOpNumThreads: 1 },
    })) as unknown as SequenceClassifier;
  } catch (error) {
    throw new ChunkpadError("MODEL_LOAD_FAILED", `The rerank model in ${absolute} could not be loaded: ${describeError(error)}. It needs config.json, tokenizer.json, tokenizer_config.json and an ONNX cross-encoder with a "logits" output.`);
  }
  return {
    model: resolveModel(spec, { dtype: config.dtype }).repoId ?? absolute,
    async score(query, passages) {
      if (passages.length === 0) return [];
      const inputs = tokenizer(passages.map(() => query), { text_pair: [...passages], padding: true, truncation: true, max_length: MAX_PAIR_TOKENS });
      const { logits } = await model(inputs);
      // One logit per pair ([n, 1]); a two-label model's "relevant" logit is the last.
      const width = logits.dims[1] ?? 1;
      return passages.map((_, row) => Number(logits.data[row * width + width - 1]));
    },
    async close() {
      await model.dispose?.();
    },
  };
}
