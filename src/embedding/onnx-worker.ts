import { parentPort, workerData } from "node:worker_threads";
import type { FeatureExtractionPipeline, Tensor } from "@huggingface/transformers";
import type { OnnxWorkerData, OnnxWorkerReply, OnnxWorkerRequest } from "./onnx-worker-protocol.js";
import { loadTransformersForText } from "./transformers-for-text.js";

/**
 * Runs the local embedding model off the main thread: loads once, then tokenizes, runs and
 * pools batches on request. Errors travel back as messages.
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

// Loaded without its image library (about 200 ms of CPU a load less), compiled from the code cache; only in this worker.
const loaded = port === null ? null : loadTransformersForText(settings.codeCacheDirectory);
const { env, mean_pooling, pipeline } = loaded?.transformers ?? ({} as NonNullable<typeof loaded>["transformers"]);

async function embedBatch(extractor: FeatureExtractionPipeline, texts: string[]): Promise<Float32Array[]> {
  const inputs = extractor.tokenizer(texts, { padding: true, truncation: true, max_length: settings.maxTokens });
  const outputs = (await extractor.model(inputs)) as { last_hidden_state: Tensor };
  const hidden = outputs.last_hidden_state;
  const pooled = (settings.pooling === "cls" ? hidden.slice(null, 0) : mean_pooling(hidden, inputs.attention_mask as Tensor)).normalize(2, -1);
  const dimensions = pooled.dims[1] ?? 0;
  const data = pooled.data as Float32Array;
  return texts.map((_, row) => data.slice(row * dimensions, (row + 1) * dimensions));
}

/** Batches texts of similar length together, so short texts are not padded to the longest. */
async function embedAll(extractor: FeatureExtractionPipeline, texts: string[]): Promise<Float32Array[]> {
  const order = texts.map((_, index) => index).sort((a, b) => (texts[a]?.length ?? 0) - (texts[b]?.length ?? 0));
  const vectors = new Array<Float32Array>(texts.length);
  for (let start = 0; start < order.length; start += settings.batchSize) {
    const indexes = order.slice(start, start + settings.batchSize);
    const batch = await embedBatch(extractor, indexes.map((index) => texts[index] ?? ""));
    indexes.forEach((index, row) => {
      vectors[index] = batch[row] ?? new Float32Array();
    });
  }
  return vectors;
}

async function main(): Promise<void> {
  // Our hub code downloads; transformers.js must only ever read the files already on disk.
  env.allowRemoteModels = false;
  env.allowLocalModels = true;
  env.localModelPath = settings.modelRoot;
  env.useFSCache = false;

  let extractor: FeatureExtractionPipeline;
  let dimensions: number;
  try {
    extractor = (await pipeline("feature-extraction", settings.modelName, {
      dtype: settings.dtype,
      local_files_only: true,
      session_options: { intraOpNumThreads: settings.threads, interOpNumThreads: 1 },
    })) as FeatureExtractionPipeline;
    dimensions = (await embedBatch(extractor, ["warm up"]))[0]?.length ?? 0;
    // Once the model has run, the cache holds what loading and embedding compiled.
    loaded?.saveCodeCache();
  } catch (error) {
    post({ type: "load-error", message: message(error) });
    return;
  }
  post({ type: "ready", dimensions });

  // One request at a time: concurrent runs would only fight over the same cores.
  let queue = Promise.resolve();
  port?.on("message", (request: OnnxWorkerRequest) => {
    queue = queue.then(async () => {
      try {
        post({ type: "vectors", id: request.id, vectors: await embedAll(extractor, request.texts) });
      } catch (error) {
        post({ type: "embed-error", id: request.id, message: message(error) });
      }
    });
  });
}

// Imported anywhere but in its own worker thread, this module does nothing.
if (port !== null && settings !== null && settings !== undefined) void main();
