import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import { openSqlite } from "./driver.js";
import { afterEach, describe, expect, it } from "vitest";
import { embedTextHash } from "../../core/chunk-ref.js";
import type { SqliteMainStore, OpenSqliteMainStoreOptions } from "./main-store.js";
import { openSqliteMainStore } from "./main-store.js";

const cleanups: (() => void)[] = [];
afterEach(() => {
  for (const cleanup of cleanups.splice(0).reverse()) cleanup();
});

function databaseFile(): string {
  const directory = fs.mkdtempSync(path.join(os.tmpdir(), "chunkpad-vectors-"));
  cleanups.push(() => fs.rmSync(directory, { recursive: true, force: true }));
  return path.join(directory, "chunkpad.db");
}

function open(file: string, options: Partial<OpenSqliteMainStoreOptions> = {}): SqliteMainStore {
  const store = openSqliteMainStore({ path: file, ...options });
  cleanups.push(() => store.close());
  return store;
}

/** A folder "/zoo" with animals.md (4 chunks) and plants.md (1 chunk). */
function seed(store: SqliteMainStore): { folderId: string; ref: (n: number, file?: string) => string } {
  const folderId = store.upsertFolder("/zoo", "/zoo/_chunks").id;
  const add = (relativePath: string, contents: string[]) =>
    store.syncDocument({ folderId, relativePath, title: relativePath, documentType: "md", fileSize: 1, pageCount: null, chunks: contents.map((content) => ({ content, meta: {} })) });
  add("animals.md", ["cat", "dog", "eel", "fox"]);
  add("plants.md", ["fern"]);
  return { folderId, ref: (n, file = "animals.md") => `${folderId}:${file}#${n}` };
}

const vector = (...values: number[]) => new Float32Array(values);

function embedAll(store: SqliteMainStore, vectors: Record<string, Float32Array>): void {
  const chunks = store.getChunks(Object.keys(vectors));
  store.upsertVectors(chunks.map((chunk) => ({ ref: chunk.ref, embedHash: embedTextHash(chunk), embedding: vectors[chunk.ref] as Float32Array })), "model-a");
}

