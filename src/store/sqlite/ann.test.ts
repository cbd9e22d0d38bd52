import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import { createRequire } from "node:module";
import { afterEach, describe, expect, it } from "vitest";
import { embedTextHash } from "../../core/chunk-ref.js";
import type { SqliteMainStore, OpenSqliteMainStoreOptions } from "./main-store.js";
import { openSqliteMainStore } from "./main-store.js";

/**
 * The approximate index as search sees it: the same hits as exact search on vectors with
 * structure, after incremental changes, after a crash between commit and save, with a missing
 * or damaged file, and under every filter. Threshold 100, so a few hundred vectors use it.
 */

const DIMENSIONS = 16;
const THRESHOLD = 100;
const cleanups: (() => void)[] = [];
afterEach(() => {
  for (const cleanup of cleanups.splice(0).reverse()) cleanup();
});

function databaseFile(): string {
  const directory = fs.mkdtempSync(path.join(os.tmpdir(), "chunkpad-ann-"));
  cleanups.push(() => fs.rmSync(directory, { recursive: true, force: true }));
  return path.join(directory, "chunkpad.db");
}

function open(file: string, options: Partial<OpenSqliteMainStoreOptions> = {}): SqliteMainStore {
  const store = openSqliteMainStore({ path: file, annThreshold: THRESHOLD, ...options });
  cleanups.push(() => store.close());
  return store;
}

/** Deterministic clustered unit vectors: a few centres, each point a centre plus noise. */
function clustered(count: number, seed: number): Float32Array[] {
  let state = seed >>> 0;
  const random = () => ((state = (state * 1664525 + 1013904223) >>> 0) / 4294967296);
  const gauss = () => Math.sqrt(-2 * Math.log(random() || 1e-9)) * Math.cos(2 * Math.PI * random());
  const normalize = (values: Float32Array) => {
    const length = Math.hypot(...values);
    return values.map((value) => value / length);
  };
  const centres = Array.from({ length: 12 }, () => normalize(Float32Array.from({ length: DIMENSIONS }, gauss)));
  return Array.from({ length: count }, () => {
    const centre = centres[Math.floor(random() * centres.length)] as Float32Array;
    return normalize(centre.map((value) => value + 0.5 * gauss() / Math.sqrt(DIMENSIONS)));
  });
}

/** Folders "/a" (documents a0..a9) and "/b" (b0..b9), 20 chunks each; every chunk embedded. */
function seed(store: SqliteMainStore, vectors: Float32Array[]) {
  const folders = ["/a", "/b"].map((root) => store.upsertFolder(root, `${root}/_chunks`).id);
  let next = 0;
  for (const [index, folderId] of folders.entries()) {
    for (let document = 0; document < 10; document++) {
      store.syncDocument({
        folderId, relativePath: `${"ab"[index]}${document}.md`, title: `doc ${index}-${document}`, documentType: "md", fileSize: 1, pageCount: null,
        chunks: Array.from({ length: 20 }, (_, chunk) => ({ content: `chunk ${index} ${document} ${chunk}`, meta: {} })),
      });
    }
  }
  const chunks = store.listChunks();
  store.ensureVectorTable(DIMENSIONS);
  store.upsertVectors(chunks.map((chunk) => ({ ref: chunk.ref, embedHash: embedTextHash(chunk), embedding: vectors[next++] as Float32Array })), "model");
  return { folders, chunks };
}

const refs = (store: SqliteMainStore, query: Float32Array, options: Record<string, unknown> = {}) => store.vectorSearch(query, { k: 10, ...options }).map((hit) => hit.chunk.ref);

/** The share of exact search's top 10 that `store` finds, over `queries`. */
function recall(exact: SqliteMainStore, store: SqliteMainStore, queries: Float32Array[]): number {
  let same = 0;
  for (const query of queries) {
    const truth = new Set(refs(exact, query));
    same += refs(store, query).filter((ref) => truth.has(ref)).length;
  }
  return same / (queries.length * 10);
}

