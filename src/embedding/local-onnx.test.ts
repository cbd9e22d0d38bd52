import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ChunkpadError } from "../core/errors.js";
import type { ModelStatus } from "../core/types.js";
import { resolveModel, type ResolveModelOptions } from "./catalog.js";
import { createLocalOnnxEmbedder, type LocalOnnxEmbedder } from "./local-onnx.js";

const TINY_BERT = path.resolve("../shared/models/tiny-bert");
const QUERY_PREFIX = "Represent this sentence for searching relevant passages: ";

function length(vector: Float32Array): number {
  return Math.sqrt(vector.reduce((sum, value) => sum + value * value, 0));
}

function largestDifference(a: Float32Array, b: Float32Array): number {
  expect(a.length).toBe(b.length);
  return a.reduce((largest, value, index) => Math.max(largest, Math.abs(value - (b[index] ?? Number.NaN))), 0);
}

/** A chunk-sized text of ordinary English words (about 400 tokens). */
function chunkText(seed: number): string {
  const words = ["river", "stone", "library", "grant", "deadline", "budget", "planet", "orange", "window", "teacher", "garden", "music"];
  return Array.from({ length: 400 }, (_, index) => words[(index * 7 + seed) % words.length]).join(" ");
}

describe("the local ONNX embedder on tiny-bert", () => {
  const statuses: ModelStatus[] = [];
  let embedder: LocalOnnxEmbedder;

  beforeAll(async () => {
    const model = resolveModel(TINY_BERT, { queryPrefix: QUERY_PREFIX });
    embedder = createLocalOnnxEmbedder({ modelDirectory: TINY_BERT, model, onStatus: (status) => statuses.push(status) });
    await embedder.load();
  });

  afterAll(async () => {
    await embedder.close?.();
  });

  it("loads in order and knows its size", () => {
    expect(statuses).toEqual([{ state: "loading" }, { state: "ready" }]);
    expect(embedder.dimensions).toBe(64);
    expect(embedder.maxTokens).toBe(512);
  });

  it("returns L2-normalised 64-dim vectors, the same every time", async () => {
    const [first, second] = await embedder.embedDocuments(["The grant deadline is in March.", "Cats sleep all day."]);
    expect(first?.length).toBe(64);
    expect(length(first ?? new Float32Array())).toBeCloseTo(1, 5);
    expect(length(second ?? new Float32Array())).toBeCloseTo(1, 5);
    expect(largestDifference(first ?? new Float32Array(), second ?? new Float32Array())).toBeGreaterThan(0.01);
    const again = await embedder.embedDocuments(["The grant deadline is in March.", "Cats sleep all day."]);
    expect(again).toEqual([first, second]);
  });

  it("embeds a query with its prefix", async () => {
    const query = await embedder.embedQuery("grant deadline");
    const [plain] = await embedder.embedDocuments(["grant deadline"]);
    const [prefixed] = await embedder.embedDocuments([`${QUERY_PREFIX}grant deadline`]);
    expect(largestDifference(query, plain ?? new Float32Array())).toBeGreaterThan(0.01);
    expect(largestDifference(query, prefixed ?? new Float32Array())).toBeLessThan(1e-5);
  });

  it("gives the same vectors in a batch as one by one, in the caller's order", async () => {
    const texts = ["short", chunkText(1), "a medium sized sentence about rivers and stones", chunkText(2)];
    const batch = await embedder.embedDocuments(texts);
    expect(batch).toHaveLength(texts.length);
    for (const [index, text] of texts.entries()) {
      const [single] = await embedder.embedDocuments([text]);
      expect(largestDifference(batch[index] ?? new Float32Array(), single ?? new Float32Array())).toBeLessThan(1e-4);
    }
  });

  it("cuts texts at maxTokens instead of failing", async () => {
    const long = Array.from({ length: 700 }, (_, index) => `word${index % 50}`).join(" ");
    const [cut, cutWithTail] = await embedder.embedDocuments([long, `${long} and a different ending`]);
    expect(length(cut ?? new Float32Array())).toBeCloseTo(1, 5);
    expect(largestDifference(cut ?? new Float32Array(), cutWithTail ?? new Float32Array())).toBeLessThan(1e-5);
  });

  it("keeps the main thread free while a large batch embeds", async () => {
    let ticks = 0;
    const timer = setInterval(() => ticks++, 1);
    const texts = Array.from({ length: 96 }, (_, index) => chunkText(index));
    const vectors = await embedder.embedDocuments(texts);
    clearInterval(timer);
    expect(vectors).toHaveLength(96);
    expect(ticks).toBeGreaterThan(5);
  });

  it("answers an empty list without starting work", async () => {
    expect(await embedder.embedDocuments([])).toEqual([]);
  });

  it("names model, dtype, pooling and prefixes in its fingerprint", () => {
    const fingerprint = JSON.parse(embedder.fingerprint) as Record<string, unknown>;
    expect(fingerprint).toMatchObject({ provider: "local", model: TINY_BERT, dtype: "fp32", pooling: "mean", queryPrefix: QUERY_PREFIX, documentPrefix: "", contextPrefix: 1 });
    const cls = createLocalOnnxEmbedder({ modelDirectory: TINY_BERT, model: resolveModel(TINY_BERT, { pooling: "cls" }) });
    expect(cls.fingerprint).not.toBe(embedder.fingerprint);
  });
});

