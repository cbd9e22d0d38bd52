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
/** Each configuration runs this many times, interleaved; the best run counts (the machine may be shared). */
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

async function runOurs(dtype: EmbeddingDtype, chunks: string[], tokens: number, batch: number): Promise<Figures> {
  const model = resolveModel(modelDirectory, { dtype, pooling: "cls" });
  const embedder = createLocalOnnxEmbedder({ modelDirectory, model, threads, batchSize: batch });
  try {
    await embedder.load();
    await embedder.embedDocuments(chunks.slice(0, 2)); // warm-up
    const start = performance.now();
    const vectors = await embedder.embedDocuments(chunks);
    const seconds = (performance.now() - start) / 1000;
    if (vectors.length !== chunks.length) throw new Error("wrong number of vectors");
    return { label: `chunkpad worker, batch ${batch}`, seconds, tokens, chunks: chunks.length };
  } finally {
    await embedder.close?.();
  }
}

async function runRaw(dtype: EmbeddingDtype, inputs: Array<Record<string, ort.Tensor>>, tokens: number): Promise<Figures> {
  const file = path.join(modelDirectory, dtype === "fp32" ? "onnx/model.onnx" : "onnx/model_quantized.onnx");
  const session = await ort.InferenceSession.create(file, { intraOpNumThreads: threads, interOpNumThreads: 1 });
  try {
    const first = inputs[0];
    if (first !== undefined) await session.run(first); // warm-up
    const start = performance.now();
    for (const feeds of inputs) {
      const output = (await session.run(feeds)).last_hidden_state;
      if (output === undefined) throw new Error("no last_hidden_state");
      // The same CLS pooling and L2 normalization our embedder does.
      const hidden = output.data as Float32Array;
      const size = output.dims[2] ?? 0;
      const cls = hidden.slice(0, size);
      const length = Math.hypot(...cls);
      for (let index = 0; index < size; index++) cls[index] = (cls[index] ?? 0) / length;
    }
    const seconds = (performance.now() - start) / 1000;
    return { label: "raw onnxruntime-node, batch 1", seconds, tokens, chunks: inputs.length };
  } finally {
    await session.release();
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
  const tokens = inputs.reduce((sum, feeds) => sum + (feeds.input_ids?.dims[1] ?? 0), 0);

  console.log(`model ${modelDirectory}; ${chunks.length} chunks, ${tokens} tokens (mean ${(tokens / chunks.length).toFixed(0)}/chunk); ${threads} intra-op threads; ${os.availableParallelism()} cores`);
  console.log(`tokenization alone: ${(tokens / tokenizeSeconds).toFixed(0)} tokens/s (main thread, not counted in raw figures)`);
  for (const dtype of dtypes) {
    console.log(`\n${dtype}`);
    const best = new Map<string, Figures>();
    const keep = (figures: Figures): void => {
      const previous = best.get(figures.label);
      if (previous === undefined || figures.seconds < previous.seconds) best.set(figures.label, figures);
    };
    for (let round = 0; round < rounds; round++) {
      keep(await runRaw(dtype, inputs, tokens));
      for (const batch of [...new Set([1, batchSize])]) keep(await runOurs(dtype, chunks, tokens, batch));
    }
    const [raw, ...ours] = [...best.values()];
    if (raw === undefined) continue;
    console.log(line(raw));
    for (const figures of ours) console.log(line(figures, raw));
  }
}

await main();
