import type { Pooling, EmbeddingDtype } from "./catalog.js";

/** What the ONNX worker is started with (workerData). */
export interface OnnxWorkerData {
  /** transformers.js env.localModelPath: the parent of the model directory. */
  modelRoot: string;
  /** The model directory's name under modelRoot, or its absolute path. */
  modelName: string;
  dtype: EmbeddingDtype;
  pooling: Pooling;
  maxTokens: number;
  /** ONNX Runtime intra-op threads. */
  threads: number;
  /** Texts per inference run. */
  batchSize: number;
  /** Where V8's compiled code for transformers.js is kept between loads (none: compiled at every load). */
  codeCacheDirectory?: string;
  /** "transformers": always through transformers.js's pipeline (to compare); by default a BERT model runs directly (onnx-direct.ts). */
  runtime?: "transformers";
}

export type OnnxWorkerRequest = { type: "embed"; id: number; texts: string[] };

export type OnnxWorkerReply =
  | { type: "ready"; dimensions: number; runtime: "direct" | "transformers" }
  | { type: "load-error"; message: string }
  | { type: "vectors"; id: number; vectors: Float32Array[] }
  | { type: "embed-error"; id: number; message: string };
