import { createHash } from "node:crypto";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { rejectionOf } from "../../../test/helpers/rejection.js";
import { isChunkpadError, type ChunkpadError } from "../../core/errors.js";
import { DEFAULT_CHUNKING, type ChunkingOptions, type Embedder } from "../../core/types.js";
import { embeddingFingerprint } from "../../embedding/fingerprint.js";
import type { CreateEmbedderOptions, EmbedderConfig } from "../../embedding/registry.js";
import { openMainStore, type MainStore } from "../../store/index.js";
import { META_KEYS } from "../../store/index.js";
import { defaultConfig } from "../settings/config.js";
import { embedSelected, type EmbedDependencies, type EmbedOptions, type EmbedProgress } from "./embed-selected.js";
import { resolvePaths } from "../settings/paths.js";
import type { ProcessReport } from "../process/process-folder.js";

const cleanups: Array<() => void> = [];
afterEach(() => {
  for (const cleanup of cleanups.splice(0).reverse()) cleanup();
});

/** A fake embedder: vectors from a hash of the text, so the same text gives the same vector; records what it was asked. */
interface FakeModel {
  model: string;
  dimensions: number;
  /** Every batch of texts embedDocuments received. */
  batches: string[][];
  /** Every config createEmbedder was called with. */
  loads: EmbedderConfig[];
  closed: number;
  /** Fails the nth embedDocuments call (1-based). */
  failOnCall?: number;
  create: (config: EmbedderConfig, options: CreateEmbedderOptions) => Promise<Embedder>;
}

function fakeModel(model: string, dimensions: number, before?: (options: CreateEmbedderOptions) => Promise<void>): FakeModel {
  const fake: FakeModel = {
    model,
    dimensions,
    batches: [],
    loads: [],
    closed: 0,
    async create(config, options) {
      fake.loads.push(config);
      await before?.(options);
      options.onStatus?.({ state: "loading" });
      options.onStatus?.({ state: "ready" });
      return {
        dimensions,
        maxTokens: 512,
        fingerprint: embeddingFingerprint({ provider: "local", model, dtype: config.dtype ?? "fp32", pooling: "mean", normalize: true, queryPrefix: "", documentPrefix: "", maxTokens: 512 }),
        async embedDocuments(texts) {
          fake.batches.push(texts);
          if (fake.failOnCall === fake.batches.length) throw new Error("the fake model broke");
          return texts.map((text) => vectorOf(text, dimensions));
        },
        embedQuery: async (text) => vectorOf(text, dimensions),
        close: async () => {
          fake.closed += 1;
        },
      };
    },
  };
  return fake;
}

function vectorOf(text: string, dimensions: number): Float32Array {
  const digest = createHash("sha256").update(text).digest();
  return Float32Array.from({ length: dimensions }, (_, index) => ((digest[index % digest.length] ?? 0) + 1) / 256);
}

interface Setup {
  store: MainStore;
  folderId: string;
  rootPath: string;
  ref: (file: string, n: number) => string;
  /** Applied on the next sync, as a hand edit of a chunk file would be. */
  edits: Array<(store: MainStore) => void>;
  remembered: Array<[string, string]>;
  dependencies: (model: FakeModel, overrides?: Partial<EmbedDependencies>) => EmbedDependencies;
  run: (model: FakeModel, options?: EmbedOptions) => ReturnType<typeof embedSelected>;
}