describe("vector storage and search (sqlite-vec)", () => {
  it("returns the nearest chunks first, by cosine distance", () => {
    const store = open(databaseFile());
    expect(store.vectorAvailable).toBe(true);
    const { ref } = seed(store);
    store.ensureVectorTable(4);
    embedAll(store, {
      [ref(1)]: vector(1, 0, 0, 0),
      [ref(2)]: vector(0.8, 0.6, 0, 0),
      [ref(3)]: vector(0, 1, 0, 0),
      [ref(4)]: vector(-1, 0, 0, 0),
    });
    const hits = store.vectorSearch(vector(2, 0, 0, 0), { k: 3 });
    expect(hits.map((hit) => hit.chunk.content)).toEqual(["cat", "dog", "eel"]);
    expect(hits.map((hit) => hit.distance)).toEqual([expect.closeTo(0, 5), expect.closeTo(0.2, 5), expect.closeTo(1, 5)]);
    expect(hits.every((hit) => !hit.stale)).toBe(true);
    expect(store.vectorCount()).toBe(4);
    expect(store.vectorDimensions()).toBe(4);
  });

  it("never returns an excluded chunk, and still fills k from the rest", () => {
    const store = open(databaseFile());
    const { ref, folderId } = seed(store);
    embedAll(store, { [ref(1)]: vector(1, 0, 0, 0), [ref(2)]: vector(0.9, 0.1, 0, 0), [ref(3)]: vector(0, 1, 0, 0), [ref(1, "plants.md")]: vector(0.95, 0, 0.05, 0) });
    store.setIncluded([ref(1), ref(1, "plants.md")], false);
    expect(store.vectorSearch(vector(1, 0, 0, 0), { k: 2 }).map((hit) => hit.chunk.content)).toEqual(["dog", "eel"]);
    expect(store.vectorSearch(vector(1, 0, 0, 0), { k: 1, folderIds: [folderId] }).map((hit) => hit.chunk.content)).toEqual(["dog"]);
    const plants = store.findDocuments("plants.md")[0]?.id as string;
    expect(store.vectorSearch(vector(1, 0, 0, 0), { k: 5, documentIds: [plants] })).toEqual([]);
    store.setIncluded([ref(1, "plants.md")], true);
    expect(store.vectorSearch(vector(1, 0, 0, 0), { k: 5, documentIds: [plants] }).map((hit) => hit.chunk.content)).toEqual(["fern"]);
    expect(store.vectorSearch(vector(1, 0, 0, 0), { k: 5, folderIds: ["elsewhere"] })).toEqual([]);
  });

  it("applies text constraints before k, with the keyword index's stemming, scope and review state", () => {
    const store = open(databaseFile());
    const folderId = store.upsertFolder("/birds", "/birds/_chunks").id;
    store.syncDocument({
      folderId, relativePath: "birds.md", title: "Birds", documentType: "md", fileSize: 1, pageCount: null,
      chunks: ["Herons by the river", "A heron at dawn", "The river in spring", "Grey river stones", "Quiet river banks"].map((content) => ({ content, meta: {} })),
    });
    const ref = (n: number) => `${folderId}:birds.md#${n}`;
    embedAll(store, { [ref(1)]: vector(1, 0, 0, 0), [ref(2)]: vector(0.99, 0.1, 0, 0), [ref(3)]: vector(0.5, 0.5, 0, 0), [ref(4)]: vector(0, 1, 0, 0), [ref(5)]: vector(0, 0, 1, 0) });
    const query = vector(1, 0, 0, 0);
    const contents = (text: { required?: string; excluded?: string }, k = 2) => store.vectorSearch(query, { k, text }).map((hit) => hit.chunk.content);
    // The two nearest both say heron ("Herons" stems to it): k still gets two others.
    expect(contents({ excluded: '"heron"' })).toEqual(["The river in spring", "Grey river stones"]);
    expect(contents({ required: '"river stones" OR "quiet river"' }, 5)).toEqual(["Grey river stones", "Quiet river banks"]);
    expect(contents({ required: '"river"', excluded: '"spring" OR "heron"' }, 5)).toEqual(["Grey river stones", "Quiet river banks"]);
    store.setIncluded([ref(4)], false);
    expect(contents({ excluded: '"heron"' })).toEqual(["The river in spring", "Quiet river banks"]);
    expect(store.vectorSearch(query, { k: 5, folderIds: ["elsewhere"], text: { excluded: '"heron"' } })).toEqual([]);
    expect(store.vectorSearch(query, { k: 1, text: { excluded: '"heron"' } })[0]).toMatchObject({ distance: expect.closeTo(1 - Math.SQRT1_2, 4), stale: false });
  });

  it("counts the included chunks in a scope that have a vector", () => {
    const store = open(databaseFile());
    const { ref, folderId } = seed(store);
    expect(store.embedCoverage()).toEqual({ chunks: 5, embedded: 0 });
    embedAll(store, { [ref(1)]: vector(1, 0, 0, 0), [ref(2)]: vector(0, 1, 0, 0), [ref(1, "plants.md")]: vector(0, 0, 1, 0) });
    expect(store.embedCoverage()).toEqual({ chunks: 5, embedded: 3 });
    store.setIncluded([ref(1)], false);
    expect(store.embedCoverage()).toEqual({ chunks: 4, embedded: 2 });
    expect(store.embedCoverage({ folderIds: [folderId] })).toEqual({ chunks: 4, embedded: 2 });
    const plants = store.findDocuments("plants.md")[0]?.id as string;
    expect(store.embedCoverage({ documentIds: [plants] })).toEqual({ chunks: 1, embedded: 1 });
    expect(store.embedCoverage({ folderIds: [] })).toEqual({ chunks: 0, embedded: 0 });
    // The counts are kept between searches, but never past a write, here or in another process.
    const other = open(store.path);
    embedAll(other, { [ref(3)]: vector(0, 0, 0, 1) });
    other.close();
    expect(store.embedCoverage({ folderIds: [folderId] })).toEqual({ chunks: 4, embedded: 3 });
    // A review decision outlives its chunk (it follows the text): a deleted chunk counts nowhere.
    store.setIncluded([ref(1, "plants.md")], false);
    store.deleteDocument(folderId, "plants.md");
    expect(store.embedCoverage()).toEqual({ chunks: 3, embedded: 2 });
    expect(store.embedCoverage({ folderIds: [folderId] })).toEqual({ chunks: 3, embedded: 2 });
  });

  it("refuses vectors of another size with EMBEDDING_MISMATCH until re-embedded", () => {
    const store = open(databaseFile());
    const { ref } = seed(store);
    store.ensureVectorTable(4);
    store.ensureVectorTable(4);
    expect(() => store.ensureVectorTable(8)).toThrow(expect.objectContaining({ code: "EMBEDDING_MISMATCH", nextSteps: expect.arrayContaining([{ action: "embed", reembed: true }]) }));
    expect(() => store.vectorSearch(new Float32Array(8), { k: 1 })).toThrow(expect.objectContaining({ code: "EMBEDDING_MISMATCH" }));
    const chunk = store.getChunk(ref(1));
    expect(() => store.upsertVectors([{ ref: ref(1), embedHash: chunk ? embedTextHash(chunk) : "", embedding: new Float32Array(3) }], "m")).toThrow(
      expect.objectContaining({ code: "EMBEDDING_MISMATCH" }),
    );
    expect(() => store.ensureVectorTable(0)).toThrow(expect.objectContaining({ code: "INVALID_ARGUMENT" }));

    store.dropAllVectors();
    expect(store.vectorDimensions()).toBeNull();
    expect(store.vectorSearch(vector(1, 0, 0, 0, 0, 0, 0, 0), { k: 1 })).toEqual([]);
    store.ensureVectorTable(8);
    embedAll(store, { [ref(1)]: vector(1, 0, 0, 0, 0, 0, 0, 0) });
    expect(store.vectorSearch(vector(1, 0, 0, 0, 0, 0, 0, 0), { k: 1 }).map((hit) => hit.chunk.content)).toEqual(["cat"]);
  });

  it("reports per chunk what is new, embedded, modified and excluded", () => {
    const store = open(databaseFile());
    const { ref, folderId } = seed(store);
    embedAll(store, { [ref(1)]: vector(1, 0), [ref(2)]: vector(0, 1) });
    store.setIncluded([ref(3)], false);
    store.syncDocument({ folderId, relativePath: "animals.md", title: "animals.md", documentType: "md", fileSize: 1, pageCount: null,
      chunks: ["cat", "dog, edited", "eel", "fox"].map((content) => ({ content, meta: {} })) });

    const state = new Map(store.embedState(folderId).map((row) => [row.ref, row]));
    expect(state.size).toBe(5);
    const cat = state.get(ref(1));
    expect(cat?.embeddedHash).toBe(cat?.embedHash);
    expect(cat?.embeddedFingerprint).toBe("model-a");
    const dog = state.get(ref(2));
    expect(dog?.embeddedHash).not.toBeNull();
    expect(dog?.embeddedHash).not.toBe(dog?.embedHash);
    expect(state.get(ref(3))).toMatchObject({ included: false, embeddedHash: null, embeddedFingerprint: null });
    expect(store.embedState("no-such-folder")).toEqual([]);
    expect(store.vectorSearch(vector(0, 1), { k: 1 })[0]).toMatchObject({ stale: true, chunk: { content: "dog, edited" } });
    expect(store.listFolders()[0]).toMatchObject({ embeddedChunkCount: 1, modifiedChunkCount: 1 });

    expect(store.deleteVectors([ref(1), ref(1), ref(4)])).toBe(1);
    expect(store.vectorCount()).toBe(1);
  });

  it("skips refs whose chunk is gone and writes a whole batch or nothing", () => {
    const file = databaseFile();
    const store = open(file);
    const { ref } = seed(store);
    const [cat, dog, eel] = store.getChunks([ref(1), ref(2), ref(3)]);
    expect(store.upsertVectors([{ ref: "gone:x.md#1", embedHash: "h", embedding: vector(1, 0) }, { ref: ref(1), embedHash: cat ? embedTextHash(cat) : "", embedding: vector(1, 0) }], "m"))
      .toEqual({ written: 1, missingRefs: ["gone:x.md#1"] });

    // Make the write of the third vector's record fail, as a crash mid-batch would.
    const saboteur = openSqlite(file);
    saboteur.exec(`CREATE TRIGGER fail_eel BEFORE INSERT ON embedded_chunk_refs WHEN new.chunk_ref = '${ref(3)}' BEGIN SELECT RAISE(ABORT, 'disk pulled'); END`);
    saboteur.close();
    expect(() => store.upsertVectors([
      { ref: ref(2), embedHash: dog ? embedTextHash(dog) : "", embedding: vector(0, 1) },
      { ref: ref(3), embedHash: eel ? embedTextHash(eel) : "", embedding: vector(1, 1) },
    ], "m")).toThrow(/disk pulled/);
    expect(store.vectorCount()).toBe(1);
    expect(store.vectorSearch(vector(0, 1), { k: 5 }).map((hit) => hit.chunk.content)).toEqual(["cat"]);
    expect(() => store.upsertVectors([{ ref: ref(2), embedHash: "h", embedding: vector(Number.NaN, 1) }], "m")).toThrow(expect.objectContaining({ code: "EMBEDDING_FAILED" }));
  });

  it("deletes vectors with the chunks, documents and folders they belong to", () => {
    const file = databaseFile();
    const store = open(file);
    const { ref, folderId } = seed(store);
    embedAll(store, { [ref(1)]: vector(1, 0), [ref(2)]: vector(0, 1), [ref(3)]: vector(1, 1), [ref(4)]: vector(1, -1), [ref(1, "plants.md")]: vector(-1, 0) });
    const vecRows = () => {
      const raw = openSqlite(file, { readOnly: true });
      try {
        return raw.prepare("SELECT COUNT(*) FROM vec_chunks_rowids").pluck().get();
      } finally {
        raw.close();
      }
    };
    expect(vecRows()).toBe(5);
    store.syncDocument({ folderId, relativePath: "animals.md", title: "animals.md", documentType: "md", fileSize: 1, pageCount: null, chunks: [{ content: "cat", meta: {} }, { content: "dog", meta: {} }] });
    expect([store.vectorCount(), vecRows()]).toEqual([3, 3]);
    store.deleteDocument(folderId, "plants.md");
    expect([store.vectorCount(), vecRows()]).toEqual([2, 2]);
    store.removeFolder(folderId);
    expect([store.vectorCount(), vecRows()]).toEqual([0, 0]);
    expect(store.integrityCheck()).toEqual({ ok: true, problems: [] });
  });
});

