import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import { createRequire } from "node:module";
import type { Worker } from "node:worker_threads";
import { spawnModuleWorker } from "../core/spawn-worker.js";
import { ChunkpadError } from "../core/errors.js";
import { assertInstalled } from "../core/optional-module.js";
import type { Embedder, ModelStatus } from "../core/types.js";
import type { ResolvedModel } from "./catalog.js";
import { embeddingFingerprint } from "./fingerprint.js";
// Imported when a model loads in this thread: a keyword search loads no model code (cli-start.test.ts).
import type { DirectModel } from "./onnx-direct.js";
import type { OnnxWorkerData, OnnxWorkerReply, OnnxWorkerRequest } from "./onnx-worker-protocol.js";

/** Padding waste grows with batch size; on CPU, batching barely helps (see models/README). */
export const DEFAULT_BATCH_SIZE = 8;
/** Two intra-op threads gave about 1.9x one thread on a 2-core machine; past 4 the gain is small. */
export const MAX_INTRA_OP_THREADS = 4;

export interface LocalOnnxOptions {
  /** The model's files on disk, in the hub layout. */
  modelDirectory: string;
  /** Settings from resolveModel: pooling, prefixes, dtype, maxTokens. */
  model: ResolvedModel;
  threads?: number;
  batchSize?: number;
  /** Where to keep V8's compiled code for transformers.js between loads (a cache: any folder of ours). */
  codeCacheDirectory?: string;
  /** "transformers" runs every model through transformers.js's pipeline; by default a BERT model runs directly, with the same vectors (onnx-direct.ts). */
  runtime?: "direct" | "transformers";
  /**
   * "caller": a model that runs directly (onnx-direct.ts) loads and runs in the calling thread, not
   * in a worker: a worker thread's start costs about 50–90 ms of CPU, which a one-off command that
   * embeds one query pays for nothing; loading then blocks the caller. Other models still run in a
   * worker. Default "worker".
   */
  thread?: "worker" | "caller";
  onStatus?: (status: ModelStatus) => void;
}

export interface LocalOnnxEmbedder extends Embedder {
  /** Starts the worker and loads the model (loading → ready); the first embed call does it too. */
  load(): Promise<void>;
  /** What runs the model once loaded: "direct" (its tokenizer and ONNX Runtime) or "transformers" (the pipeline); null before. */
  readonly runtime: "direct" | "transformers" | null;
}

interface Pending {
  resolve: (vectors: Float32Array[]) => void;
  reject: (error: Error) => void;
}

function startWorker(workerData: OnnxWorkerData): Worker {
  return spawnModuleWorker(import.meta.url, "onnx-worker", { workerData });
}

function hiddenSize(modelDirectory: string): number | null {
  try {
    const config = JSON.parse(fs.readFileSync(path.join(modelDirectory, "config.json"), "utf8")) as { hidden_size?: unknown };
    return typeof config.hidden_size === "number" ? config.hidden_size : null;
  } catch {
    return null;
  }
}

/** transformers.js finds a model as `{localModelPath}/{name}` when the name is a plain id, else by path. */
function modelLocation(modelDirectory: string): { modelRoot: string; modelName: string } {
  const absolute = path.resolve(modelDirectory);
  const name = path.basename(absolute);
  const plain = /^[A-Za-z0-9][A-Za-z0-9._-]*$/.test(name) && !name.includes("--") && !name.includes("..");
  return { modelRoot: path.dirname(absolute), modelName: plain ? name : absolute };
}