describe("tiny-bert run directly, without transformers.js", () => {
  const texts = [
    "grant deadline",
    "",
    "The grey heron waits by the river at dawn.",
    "Ünïcödé, emoji 🦉 and CJK 河川 mixed with punctuation?!",
    chunkText(3),
    Array.from({ length: 700 }, (_, index) => `word${index % 50}`).join(" "),
    "short",
    chunkText(4).slice(0, 900),
    "a medium sized sentence about rivers and stones",
  ];
  /** Query and documents through one embedder: the vectors, and what ran the model. */
  const embedAll = async (runtime: "direct" | "transformers", settings: ResolveModelOptions & { maxTokens?: number }, options: { batchSize?: number; modelDirectory?: string; thread?: "caller" } = {}) => {
    // The pipeline's vectors are the reference several tests compare with: each made once.
    if (runtime === "transformers") {
      const key = JSON.stringify([settings, options]);
      const made = references.get(key) ?? embedThrough(runtime, settings, options);
      references.set(key, made);
      return made;
    }
    return embedThrough(runtime, settings, options);
  };
  const references = new Map<string, ReturnType<typeof embedThrough>>();
  const embedThrough = async (runtime: "direct" | "transformers", settings: ResolveModelOptions & { maxTokens?: number }, options: { batchSize?: number; modelDirectory?: string; thread?: "caller" }) => {
    const modelDirectory = options.modelDirectory ?? TINY_BERT;
    const { maxTokens, ...resolveOptions } = settings;
    const model = { ...resolveModel(modelDirectory, resolveOptions), ...(maxTokens === undefined ? {} : { maxTokens }) };
    const statuses: string[] = [];
    const embedder = createLocalOnnxEmbedder({
      modelDirectory,
      model,
      runtime,
      ...(options.batchSize === undefined ? {} : { batchSize: options.batchSize }),
      ...(options.thread === undefined ? {} : { thread: options.thread }),
      onStatus: (status) => statuses.push(status.state),
    });
    try {
      const vectors = [await embedder.embedQuery("library classification"), ...(await embedder.embedDocuments(texts))];
      return { vectors, runtime: embedder.runtime, dimensions: embedder.dimensions, statuses };
    } finally {
      await embedder.close?.();
    }
  };

  it.each([
    ["mean pooling", { queryPrefix: QUERY_PREFIX }],
    ["CLS pooling", { pooling: "cls" as const }],
    ["a 16-token limit", { maxTokens: 16 }],
  ])("gives the pipeline's vectors to the bit, with %s", async (_name, settings) => {
    const direct = await embedAll("direct", settings);
    const pipeline = await embedAll("transformers", settings);
    expect(direct.runtime).toBe("direct");
    expect(pipeline.runtime).toBe("transformers");
    expect(direct.dimensions).toBe(64);
    expect(direct.vectors).toHaveLength(texts.length + 1);
    expect(direct.vectors).toEqual(pipeline.vectors);
  });

  it("gives the pipeline's vectors one text at a time and in batches that pad", async () => {
    const settings = { queryPrefix: QUERY_PREFIX };
    const pipeline = await embedAll("transformers", settings, { batchSize: 1 });
    expect((await embedAll("direct", settings, { batchSize: 1 })).vectors).toEqual(pipeline.vectors);
    expect((await embedAll("direct", settings, { batchSize: 32 })).vectors).toEqual((await embedAll("transformers", settings, { batchSize: 32 })).vectors);
  });

  it("gives the same vectors in the caller's thread, and says so", async () => {
    const settings = { queryPrefix: QUERY_PREFIX };
    const inThread = await embedAll("direct", settings, { thread: "caller" });
    expect(inThread.runtime).toBe("direct");
    expect(inThread.statuses).toEqual(["loading", "ready"]);
    expect(inThread.dimensions).toBe(64);
    expect(inThread.vectors).toEqual((await embedAll("transformers", settings)).vectors);
    const cls = { pooling: "cls" as const };
    expect((await embedAll("direct", cls, { thread: "caller", batchSize: 3 })).vectors).toEqual((await embedAll("transformers", cls, { batchSize: 3 })).vectors);
  });

  it("leaves to the pipeline a model it does not reproduce, which still embeds", async () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), "chunkpad-other-tokenizer-"));
    try {
      fs.cpSync(TINY_BERT, dir, { recursive: true });
      fs.chmodSync(path.join(dir, "tokenizer_config.json"), 0o644);
      const tokenizerConfig = JSON.parse(fs.readFileSync(path.join(dir, "tokenizer_config.json"), "utf8")) as Record<string, unknown>;
      fs.writeFileSync(path.join(dir, "tokenizer_config.json"), JSON.stringify({ ...tokenizerConfig, tokenizer_class: "DistilBertTokenizer" }));
      const other = await embedAll("direct", {}, { modelDirectory: dir });
      expect(other.runtime).toBe("transformers");
      expect(other.vectors).toEqual((await embedAll("transformers", {}, { modelDirectory: dir })).vectors);
      // Asked to run in the caller's thread, it still runs in a worker, and says it is loading once.
      const inWorker = await embedAll("direct", {}, { modelDirectory: dir, thread: "caller" });
      expect(inWorker.runtime).toBe("transformers");
      expect(inWorker.statuses).toEqual(["loading", "ready"]);
      expect(inWorker.vectors).toEqual(other.vectors);
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });
});

