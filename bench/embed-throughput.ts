/**
 * Embedding throughput: Chunkpad's local embedder (worker thread, transformers.js) against raw
 * onnxruntime-node on the same model and the same tokenized inputs. Prints figures, asserts nothing.
 *
 *   npx tsx bench/embed-throughput.ts /tmp/bert-base [--chunks 32] [--threads 2] [--batch 8] [--dtypes fp32,q8] [--rounds 2]
 *
 * Make a bge-base-shaped model first (see ../shared/models/README.md):
 *   /usr/bin/python3 ../shared/models/make_model.py /tmp/bert-base 12 768 12 3072 30522
 *   /usr/bin/python3 ../shared/models/quantize.py /tmp/bert-base/onnx/model.onnx /tmp/bert-base/onnx/model_quantized.onnx
 */
import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import { performance } from "node:perf_hooks";
import { parseArgs } from "node:util";
import { AutoTokenizer, env, type PreTrainedTokenizer, type Tensor } from "@huggingface/transformers";
import * as ort from "onnxruntime-node";
import { resolveModel, type EmbeddingDtype } from "../src/embedding/catalog.js";
import { createLocalOnnxEmbedder } from "../src/embedding/local-onnx.js";

const { values, positionals } = parseArgs({
  allowPositionals: true,
  options: {
    chunks: { type: "string", default: "32" },
    threads: { type: "string", default: String(Math.min(4, os.availableParallelism())) },
    batch: { type: "string", default: "8" },
    dtypes: { type: "string", default: "fp32,q8" },
    rounds: { type: "string", default: "2" },
  },
});

const modelDirectory = path.resolve(positionals[0] ?? "/tmp/bert-base");
const chunkCount = Number(values.chunks);
const threads = Number(values.threads);
const batchSize = Number(values.batch);
const dtypes = values.dtypes.split(",") as EmbeddingDtype[];
/** Passes over the chunks; more passes smooth out a shared machine's noise. */
const rounds = Number(values.rounds);
const MAX_TOKENS = 512;
const TARGET_TOKENS = { min: 300, max: 400 };

/** ~300-400-token chunks of real prose: the CISI abstracts, whole sentences. */
function buildChunks(tokenizer: PreTrainedTokenizer): string[] {
  const raw = fs.readFileSync(path.resolve("../shared/ir/cisi/CISI.ALL"), "utf8");
  const abstracts = raw.split(/^\.W\s*$/m).slice(1).map((part) => part.split(/^\.[A-Z]\b/m)[0] ?? "");
  const sentences = abstracts.join(" ").replace(/\s+/g, " ").split(/(?<=[.!?])\s+/);
  const chunks: string[] = [];
  let current: string[] = [];
  let tokens = 0;
  for (const sentence of sentences) {
    const count = tokenizer.encode(sentence, { add_special_tokens: false }).length;
    if (tokens + count > TARGET_TOKENS.max && tokens >= TARGET_TOKENS.min) {
      chunks.push(current.join(" "));
      if (chunks.length === chunkCount) break;
      current = [];
      tokens = 0;
    }
    current.push(sentence);
    tokens += count;
  }
  return chunks;
}

interface Figures {
  label: string;
  seconds: number;
  tokens: number;
  chunks: number;
}

function line(figures: Figures, reference?: Figures): string {
  const tokensPerSecond = figures.tokens / figures.seconds;
  const ratio = reference === undefined ? "" : `  ratio ours/raw ${(tokensPerSecond / (reference.tokens / reference.seconds)).toFixed(2)}`;
  return `${figures.label.padEnd(34)} ${tokensPerSecond.toFixed(0).padStart(6)} tokens/s  ${(figures.chunks / figures.seconds).toFixed(2).padStart(6)} chunks/s  (${figures.seconds.toFixed(1)} s)${ratio}`;
}

/** Times one call; returns seconds. */
async function timed(work: () => Promise<unknown>): Promise<number> {
  const start = performance.now();
  await work();
  return (performance.now() - start) / 1000;
}

/**
 * Raw onnxruntime-node and our embedder (at each batch size) take turns on the same group of
 * chunks, so a neighbour's load on a shared machine hits all of them alike; the ratio is the
 * figure that matters.
 */