/** The local embedder: the model in a worker thread (or, when asked, a BERT model in the caller's). */
export function createLocalOnnxEmbedder(options: LocalOnnxOptions): LocalOnnxEmbedder {
  const { model } = options;
  const report = options.onStatus ?? (() => undefined);
  let runtime: "direct" | "transformers" | null = null;
  let dimensions = hiddenSize(options.modelDirectory) ?? model.dimensions ?? 0;
  const workerData: OnnxWorkerData = {
    ...modelLocation(options.modelDirectory),
    dtype: model.dtype,
    pooling: model.pooling,
    maxTokens: model.maxTokens,
    threads: options.threads ?? Math.max(1, Math.min(MAX_INTRA_OP_THREADS, os.availableParallelism())),
    batchSize: options.batchSize ?? DEFAULT_BATCH_SIZE,
    ...(options.codeCacheDirectory === undefined ? {} : { codeCacheDirectory: options.codeCacheDirectory }),
    ...(options.runtime === "transformers" ? { runtime: "transformers" as const } : {}),
  };

  let worker: Worker | undefined;
  let loading: Promise<Worker> | undefined;
  let nextId = 1;
  const pending = new Map<number, Pending>();

  const loadError = (detail: string): ChunkpadError => {
    loadingReported = false;
    const error = new ChunkpadError(
      "MODEL_LOAD_FAILED",
      `Could not load the embedding model from ${options.modelDirectory}: ${detail}. If the files are damaged, delete that folder and embed again to download the model again.`,
    );
    report({ state: "error", message: error.message });
    return error;
  };

  // In the caller's thread (options.thread): the direct model, or null when it runs in a worker after all.
  let inThread: Promise<DirectModel | null> | undefined;
  const loadInThread = (): Promise<DirectModel | null> => {
    if (options.thread !== "caller" || options.runtime === "transformers") return Promise.resolve(null);
    inThread ??= (async () => {
      report({ state: "loading" });
      loadingReported = true;
      try {
        const { modelRoot, modelName } = workerData;
        const modelDirectory = path.isAbsolute(modelName) ? modelName : path.join(modelRoot, modelName);
        const transformersPath = createRequire(import.meta.url).resolve("@huggingface/transformers");
        const { loadDirectModel } = await import("./onnx-direct.js");
        const direct = await loadDirectModel({ modelDirectory, dtype: model.dtype, pooling: model.pooling, maxTokens: model.maxTokens, threads: workerData.threads }, transformersPath);
        if (direct !== null) {
          runtime = "direct";
          report({ state: "ready" });
        }
        return direct;
      } catch (error) {
        inThread = undefined;
        throw loadError(error instanceof Error ? error.message : String(error));
      }
    })();
    return inThread;
  };

  const failAll = (error: Error): void => {
    for (const request of pending.values()) request.reject(error);
    pending.clear();
  };

  let loadingReported = false;
  const start = (): Promise<Worker> =>
    new Promise<Worker>((resolve, reject) => {
      if (!loadingReported) report({ state: "loading" });
      loadingReported = true;
      const started = startWorker(workerData);
      let ready = false;
      let failed = false;
      const loadFailed = (detail: string): void => {
        if (failed) return;
        failed = true;
        const error = loadError(detail);
        loading = undefined;
        void started.terminate();
        reject(error);
      };
      started.on("message", (reply: OnnxWorkerReply) => {
        if (reply.type === "ready") {
          ready = true;
          if (reply.dimensions > 0) dimensions = reply.dimensions;
          runtime = reply.runtime;
          worker = started;
          started.unref(); // an idle embedder never keeps the process alive
          report({ state: "ready" });
          resolve(started);
        } else if (reply.type === "load-error") {
          loadFailed(reply.message);
        } else {
          const request = pending.get(reply.id);
          pending.delete(reply.id);
          if (pending.size === 0) started.unref();
          if (reply.type === "vectors") request?.resolve(reply.vectors);
          else request?.reject(new ChunkpadError("EMBEDDING_FAILED", `The embedding model failed: ${reply.message}.`));
        }
      });
      started.on("error", (error) => {
        if (!ready) return loadFailed(error.message);
        failAll(new ChunkpadError("EMBEDDING_FAILED", `The embedding worker crashed: ${error.message}. Run the command again.`, { cause: error, isRetryable: true }));
      });
      started.on("exit", (code) => {
        if (worker === started) worker = undefined;
        if (loading !== undefined && worker === undefined) loading = undefined;
        if (!ready) return loadFailed(`the worker stopped (exit code ${code})`);
        failAll(new ChunkpadError("EMBEDDING_FAILED", `The embedding worker stopped (exit code ${code}). Run the command again.`, { isRetryable: true }));
      });
    });

  const load = async (): Promise<Worker | DirectModel> => {
    // Said before a worker starts: a missing runtime is an install matter, not a damaged model.
    assertInstalled("@huggingface/transformers", "onnxruntime-node");
    const direct = await loadInThread();
    if (direct !== null) return direct;
    loading ??= start();
    return loading;
  };

  const embed = async (texts: string[]): Promise<Float32Array[]> => {
    if (texts.length === 0) return [];
    const running = await load();
    if (!("postMessage" in running)) {
      const { embedInBatches } = await import("./onnx-direct.js");
      try {
        return await embedInBatches((batch) => running.embedBatch(batch), texts, workerData.batchSize);
      } catch (error) {
        throw new ChunkpadError("EMBEDDING_FAILED", `The embedding model failed: ${error instanceof Error ? error.message : String(error)}.`);
      }
    }
    const id = nextId++;
    const request: OnnxWorkerRequest = { type: "embed", id, texts };
    return new Promise<Float32Array[]>((resolve, reject) => {
      pending.set(id, { resolve, reject });
      running.ref();
      running.postMessage(request);
    });
  };

  return {
    get dimensions() {
      return dimensions;
    },
    get runtime() {
      return runtime;
    },
    maxTokens: model.maxTokens,
    fingerprint: embeddingFingerprint({
      provider: "local",
      model: model.repoId ?? model.directory ?? model.spec,
      dtype: model.dtype,
      pooling: model.pooling,
      normalize: true,
      queryPrefix: model.queryPrefix,
      documentPrefix: model.documentPrefix,
      maxTokens: model.maxTokens,
    }),
    async load() {
      await load();
    },
    embedDocuments: (texts) => embed(texts.map((text) => model.documentPrefix + text)),
    async embedQuery(text) {
      const [vector] = await embed([model.queryPrefix + text]);
      if (vector === undefined) throw new ChunkpadError("EMBEDDING_FAILED", "The embedding model returned no vector for the query.");
      return vector;
    },
    async close() {
      const direct = await inThread?.catch(() => null);
      inThread = undefined;
      await direct?.release();
      const running = worker ?? (loading === undefined ? undefined : await loading.catch(() => undefined));
      worker = undefined;
      loading = undefined;
      failAll(new ChunkpadError("CANCELLED", "The embedder was closed."));
      await running?.terminate();
    },
  };
}
