import { createRequire } from "node:module";
import path from "node:path";
import { parentPort, workerData } from "node:worker_threads";
import type { FeatureExtractionPipeline, Tensor } from "@huggingface/transformers";
import type { OnnxWorkerData, OnnxWorkerReply, OnnxWorkerRequest } from "./onnx-worker-protocol.js";
import { loadTransformersForText, type TextTransformers } from "./transformers-for-text.js";
import { embedInBatches, loadDirectModel, type DirectModel } from "./onnx-direct.js";

/**
 * Runs the local embedding model off the main thread: loads once, then tokenizes, runs and
 * pools batches on request. Errors travel back as messages. A BERT model runs directly on its
 * tokenizer and ONNX Runtime (onnx-direct.ts: the pipeline's vectors, without loading
 * transformers.js); any other through transformers.js's pipeline.
 */

const settings = workerData as OnnxWorkerData;
const port = parentPort;

function post(reply: OnnxWorkerReply): void {
  const transfer = reply.type === "vectors" ? reply.vectors.map((vector) => vector.buffer as ArrayBuffer) : [];
  port?.postMessage(reply, transfer);
}

function message(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}

async function pipelineBatch(transformers: TextTransformers["transformers"], extractor: FeatureExtractionPipeline, texts: string[]): Promise<Float32Array[]> {
  const inputs = extractor.tokenizer(texts, { padding: true, truncation: true, max_length: settings.maxTokens });
  const outputs = (await extractor.model(inputs)) as { last_hidden_state: Tensor };
  const hidden = outputs.last_hidden_state;
  const pooled = (settings.pooling === "cls" ? hidden.slice(null, 0) : transformers.mean_pooling(hidden, inputs.attention_mask as Tensor)).normalize(2, -1);
  const dimensions = pooled.dims[1] ?? 0;
  const data = pooled.data as Float32Array;
  return texts.map((_, row) => data.slice(row * dimensions, (row + 1) * dimensions));
}

/** transformers.js's feature-extraction pipeline: loaded without its image library (about 200 ms of CPU a load less), compiled from the code cache. */
async function loadPipeline(): Promise<{ embedBatch: (texts: string[]) => Promise<Float32Array[]>; saveCodeCache: () => void }> {
  const loaded = loadTransformersForText(settings.codeCacheDirectory);
  const { transformers } = loaded;
  // Our hub code downloads; transformers.js must only ever read the files already on disk.
  transformers.env.allowRemoteModels = false;
  transformers.env.allowLocalModels = true;
  transformers.env.localModelPath = settings.modelRoot;
  transformers.env.useFSCache = false;
  const extractor = (await transformers.pipeline("feature-extraction", settings.modelName, {
    dtype: settings.dtype,
    local_files_only: true,
    session_options: { intraOpNumThreads: settings.threads, interOpNumThreads: 1 },
  })) as FeatureExtractionPipeline;
  return { embedBatch: (texts) => pipelineBatch(transformers, extractor, texts), saveCodeCache: () => loaded.saveCodeCache() };
}

/** The model run directly when it is one onnx-direct.ts reproduces (and the pipeline was not asked for), else null. */
async function loadDirect(): Promise<DirectModel | null> {
  if (settings.runtime === "transformers") return null;
  const transformersPath = createRequire(import.meta.url).resolve("@huggingface/transformers");
  const modelDirectory = path.isAbsolute(settings.modelName) ? settings.modelName : path.join(settings.modelRoot, settings.modelName);
  return loadDirectModel({ modelDirectory, dtype: settings.dtype, pooling: settings.pooling, maxTokens: settings.maxTokens, threads: settings.threads }, transformersPath);
}

async function main(): Promise<void> {
  let embedBatch: (texts: string[]) => Promise<Float32Array[]>;
  let dimensions: number;
  let runtime: "direct" | "transformers";
  try {
    const direct = await loadDirect();
    const pipeline = direct === null ? await loadPipeline() : null;
    runtime = direct === null ? "transformers" : "direct";
    embedBatch = pipeline?.embedBatch ?? ((texts) => (direct as DirectModel).embedBatch(texts));
    dimensions = (await embedBatch(["warm up"]))[0]?.length ?? 0;
    // Once the model has run, the cache holds what loading and embedding compiled.
    pipeline?.saveCodeCache();
  } catch (error) {
    post({ type: "load-error", message: message(error) });
    return;
  }
  post({ type: "ready", dimensions, runtime });

  // One request at a time: concurrent runs would only fight over the same cores.
  let queue = Promise.resolve();
  port?.on("message", (request: OnnxWorkerRequest) => {
    queue = queue.then(async () => {
      try {
        post({ type: "vectors", id: request.id, vectors: await embedInBatches(embedBatch, request.texts, settings.batchSize) });
      } catch (error) {
        post({ type: "embed-error", id: request.id, message: message(error) });
      }
    });
  });
}

// Imported anywhere but in its own worker thread, this module does nothing.
if (port !== null && settings !== null && settings !== undefined) void main();