async function compare(dtype: EmbeddingDtype, chunks: string[], inputs: Array<Record<string, ort.Tensor>>, tokenCounts: number[]): Promise<void> {
  const file = path.join(modelDirectory, dtype === "fp32" ? "onnx/model.onnx" : "onnx/model_quantized.onnx");
  const session = await ort.InferenceSession.create(file, { intraOpNumThreads: threads, interOpNumThreads: 1 });
  const batchSizes = [...new Set([1, batchSize])];
  const embedders = batchSizes.map((batch) =>
    createLocalOnnxEmbedder({ modelDirectory, model: resolveModel(modelDirectory, { dtype, pooling: "cls" }), threads, batchSize: batch }),
  );
  let rawSeconds = 0;
  const ourSeconds = batchSizes.map(() => 0);
  try {
    for (const embedder of embedders) {
      await embedder.load();
      await embedder.embedDocuments(chunks.slice(0, 2)); // warm-up
    }
    const first = inputs[0];
    if (first !== undefined) await session.run(first);

    const groupSize = Math.max(...batchSizes);
    for (let round = 0; round < rounds; round++) {
      for (let start = 0; start < chunks.length; start += groupSize) {
        rawSeconds += await timed(async () => {
          for (const feeds of inputs.slice(start, start + groupSize)) {
            const output = (await session.run(feeds)).last_hidden_state;
            if (output === undefined) throw new Error("no last_hidden_state");
            // The same CLS pooling and L2 normalization our embedder does.
            const size = output.dims[2] ?? 0;
            const cls = (output.data as Float32Array).slice(0, size);
            const length = Math.hypot(...cls);
            for (let index = 0; index < size; index++) cls[index] = (cls[index] ?? 0) / length;
          }
        });
        for (const [index, embedder] of embedders.entries()) {
          ourSeconds[index] = (ourSeconds[index] ?? 0) + (await timed(() => embedder.embedDocuments(chunks.slice(start, start + groupSize))));
        }
      }
    }
  } finally {
    await session.release();
    for (const embedder of embedders) await embedder.close?.();
  }

  const tokens = tokenCounts.reduce((sum, count) => sum + count, 0) * rounds;
  const raw: Figures = { label: "raw onnxruntime-node, batch 1", seconds: rawSeconds, tokens, chunks: chunks.length * rounds };
  console.log(line(raw));
  for (const [index, batch] of batchSizes.entries()) {
    console.log(line({ label: `chunkpad worker, batch ${batch}`, seconds: ourSeconds[index] ?? 0, tokens, chunks: chunks.length * rounds }, raw));
  }
}

function toOrt(tensor: Tensor): ort.Tensor {
  return new ort.Tensor("int64", tensor.data as BigInt64Array, tensor.dims);
}

async function main(): Promise<void> {
  env.allowRemoteModels = false;
  env.localModelPath = path.dirname(modelDirectory);
  const tokenizer = await AutoTokenizer.from_pretrained(path.basename(modelDirectory));
  const chunks = buildChunks(tokenizer);

  const tokenizeStart = performance.now();
  const inputs = chunks.map((chunk) => {
    const encoded = tokenizer(chunk, { truncation: true, max_length: MAX_TOKENS }) as Record<string, Tensor>;
    const feeds: Record<string, ort.Tensor> = {};
    for (const name of ["input_ids", "attention_mask", "token_type_ids"]) {
      const tensor = encoded[name];
      if (tensor !== undefined) feeds[name] = toOrt(tensor);
    }
    return feeds;
  });
  const tokenizeSeconds = (performance.now() - tokenizeStart) / 1000;
  const tokenCounts = inputs.map((feeds) => feeds.input_ids?.dims[1] ?? 0);
  const tokens = tokenCounts.reduce((sum, count) => sum + count, 0);

  console.log(`model ${modelDirectory}; ${chunks.length} chunks x ${rounds} rounds, ${tokens} tokens per round (mean ${(tokens / chunks.length).toFixed(0)}/chunk); ${threads} intra-op threads; ${os.availableParallelism()} cores; load average ${os.loadavg()[0]?.toFixed(1)}`);
  console.log(`tokenization alone: ${(tokens / tokenizeSeconds).toFixed(0)} tokens/s (main thread, not counted in raw figures)`);
  for (const dtype of dtypes) {
    console.log(`\n${dtype}`);
    await compare(dtype, chunks, inputs, tokenCounts);
  }
  console.log(`\nload average at the end: ${os.loadavg()[0]?.toFixed(1)}`);
}

await main();