describe("without sqlite-vec", () => {
  it("opens, says why vectors are off, and keeps keyword search working", () => {
    const store = open(databaseFile(), { loadVectorExtension: false });
    expect(store.vectorAvailable).toBe(false);
    expect(store.vectorUnavailableReason).toMatch(/keyword search still works/);
    const { ref } = seed(store);
    expect(store.keywordSearch("cat", { limit: 5 }).map((hit) => hit.chunk.ref)).toEqual([ref(1)]);
    expect(() => store.vectorSearch(vector(1, 0), { k: 1 })).toThrow(expect.objectContaining({ code: "VECTOR_UNAVAILABLE" }));
    expect(() => store.ensureVectorTable(4)).toThrow(expect.objectContaining({ code: "VECTOR_UNAVAILABLE" }));
    expect(store.vectorCount()).toBe(0);
  });

  it("explains a failed load with the loader's error and how to fix it", () => {
    const store = open(databaseFile(), {
      vectorLoader: () => {
        throw new Error("vec0.so: cannot open shared object file");
      },
    });
    expect(store.vectorAvailable).toBe(false);
    expect(store.vectorUnavailableReason).toMatch(/cannot open shared object file/);
    expect(store.vectorUnavailableReason).toMatch(/npm install/);
    seed(store);
    expect(store.keywordSearch("fern", { limit: 5 })).toHaveLength(1);
  });

  it("keeps the database consistent when chunks are deleted while vectors are off", () => {
    const file = databaseFile();
    const withVectors = openSqliteMainStore({ path: file });
    const { ref, folderId } = seed(withVectors);
    embedAll(withVectors, { [ref(1)]: vector(1, 0), [ref(2)]: vector(0, 1) });
    withVectors.close();

    const keywordOnly = openSqliteMainStore({ path: file, loadVectorExtension: false });
    expect(keywordOnly.deleteDocument(folderId, "animals.md")).toBe(true);
    expect(keywordOnly.vectorCount()).toBe(0);
    keywordOnly.close();

    const again = open(file);
    again.ensureVectorTable(2);
    expect(again.vectorSearch(vector(1, 0), { k: 5 })).toEqual([]);
    const raw = openSqlite(file, { readOnly: true });
    expect(raw.prepare("SELECT COUNT(*) FROM vec_chunks_rowids").pluck().get()).toBe(0);
    raw.close();
  });
});
