import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import { describe, expect, it } from "vitest";
import { ChunkpadError } from "../core/errors.js";
import { EMBEDDING_CATALOG, findCatalogEntry, resolveModel } from "./catalog.js";

const BGE_QUERY = "Represent this sentence for searching relevant passages: ";
const TINY_BERT = path.resolve("../shared/models/tiny-bert");

describe("the embedding catalog", () => {
  it("carries each model's trained settings", () => {
    const settings = Object.fromEntries(EMBEDDING_CATALOG.map((entry) => [entry.name, [entry.repoId, entry.dimensions, entry.pooling, entry.queryPrefix, entry.documentPrefix]]));
    expect(settings).toEqual({
      "bge-small-en-v1.5": ["Xenova/bge-small-en-v1.5", 384, "cls", BGE_QUERY, ""],
      "bge-base-en-v1.5": ["Xenova/bge-base-en-v1.5", 768, "cls", BGE_QUERY, ""],
      "bge-large-en-v1.5": ["Xenova/bge-large-en-v1.5", 1024, "cls", BGE_QUERY, ""],
      "all-MiniLM-L6-v2": ["Xenova/all-MiniLM-L6-v2", 384, "mean", "", ""],
      "nomic-embed-text-v1.5": ["nomic-ai/nomic-embed-text-v1.5", 768, "mean", "search_query: ", "search_document: "],
      "mxbai-embed-large-v1": ["mixedbread-ai/mxbai-embed-large-v1", 1024, "cls", BGE_QUERY, ""],
      "multilingual-e5-small": ["Xenova/multilingual-e5-small", 384, "mean", "query: ", "passage: "],
    });
    expect(EMBEDDING_CATALOG.every((entry) => entry.maxTokens === 512)).toBe(true);
  });

  it("finds entries by short name, hub id, upstream id and Ollama name", () => {
    expect(findCatalogEntry("BGE-BASE-EN-V1.5")?.name).toBe("bge-base-en-v1.5");
    expect(findCatalogEntry("Xenova/bge-small-en-v1.5")?.name).toBe("bge-small-en-v1.5");
    expect(findCatalogEntry("BAAI/bge-large-en-v1.5")?.name).toBe("bge-large-en-v1.5");
    expect(findCatalogEntry("nomic-embed-text:latest")?.name).toBe("nomic-embed-text-v1.5");
    expect(findCatalogEntry("intfloat/multilingual-e5-small")?.name).toBe("multilingual-e5-small");
    expect(findCatalogEntry("someone/bge-base-en-v1.5")).toBeUndefined();
  });
});

describe("resolveModel", () => {
  it("resolves a catalog name to its hub repository and the dtype's weights", () => {
    const fp32 = resolveModel("bge-base-en-v1.5");
    expect(fp32).toMatchObject({ source: "catalog", repoId: "Xenova/bge-base-en-v1.5", dimensions: 768, pooling: "cls", queryPrefix: BGE_QUERY, modelFile: "onnx/model.onnx" });
    expect(fp32.files).toEqual(["config.json", "tokenizer.json", "tokenizer_config.json", "onnx/model.onnx"]);
    const q8 = resolveModel("bge-base-en-v1.5", { dtype: "q8" });
    expect(q8.files).toContain("onnx/model_quantized.onnx");
    expect(q8.files).not.toContain("onnx/model.onnx");
    expect(q8.approximateBytes).toBeLessThan(fp32.approximateBytes ?? 0);
  });

  it("treats an unknown hub id as mean pooling without prefixes, and says so", () => {
    const model = resolveModel("someone/custom-embedder");
    expect(model).toMatchObject({ source: "hub", repoId: "someone/custom-embedder", pooling: "mean", queryPrefix: "", documentPrefix: "", dimensions: null });
    expect(model.assumption).toMatch(/mean pooling/);
    expect(resolveModel("someone/custom-embedder", { pooling: "cls" }).assumption).toBeUndefined();
  });

  it("reads a local directory's dimensions from its config.json", () => {
    const model = resolveModel(TINY_BERT);
    expect(model).toMatchObject({ source: "directory", repoId: null, directory: TINY_BERT, dimensions: 64, pooling: "mean" });
  });

  it("uses the catalog settings for a directory named after a catalog model, and sentence-transformers pooling otherwise", () => {
    const root = fs.mkdtempSync(path.join(os.tmpdir(), "chunkpad-catalog-"));
    try {
      const bge = path.join(root, "bge-small-en-v1.5");
      fs.mkdirSync(bge);
      expect(resolveModel(bge)).toMatchObject({ source: "directory", pooling: "cls", queryPrefix: BGE_QUERY, dimensions: 384 });

      const custom = path.join(root, "my-model");
      fs.mkdirSync(path.join(custom, "1_Pooling"), { recursive: true });
      fs.writeFileSync(path.join(custom, "1_Pooling", "config.json"), JSON.stringify({ pooling_mode_cls_token: true, pooling_mode_mean_tokens: false }));
      const resolved = resolveModel(custom);
      expect(resolved.pooling).toBe("cls");
      expect(resolved.assumption).toBeUndefined();
    } finally {
      fs.rmSync(root, { recursive: true, force: true });
    }
  });

  it("rejects something that is neither a name, an id nor a path", () => {
    expect(() => resolveModel("not a model")).toThrow(ChunkpadError);
    try {
      resolveModel("not a model");
    } catch (error) {
      expect((error as ChunkpadError).code).toBe("INVALID_ARGUMENT");
      expect((error as ChunkpadError).message).toContain("bge-base-en-v1.5");
    }
  });
});