async function setup(documents: Record<string, string[]> = { "birds.md": ["heron", "kestrel", "wren"], "trees.md": ["oak", "ash"] }, storeOptions: { annThreshold?: number } = {}): Promise<Setup> {
  const home = fs.mkdtempSync(path.join(os.tmpdir(), "chunkpad-embed-"));
  const rootPath = path.join(home, "docs");
  fs.mkdirSync(rootPath);
  const store = openMainStore({ path: path.join(home, "data", "chunkpad.db"), ...storeOptions });
  cleanups.push(() => fs.rmSync(home, { recursive: true, force: true }));
  cleanups.push(() => store.close());
  const folderId = (await store.upsertFolder(rootPath, path.join(rootPath, "_chunks"))).id;
  const write = async (relativePath: string, contents: string[]) =>
    await store.syncDocument({ folderId, relativePath, title: `Title of ${relativePath}`, documentType: "md", fileSize: 1, pageCount: null, chunks: contents.map((content) => ({ content, meta: { section: "Intro" } })) });
  for (const [file, contents] of Object.entries(documents)) await write(file, contents);

  const edits: Setup["edits"] = [];
  const remembered: Setup["remembered"] = [];
  const config = defaultConfig();
  config.embedding.model = "test-org/fake";
  config.embedding.batchSize = 2;
  // As the resolver gives it for CHUNKPAD_HUB_URL=http://127.0.0.1:9.
  config.embedding.hubUrl = "http://127.0.0.1:9";
  const paths = resolvePaths({ env: { CHUNKPAD_HOME: home } });
  const dependencies = (model: FakeModel, overrides: Partial<EmbedDependencies> = {}): EmbedDependencies => ({
    store,
    config,
    paths,
    env: {},
    syncFolder: async (syncedRoot) => {
      for (const edit of edits.splice(0)) edit(store);
      return emptyProcessReport(folderId, syncedRoot);
    },
    chunkingFor: async (): Promise<ChunkingOptions> => DEFAULT_CHUNKING,
    rememberConfig: (key, value) => void remembered.push([key, value]),
    createEmbedder: model.create,
    ...overrides,
  });
  return {
    store,
    folderId,
    rootPath,
    ref: (file, n) => `${folderId}:${file}#${n}`,
    edits,
    remembered,
    dependencies,
    run: (model, options = {}) => embedSelected(dependencies(model), options),
  };
}

function emptyProcessReport(folderId: string, rootPath: string): ProcessReport {
  return {
    folder: { id: folderId, rootPath, chunksRootPath: path.join(rootPath, "_chunks") },
    processed: [], unchanged: [], editsSynced: [], skipped: [], failed: [], conflicts: [], removed: [], renamed: [], keptEdits: [], resolved: [], chunksInDataDir: false, chunksWritten: 0, durationMs: 0,
  };
}