/** The approximate top 10 shares at least 9 with the exact one (the graph is built on several threads, so ties may differ). */
function expectNearlySame(found: string[], exact: string[]): void {
  expect(found).toHaveLength(exact.length);
  expect(found.filter((ref) => exact.includes(ref)).length).toBeGreaterThanOrEqual(exact.length - 1);
}

describe("the approximate vector index", () => {
  const vectors = clustered(400, 7);
  const queries = clustered(20, 99);

  /** A database seeded and closed, so its index is saved beside it. */
  function saved() {
    const file = databaseFile();
    const store = open(file);
    const seeded = seed(store, vectors);
    store.close();
    return { file, ...seeded };
  }
  /** Gives one chunk another vector, as an embed run would. */
  const moveVector = (store: SqliteMainStore, chunk: { ref: string; title: string; content: string }, embedding: Float32Array) =>
    store.upsertVectors([{ ref: chunk.ref, embedHash: embedTextHash(chunk), embedding }], "model");

  it("finds what exact search finds, and is used above the threshold", () => {
    const file = databaseFile();
    const store = open(file);
    seed(store, vectors);
    const exact = open(file, { annThreshold: Number.POSITIVE_INFINITY });
    expect(recall(exact, store, queries)).toBeGreaterThanOrEqual(0.95);
    expect(store.vectorIndexInfo().loaded).toBe(400);
    expect(exact.vectorIndexInfo().loaded).toBe(0);
    // Candidates are re-scored from float16 copies: distances agree with exact ones to about 1e-3.
    const [hit] = store.vectorSearch(queries[0] as Float32Array, { k: 1 });
    const [truthHit] = exact.vectorSearch(queries[0] as Float32Array, { k: 1 });
    expect(Math.abs((hit?.distance ?? 0) - (truthHit?.distance ?? 1))).toBeLessThan(2e-3);
  });

  it("applies the same filters as exact search: folders, documents, excluded chunks", () => {
    const file = databaseFile();
    const store = open(file);
    const { folders, chunks } = seed(store, vectors);
    const exact = open(file, { annThreshold: Number.POSITIVE_INFINITY });
    const query = queries[3] as Float32Array;
    const nearest = refs(exact, query);
    store.setIncluded(nearest.slice(0, 3), false);
    expectNearlySame(refs(store, query), refs(exact, query));
    expect(refs(store, query).some((ref) => nearest.slice(0, 3).includes(ref))).toBe(false);
    const inFolder = refs(store, query, { folderIds: [folders[1]] });
    expectNearlySame(inFolder, refs(exact, query, { folderIds: [folders[1]] }));
    expect(inFolder.every((ref) => ref.startsWith(`${folders[1]}:`))).toBe(true);
    // Many of the nearest excluded, many asked for: still that many, none excluded.
    const nearest60 = refs(exact, query, { k: 60 });
    store.setIncluded(nearest60, false);
    const many = refs(store, query, { k: 100 });
    expect(many).toHaveLength(100);
    expect(many.some((ref) => nearest60.includes(ref))).toBe(false);
    expect(many.filter((ref) => refs(exact, query, { k: 100 }).includes(ref)).length).toBeGreaterThanOrEqual(95);
    store.setIncluded(nearest60, true);
    // One document's 20 chunks: fewer than the threshold, answered exactly.
    const documentId = chunks[25]?.documentId;
    expect(refs(store, query, { documentIds: [documentId] })).toEqual(refs(exact, query, { documentIds: [documentId] }));
  });

  it("follows changes made by other processes, and after a crash before the index was saved", () => {
    const { file, chunks } = saved();
    expect(fs.readdirSync(path.dirname(file)).some((name) => name.includes(".ivf-"))).toBe(true);

    // Another process changes vectors and "crashes": it never closes, so the index file is behind.
    const writer = openSqliteMainStore({ path: file, annThreshold: THRESHOLD });
    const target = queries[5] as Float32Array;
    const moved = chunks[10] as (typeof chunks)[number];
    moveVector(writer, moved, target);
    const gone = chunks[11] as (typeof chunks)[number];
    writer.deleteVectors([gone.ref]);
    // Many at once, as an embed run leaves them: a hundred chunks get other vectors.
    const revectored = clustered(100, 123);
    writer.upsertVectors(chunks.slice(100, 200).map((chunk, index) => ({ ref: chunk.ref, embedHash: embedTextHash(chunk), embedding: revectored[index] as Float32Array })), "model");

    const reader = open(file);
    const found = refs(reader, target);
    expect(found[0]).toBe(moved.ref);
    for (const index of [0, 42, 99]) expect(refs(reader, revectored[index] as Float32Array)[0]).toBe((chunks[100 + index] as (typeof chunks)[number]).ref);
    expect(refs(reader, vectors[11] as Float32Array)).not.toContain(gone.ref);
    reader.close();
    writer.close();
    const exact = open(file, { annThreshold: Number.POSITIVE_INFINITY });
    const again = open(file);
    expect(recall(exact, again, queries)).toBeGreaterThanOrEqual(0.95);
  });

  it("searches a saved index without building it, and still follows changes another process makes afterwards", () => {
    const { file, chunks } = saved();
    const exact = open(file, { annThreshold: Number.POSITIVE_INFINITY });
    // A one-off search maps the saved file (nothing to apply from the log) and answers from it.
    const reader = open(file);
    expectNearlySame(refs(reader, queries[0] as Float32Array), refs(exact, queries[0] as Float32Array));
    expect(reader.vectorIndexInfo()).toMatchObject({ loaded: chunks.length, builds: 0 });
    // Then another process moves a chunk's vector: the mapped index cannot change, so the reader takes a copy and applies it.
    const writer = open(file);
    const moved = chunks[7] as (typeof chunks)[number];
    moveVector(writer, moved, queries[3] as Float32Array);
    expect(refs(reader, queries[3] as Float32Array)[0]).toBe(moved.ref);
    expect(reader.vectorIndexInfo()).toMatchObject({ loaded: chunks.length, builds: 0 });
  });

  /** A database whose index is saved, and a reader (`serve`) that has searched it: it holds some lists and reads the rest by position. */
  function savedAndSearched() {
    const { file, chunks } = saved();
    const reader = open(file);
    refs(reader, queries[0] as Float32Array);
    refs(reader, queries[1] as Float32Array);
    return { file, chunks, reader };
  }

  it("keeps answering from the file it loaded after another process saves a newer one and deletes it", () => {
    const { file, chunks, reader } = savedAndSearched();
    const loaded = fs.readdirSync(path.dirname(file)).filter((name) => name.includes(".ivf-"));
    // An embed run in another terminal moves a vector; the reader sees the change in the log...
    const writer = openSqliteMainStore({ path: file, annThreshold: THRESHOLD });
    const moved = chunks[30] as (typeof chunks)[number];
    moveVector(writer, moved, queries[4] as Float32Array);
    expect(refs(reader, queries[4] as Float32Array)[0]).toBe(moved.ref);
    // ...then the run ends: it saves its own file, removes the one the reader loaded, and prunes the log.
    writer.close();
    const now = fs.readdirSync(path.dirname(file)).filter((name) => name.includes(".ivf-"));
    expect(now.some((name) => loaded.includes(name))).toBe(false);
    // Every query still answers, with every list of the file it loaded, and the moved vector is found.
    const exact = open(file, { annThreshold: Number.POSITIVE_INFINITY });
    expect(recall(exact, reader, queries)).toBeGreaterThanOrEqual(0.99);
    expect(refs(reader, queries[4] as Float32Array)[0]).toBe(moved.ref);
  });

  it("scores given chunks as exact search does, from the index once it is loaded, with vectors changed or removed since its save", () => {
    const { file, chunks, reader } = savedAndSearched();
    const writer = openSqliteMainStore({ path: file, annThreshold: THRESHOLD });
    const moved = chunks[12] as (typeof chunks)[number];
    const gone = chunks[13] as (typeof chunks)[number];
    moveVector(writer, moved, queries[6] as Float32Array);
    writer.deleteVectors([gone.ref]);
    writer.close();
    const exact = open(file, { annThreshold: Number.POSITIVE_INFINITY });
    const asked = [...chunks.slice(0, 40).map((chunk) => chunk.ref), "nowhere:x.md#1"];
    for (const query of [queries[6], queries[2]] as Float32Array[]) {
      const scored = reader.vectorDistances(query, asked);
      const truth = exact.vectorDistances(query, asked);
      expect([...scored.keys()].sort()).toEqual([...truth.keys()].sort());
      expect(scored.has(gone.ref)).toBe(false);
      // Float16 copies: the same distance to 3 digits.
      for (const [ref, distance] of truth) expect(scored.get(ref)).toBeCloseTo(distance, 3);
    }
    expect(reader.vectorDistances(queries[6] as Float32Array, [moved.ref]).get(moved.ref)).toBeCloseTo(0, 3);
  });

  it("rebuilds from the rows when the index file is missing or damaged", () => {
    const { file, chunks } = saved();
    // A later change, saved into the index file and pruned from the log.
    const writer = open(file);
    const changed = chunks[7] as (typeof chunks)[number];
    moveVector(writer, changed, queries[0] as Float32Array);
    writer.close();
    const exact = open(file, { annThreshold: Number.POSITIVE_INFINITY });
    const indexFile = () => path.join(path.dirname(file), fs.readdirSync(path.dirname(file)).find((name) => name.includes(".ivf-")) as string);

    fs.writeFileSync(indexFile(), "not an index");
    const damaged = open(file);
    expectNearlySame(refs(damaged, queries[1] as Float32Array), refs(exact, queries[1] as Float32Array));
    expect(damaged.vectorIndexInfo().loaded).toBe(400);
    // Built once, then used: the next searches do not build it again (the log is empty now,
    // pruned by the save before; the rebuilt index knows it holds those changes).
    for (const query of queries.slice(3, 6)) refs(damaged, query);
    expect(damaged.vectorIndexInfo().builds).toBe(1);
    damaged.close();
    // The file it saved is loaded by the next process, not rebuilt.
    const reopened = open(file);
    expectNearlySame(refs(reopened, queries[1] as Float32Array), refs(exact, queries[1] as Float32Array));
    expect(reopened.vectorIndexInfo().builds).toBe(0);
    reopened.close();

    fs.rmSync(indexFile());
    const missing = open(file);
    expectNearlySame(refs(missing, queries[2] as Float32Array), refs(exact, queries[2] as Float32Array));
    refs(missing, queries[3] as Float32Array);
    expect(missing.vectorIndexInfo().builds).toBe(1);
  });

  it("leaves no index file behind when a folder is removed or the vectors are dropped", () => {
    const { file, folders } = saved();
    const reopened = open(file);
    const indexFiles = () => fs.readdirSync(path.dirname(file)).filter((name) => name.includes(".ivf"));
    expect(indexFiles().length).toBeGreaterThan(0);
    reopened.removeFolder(folders[0] as string);
    expect(indexFiles()).toEqual([]);
    // The rest is found again, exactly (200 vectors, above the threshold: rebuilt).
    const exact = open(file, { annThreshold: Number.POSITIVE_INFINITY });
    const left = refs(reopened, queries[4] as Float32Array);
    expectNearlySame(left, refs(exact, queries[4] as Float32Array));
    expect(left.every((ref) => ref.startsWith(`${folders[1]}:`))).toBe(true);
    expect(reopened.vectorIndexInfo().loaded).toBe(200);
    reopened.close();
    const last = open(file);
    last.dropAllVectors();
    expect(indexFiles()).toEqual([]);
  });

  it("finds at least 99 % of exact search's top 10 on clustered vectors", () => {
    const file = databaseFile();
    const store = open(file);
    seed(store, vectors);
    const exact = open(file, { annThreshold: Number.POSITIVE_INFINITY });
    const many = clustered(200, 2024);
    expect(recall(exact, store, many)).toBeGreaterThanOrEqual(0.99);
  });

  it("follows adds and removes made in the same process between saves, and keeps them once saved", () => {
    const { file, chunks } = saved();
    const writer = open(file);
    refs(writer, queries[0] as Float32Array);
    const moved = chunks[30] as (typeof chunks)[number];
    moveVector(writer, moved, queries[6] as Float32Array);
    const gone = chunks[31] as (typeof chunks)[number];
    writer.deleteVectors([gone.ref]);
    expect(refs(writer, queries[6] as Float32Array)[0]).toBe(moved.ref);
    expect(refs(writer, vectors[31] as Float32Array)).not.toContain(gone.ref);
    expect(writer.vectorIndexInfo()).toMatchObject({ loaded: 399, builds: 0 });
    writer.close();
    const reopened = open(file);
    expect(refs(reopened, queries[6] as Float32Array)[0]).toBe(moved.ref);
    expect(refs(reopened, vectors[31] as Float32Array)).not.toContain(gone.ref);
    expect(reopened.vectorIndexInfo()).toMatchObject({ loaded: 399, builds: 0 });
  });

  it("builds its lists again when the vectors have more than doubled since they were made", () => {
    const file = databaseFile();
    const store = open(file);
    const { chunks } = seed(store, vectors);
    // Start from 120 vectors: the index is built on those.
    store.deleteVectors(chunks.slice(120).map((chunk) => chunk.ref));
    store.close();
    const grower = open(file);
    refs(grower, queries[0] as Float32Array);
    const builtBefore = grower.vectorIndexInfo().builds;
    grower.upsertVectors(chunks.slice(120).map((chunk, index) => ({ ref: chunk.ref, embedHash: embedTextHash(chunk), embedding: vectors[120 + index] as Float32Array })), "model");
    const exact = open(file, { annThreshold: Number.POSITIVE_INFINITY });
    expect(recall(exact, grower, queries)).toBeGreaterThanOrEqual(0.95);
    expect(grower.vectorIndexInfo()).toMatchObject({ loaded: 400, builds: builtBefore + 1 });
  });

  it("rebuilds an index file of the earlier format (an HNSW graph) once, and removes it", () => {
    const { file, chunks } = saved();
    const directory = path.dirname(file);
    for (const name of fs.readdirSync(directory)) if (name.includes(".ivf")) fs.rmSync(path.join(directory, name));
    // What the earlier build left: a usearch graph file named by a sidecar of its own.
    const { Index } = createRequire(import.meta.url)("usearch") as { Index: new (config: object) => { add(keys: BigUint64Array, vectors: Float32Array): void; save(file: string): void } };
    const graph = new Index({ metric: "cos", dimensions: DIMENSIONS, quantization: "f16", connectivity: 24, expansion_add: 128, expansion_search: 128, multi: false });
    graph.add(BigUint64Array.from(chunks, (_, index) => BigInt(index + 1)), Float32Array.from(vectors.flatMap((vector) => [...vector])));
    graph.save(`${file}.usearch-0123456789ab`);
    fs.writeFileSync(`${file}.usearch.json`, JSON.stringify({ file: "chunkpad.db.usearch-0123456789ab", appliedSeq: 0, dimensions: DIMENSIONS, bytes: 1, sample: "x", vectors: 400 }));
    const upgraded = open(file);
    const exact = open(file, { annThreshold: Number.POSITIVE_INFINITY });
    expectNearlySame(refs(upgraded, queries[1] as Float32Array), refs(exact, queries[1] as Float32Array));
    expect(upgraded.vectorIndexInfo()).toMatchObject({ loaded: 400, builds: 1 });
    upgraded.close();
    expect(fs.readdirSync(directory).filter((name) => name.includes(".usearch"))).toEqual([]);
    const next = open(file);
    expectNearlySame(refs(next, queries[2] as Float32Array), refs(exact, queries[2] as Float32Array));
    expect(next.vectorIndexInfo().builds).toBe(0);
  });

  it("stays exact below the threshold", () => {
    const file = databaseFile();
    const store = open(file, { annThreshold: 10_000 });
    seed(store, vectors);
    expect(refs(store, queries[0] as Float32Array)).toHaveLength(10);
    expect(store.vectorIndexInfo().loaded).toBe(0);
    store.close();
    expect(fs.readdirSync(path.dirname(file)).some((name) => name.includes(".ivf"))).toBe(false);
  });
});
