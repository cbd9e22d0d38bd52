import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startFakeApiServer, type FakeApiServer } from "../../test/helpers/hub-server.js";
import type { Embedder } from "../core/types.js";
import { resolveModel } from "./catalog.js";
import { createLocalOnnxEmbedder } from "./local-onnx.js";
import { createOllamaEmbedder } from "./ollama.js";
import { createOpenAiEmbedder } from "./openai.js";

/**
 * One suite, every embedder (as the store's and the LLM clients'): what search needs from any
 * of them. The local one runs the fixture model; the remote ones talk to a local server that
 * speaks their wire format and embeds by letter counts, so equal texts get equal vectors.
 */

const TINY_BERT = path.resolve("../shared/models/tiny-bert");
const LETTERS = "etaoinsrhldcumfpgwyb";

/** A deterministic, unnormalised embedding: how often each common letter occurs, plus one. */
function letterCounts(text: string): number[] {
  return [...LETTERS].map((letter) => 1 + [...text.toLowerCase()].filter((character) => character === letter).length);
}

interface Harness {
  name: string;
  /** A fresh embedder for `model` (a second model must give other vectors, or at least another fingerprint). */
  create(model: "first" | "second"): Embedder;
}

let server: FakeApiServer;
const inputs = (body: unknown): string[] => {
  const input = (body as { input: string | string[] }).input;
  return Array.isArray(input) ? input : [input];
};

const harnesses: Harness[] = [
  {
    name: "local ONNX (tiny-bert)",
    create: (model) => createLocalOnnxEmbedder({ modelDirectory: TINY_BERT, model: resolveModel(TINY_BERT, model === "first" ? {} : { pooling: "cls" }), threads: 1 }),
  },
  {
    name: "OpenAI",
    create: (model) => createOpenAiEmbedder({ model: `letters-${model}`, baseURL: `${server.url}/v1`, apiKey: "sk-test" }),
  },
  {
    name: "Ollama",
    create: (model) => createOllamaEmbedder({ model: `letters-${model}`, host: server.url }),
  },
];

beforeAll(async () => {
  server = await startFakeApiServer((request) => {
    const texts = inputs(request.body);
    if (request.path === "/v1/embeddings") {
      return { body: { object: "list", data: texts.map((text, index) => ({ object: "embedding", index, embedding: letterCounts(text) })), model: "letters", usage: { prompt_tokens: 1, total_tokens: 1 } } };
    }
    return { body: { model: "letters", embeddings: texts.map((text) => letterCounts(text)) } };
  });
});

afterAll(async () => {
  await server.close();
});

const norm = (vector: Float32Array): number => Math.sqrt(vector.reduce((sum, value) => sum + value * value, 0));
const cosine = (a: Float32Array, b: Float32Array): number => a.reduce((sum, value, index) => sum + value * (b[index] ?? 0), 0) / (norm(a) * norm(b));

describe.each(harnesses)("Embedder conformance: $name", (harness) => {
  let embedder: Embedder;
  let second: Embedder;
  beforeAll(() => {
    embedder = harness.create("first");
    second = harness.create("second");
  });
  afterAll(async () => {
    await embedder.close?.();
    await second.close?.();
  });

  const texts = ["The heron waits by the river at dawn.", "Quarterly revenue grew in the north.", "Tomatoes need full sun."];

  it("gives one unit-length vector per text, in the order given, of the size it reports", async () => {
    const vectors = await embedder.embedDocuments(texts);
    expect(vectors).toHaveLength(texts.length);
    expect(embedder.dimensions).toBeGreaterThan(0);
    for (const vector of vectors) {
      expect(vector).toBeInstanceOf(Float32Array);
      expect(vector.length).toBe(embedder.dimensions);
      expect(norm(vector)).toBeCloseTo(1, 4);
    }
    // In order: each text alone gets the vector it got in the batch.
    for (const [index, text] of texts.entries()) {
      const [alone] = await embedder.embedDocuments([text]);
      expect(cosine(alone as Float32Array, vectors[index] as Float32Array)).toBeGreaterThan(0.9999);
    }
  });

  it("gives equal texts equal vectors and different texts different ones", async () => {
    const [a, b, c] = await embedder.embedDocuments([texts[0] as string, texts[0] as string, texts[2] as string]);
    expect(cosine(a as Float32Array, b as Float32Array)).toBeGreaterThan(0.9999);
    expect(cosine(a as Float32Array, c as Float32Array)).toBeLessThan(0.9999);
  });

  it("embeds a query into the same space as the documents", async () => {
    const query = await embedder.embedQuery("Where does the heron wait?");
    expect(query.length).toBe(embedder.dimensions);
    expect(norm(query)).toBeCloseTo(1, 4);
  });

  it("asks for nothing when given no texts", async () => {
    const before = server.requests.length;
    expect(await embedder.embedDocuments([])).toEqual([]);
    expect(server.requests.length).toBe(before);
  });

  it("names what made its vectors in a fingerprint: the same for the same settings, another for another model or pooling", () => {
    expect(embedder.fingerprint).toBe(harness.create("first").fingerprint);
    expect(second.fingerprint).not.toBe(embedder.fingerprint);
    expect(embedder.maxTokens).toBeGreaterThan(0);
  });
});