describe("embedSelected", () => {
  it("embeds every included chunk with its context prefix, in batches, and records what made the vectors", async () => {
    const { store, run } = await setup();
    const model = fakeModel("test-org/fake", 4);
    const report = await run(model);

    expect(report).toMatchObject({ embedded: 5, removed: 0, unchanged: 0, excluded: 0, nothingToDo: false, modelLoaded: true, model: "test-org/fake", dtype: "fp32", dimensions: 4 });
    expect(model.batches.map((batch) => batch.length)).toEqual([2, 2, 1]);
    expect(model.batches.flat()).toContain("Document: Title of birds.md\nSection: Intro\n\nkestrel");
    expect(await store.vectorCount()).toBe(5);
    expect(await store.vectorDimensions()).toBe(4);
    expect(await store.getMeta(META_KEYS.embeddingModel)).toBe("test-org/fake");
    expect(JSON.parse(await store.getMeta(META_KEYS.embeddingFingerprint) ?? "{}")).toMatchObject({ embedder: { model: "test-org/fake", dtype: "fp32" } });
    expect(model.closed).toBe(1);
  });

  it("leaves the approximate index holding every vector of the run once it is next searched", async () => {
    const words = ["heron", "kestrel", "wren", "oak", "ash", "elm", "yew", "fir", "owl", "jay", "tit", "rook"];
    const { store, run } = await setup({ "many.md": words.map((word) => `The ${word} and its habits.`) }, { annThreshold: 4 });
    const report = await run(fakeModel("test-org/fake", 8));
    expect(report.embedded).toBe(12);
    // The run's vectors outgrew the lists built at the threshold: they are built once more, by the
    // next search (or the run's save), not at every doubling during the run (decision 100).
    expect(await store.vectorSearch(Float32Array.from({ length: 8 }, (_, index) => index + 1), { k: 3 })).toHaveLength(3);
    expect(await store.updateVectorIndex?.()).toEqual({ vectors: 12, added: 0 });
  });

  it("does nothing on a second run, without loading the model", async () => {
    const { run } = await setup();
    await run(fakeModel("test-org/fake", 4));
    const again = fakeModel("test-org/fake", 4);
    const report = await run(again);
    expect(report).toMatchObject({ embedded: 0, removed: 0, unchanged: 5, nothingToDo: true, modelLoaded: false });
    expect(again.loads).toEqual([]);
  });

  it("removes the vector of an excluded chunk without loading the model", async () => {
    const { store, ref, run } = await setup();
    await run(fakeModel("test-org/fake", 4));
    await store.setIncluded([ref("birds.md", 2)], false);
    const model = fakeModel("test-org/fake", 4);
    const report = await run(model);
    expect(report).toMatchObject({ embedded: 0, removed: 1, unchanged: 4, excluded: 1, nothingToDo: false });
    expect(model.loads).toEqual([]);
    expect((await store.embedState()).find((row) => row.ref === ref("birds.md", 2))?.embeddedHash).toBeNull();
    expect(await store.vectorCount()).toBe(4);
  });

  it("re-embeds just the chunk edited by hand, and counts vectors of chunks edited away as removed", async () => {
    const { store, folderId, ref, edits, run } = await setup();
    await run(fakeModel("test-org/fake", 4));
    edits.push((synced) =>
      synced.syncDocument({ folderId, relativePath: "birds.md", title: "Title of birds.md", documentType: "md", fileSize: 1, pageCount: null, chunks: [{ content: "heron", meta: { section: "Intro" } }, { content: "kestrel, hovering", meta: { section: "Intro" } }] }),
    );
    const model = fakeModel("test-org/fake", 4);
    const report = await run(model);
    expect(report).toMatchObject({ embedded: 1, removed: 1, unchanged: 3 });
    expect(model.batches).toEqual([["Document: Title of birds.md\nSection: Intro\n\nkestrel, hovering"]]);
    expect(await store.vectorCount()).toBe(4);
    expect((await store.embedState()).every((row) => row.embeddedHash === row.embedHash)).toBe(true);
    expect(await store.getChunk(ref("birds.md", 3))).toBeNull();
  });

  it("stops before loading (so before any download) when another model made the vectors, and --reembed starts over with the new size", async () => {
    const { store, run, remembered } = await setup();
    await run(fakeModel("test-org/fake", 4));
    const other = fakeModel("other-org/bigger", 8);

    const error = await rejectionOf(run(other, { model: "other-org/bigger" }));
    expect(isChunkpadError(error, "EMBEDDING_MISMATCH")).toBe(true);
    expect((error as Error).message).toMatch(/made by test-org\/fake \(fp32\).*other-org\/bigger/);
    expect((error as ChunkpadError).nextSteps?.[0]).toEqual({ action: "embed", reembed: true });
    expect(other.loads).toEqual([]);
    expect(await store.vectorCount()).toBe(5);

    const report = await run(other, { model: "other-org/bigger", reembed: true });
    expect(report).toMatchObject({ embedded: 5, reembed: true, dimensions: 8, model: "other-org/bigger" });
    expect(await store.vectorDimensions()).toBe(8);
    expect(await store.vectorCount()).toBe(5);
    expect(remembered).toEqual([["embedding.model", "other-org/bigger"]]);
  });

  it("treats another dtype as another model", async () => {
    const { run } = await setup();
    await run(fakeModel("test-org/fake", 4));
    const error = await rejectionOf(run(fakeModel("test-org/fake", 4), { dtype: "q8" }));
    expect(isChunkpadError(error, "EMBEDDING_MISMATCH")).toBe(true);
    expect((error as Error).message).toMatch(/test-org\/fake \(fp32\).*test-org\/fake \(q8\)/);
  });

  it("switches model freely while no vectors exist", async () => {
    const { store, ref, run } = await setup({ "one.md": ["alpha"] });
    await run(fakeModel("test-org/fake", 4));
    await store.setIncluded([ref("one.md", 1)], false);
    await run(fakeModel("test-org/fake", 4));
    await store.setIncluded([ref("one.md", 1)], true);
    const report = await run(fakeModel("other-org/bigger", 8), { model: "other-org/bigger" });
    expect(report).toMatchObject({ embedded: 1, dimensions: 8 });
  });

  it("switches to a model whose size is known only after its first answer, when a failed run left no vectors", async () => {
    const { run } = await setup({ "one.md": ["alpha"] });
    const broken = fakeModel("test-org/fake", 4);
    broken.failOnCall = 1;
    await expect(run(broken)).rejects.toThrow(/the fake model broke/);
    // A remote provider (Ollama, OpenAI-compatible) learns its vector size from its first answer.
    const remote = fakeModel("other-org/remote", 8);
    const create = remote.create;
    remote.create = async (config, options) => ({ ...(await create(config, options)), dimensions: 0 });
    const report = await run(remote, { model: "other-org/remote" });
    expect(report).toMatchObject({ embedded: 1, dimensions: 8 });
  });

  it("passes consent through with where the model comes from and goes; no consent callback means no", async () => {
    const asked: unknown[] = [];
    const model = fakeModel("test-org/fake", 4, async (options) => {
      const agreed = await options.consent?.({ repoId: "test-org/fake", sizeBytes: 1234, files: ["onnx/model.onnx"] });
      if (!agreed) throw new Error("refused");
    });
    const { run } = await setup();
    await expect(run(model)).rejects.toThrow("refused");
    const report = await run(model, { consent: async (request) => (asked.push(request), true) });
    expect(report.embedded).toBe(5);
    expect(asked).toEqual([{ repoId: "test-org/fake", sizeBytes: 1234, files: ["onnx/model.onnx"], hubUrl: "http://127.0.0.1:9", cacheDir: expect.stringMatching(/models$/) }]);
    expect(model.loads[0]).toMatchObject({ provider: "local", model: "test-org/fake", hubUrl: "http://127.0.0.1:9" });
  });

  it("keeps the batches committed before a failure or a cancel, and the next run finishes the job", async () => {
    const { store, run } = await setup();
    const failing = fakeModel("test-org/fake", 4);
    failing.failOnCall = 2;
    await expect(run(failing)).rejects.toThrow("the fake model broke");
    expect(await store.vectorCount()).toBe(2);
    expect(failing.closed).toBe(1);

    const controller = new AbortController();
    const events: EmbedProgress[] = [];
    const cancelled = await rejectionOf(
      run(fakeModel("test-org/fake", 4), {
        signal: controller.signal,
        onProgress: (event) => {
          events.push(event);
          if (event.phase === "embed" && event.done > 0) controller.abort();
        },
      }),
    );
    expect(isChunkpadError(cancelled, "CANCELLED")).toBe(true);
    expect((cancelled as Error).message).toMatch(/after 2 of 3 chunks/);
    expect((cancelled as ChunkpadError).nextSteps).toEqual([{ action: "try-again", what: "embed" }]);
    expect(await store.vectorCount()).toBe(4);

    const finished = await run(fakeModel("test-org/fake", 4));
    expect(finished).toMatchObject({ embedded: 1, unchanged: 4 });
    expect(await store.vectorCount()).toBe(5);
    expect((await store.integrityCheck()).ok).toBe(true);
  });

  it("embeds only the named folder", async () => {
    const { store, rootPath, run } = await setup();
    const otherRoot = path.join(path.dirname(rootPath), "other");
    fs.mkdirSync(otherRoot);
    const other = await store.upsertFolder(otherRoot, path.join(otherRoot, "_chunks"));
    await store.syncDocument({ folderId: other.id, relativePath: "x.md", title: "X", documentType: "md", fileSize: 1, pageCount: null, chunks: [{ content: "elsewhere", meta: {} }] });
    const report = await run(fakeModel("test-org/fake", 4), { folder: otherRoot });
    expect(report).toMatchObject({ embedded: 1, folders: [{ id: other.id }] });
    await expect(run(fakeModel("test-org/fake", 4), { folder: path.join(rootPath, "nope") })).rejects.toThrow(/has not been added yet/);
  });

  it("says why when sqlite-vec is unavailable", async () => {
    const home = fs.mkdtempSync(path.join(os.tmpdir(), "chunkpad-embed-novec-"));
    cleanups.push(() => fs.rmSync(home, { recursive: true, force: true }));
    const store = openMainStore({
      path: path.join(home, "chunkpad.db"),
      vectorLoader: () => {
        throw new Error("no such extension");
      },
    });
    cleanups.push(() => store.close());
    const { dependencies } = await setup();
    const error = await rejectionOf(embedSelected({ ...dependencies(fakeModel("test-org/fake", 4)), store }));
    expect(isChunkpadError(error, "VECTOR_UNAVAILABLE")).toBe(true);
    expect((error as Error).message).toMatch(/no such extension.*keyword search still works/i);
  });
});