describe("loading a broken model", () => {
  it.each([["in a worker", {}], ["in the caller's thread", { thread: "caller" as const }]])("fails with MODEL_LOAD_FAILED and an error status, %s", async (_name, where) => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), "chunkpad-broken-"));
    try {
      for (const file of ["config.json", "tokenizer.json", "tokenizer_config.json"]) fs.copyFileSync(path.join(TINY_BERT, file), path.join(dir, file));
      fs.mkdirSync(path.join(dir, "onnx"));
      fs.writeFileSync(path.join(dir, "onnx", "model.onnx"), "this is not an onnx model");
      const statuses: ModelStatus[] = [];
      const embedder = createLocalOnnxEmbedder({ modelDirectory: dir, model: resolveModel(dir), ...where, onStatus: (status) => statuses.push(status) });
      const error: unknown = await embedder.embedDocuments(["hello"]).catch((reason: unknown) => reason);
      expect(error).toBeInstanceOf(ChunkpadError);
      expect((error as ChunkpadError).code).toBe("MODEL_LOAD_FAILED");
      expect((error as ChunkpadError).message).toContain(dir);
      expect(statuses.map((status) => status.state)).toEqual(["loading", "error"]);
      await embedder.close?.();
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });
});

describe("the local ONNX embedder with a code cache", () => {
  const texts = ["grant deadline", "The grey heron waits by the river at dawn."];
  let uncachedVectors: Promise<Float32Array[]> | undefined;
  /** The vectors without a code cache, the reference of every test here: made once. */
  const uncached = () => (uncachedVectors ??= embedWith());
  const embedWith = async (codeCacheDirectory?: string): Promise<Float32Array[]> => {
    const model = resolveModel(TINY_BERT, { queryPrefix: QUERY_PREFIX });
    // The code cache is transformers.js's: this model would otherwise run without it (onnx-direct.ts).
    const embedder = createLocalOnnxEmbedder({ modelDirectory: TINY_BERT, model, runtime: "transformers", ...(codeCacheDirectory === undefined ? {} : { codeCacheDirectory }) });
    try {
      return [await embedder.embedQuery(texts[0] as string), ...(await embedder.embedDocuments(texts.slice(1)))];
    } finally {
      await embedder.close?.();
    }
  };
  const filesIn = (directory: string) => (fs.existsSync(directory) ? fs.readdirSync(directory) : []);
  /** A folder for the cache inside a temporary one (created by the load, not by the test). */
  const withCacheFolder = async (work: (directory: string, root: string) => Promise<void>): Promise<void> => {
    const root = fs.mkdtempSync(path.join(os.tmpdir(), "chunkpad-code-cache-"));
    try {
      await work(path.join(root, "compiled"), root);
    } finally {
      fs.rmSync(root, { recursive: true, force: true });
    }
  };

  it("keeps what it compiled for the next load, which gives the same vectors", () =>
    withCacheFolder(async (directory) => {
      const reference = await uncached();
      expect(await embedWith(directory)).toEqual(reference);
      const written = filesIn(directory);
      expect(written).toHaveLength(1);
      const file = path.join(directory, written[0] as string);
      const size = fs.statSync(file).size;
      expect(size).toBeGreaterThan(100_000);
      // Loaded from the cache: the same vectors, and the file is left as it was.
      expect(await embedWith(directory)).toEqual(reference);
      expect(filesIn(directory)).toEqual(written);
      expect(fs.statSync(file).size).toBe(size);
    }));

  it("loads from a damaged cache as from none, and writes it again", () =>
    withCacheFolder(async (directory) => {
      await embedWith(directory);
      const file = path.join(directory, filesIn(directory)[0] as string);
      fs.writeFileSync(file, "not V8's code cache");
      expect(await embedWith(directory)).toEqual(await uncached());
      expect(fs.statSync(file).size).toBeGreaterThan(100_000);
      expect(filesIn(directory)).toHaveLength(1);
    }));

  it("still loads when the cache cannot be written", () =>
    withCacheFolder(async (_directory, root) => {
      const blocked = path.join(root, "a-file");
      fs.writeFileSync(blocked, "");
      expect(await embedWith(path.join(blocked, "compiled"))).toEqual(await uncached());
    }));
});
