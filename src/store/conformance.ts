import { afterEach, describe, expect, it } from "vitest";
import { embedTextHash } from "../core/chunk-ref.js";
import type { KeywordQuery } from "../core/keyword-query.js";
import type { MainStore, StoreOpener } from "./contract.js";
import { lifetimeCases } from "./conformance-lifetime.js";
import { runKeywordCases } from "./conformance-keyword.js";
import { runScoreCases } from "./conformance-scores.js";

/**
 * The behaviour every main-store backend must have, as one suite any backend runs against its
 * own factory (in the spirit of hono's shared router cases):
 *
 *   runStoreSuite({ name: "sqlite", open: () => openMainStore({ path: tempFile() }) });
 *
 * `open` gives a new, empty store for each test. Everything goes through the async contract;
 * nothing here knows SQL, FTS5 or sqlite-vec. Excluded from the build (a test helper).
 */
export interface StoreSuiteOptions {
  name: string;
  /** `opener`: who opens it (command, machine), for the lease cases. */
  open: (opener?: StoreOpener) => MainStore | Promise<MainStore>;
  /**
   * False for a configuration that stores no vectors (SQLite without sqlite-vec): its vector cases
   * are declared skips with that reason, never silent passes. Default true, and then a store that
   * cannot store vectors fails them.
   */
  vectors?: boolean;
  /** Opens the same data again, as a second process would (for leases and destroy). */
  reopen?: (store: MainStore, opener?: StoreOpener) => Promise<MainStore>;
  /** False for a backend whose leases cannot be tested here (PGlite: one session). Default true. */
  leases?: boolean;
}

const words = (...terms: string[]): KeywordQuery => ({ terms: terms.map((word) => ({ word, prefix: false })), match: "all", phrases: [], exclude: [] });
const vector = (...values: number[]) => new Float32Array(values);

export function runStoreSuite({ name, open, reopen, leases, vectors: storesVectors = true }: StoreSuiteOptions): void {
  const vectorCase = storesVectors ? it : it.skip;
  describe(`store contract: ${name}`, () => {
    const opened: MainStore[] = [];
    afterEach(async () => {
      for (const store of opened.splice(0)) await store.close();
    });

    async function fresh(opener?: StoreOpener): Promise<MainStore> {
      const store = await open(opener);
      opened.push(store);
      return store;
    }

    /** A folder "/zoo" with animals.md (four chunks) and plants.md (one chunk). */
    async function seeded() {
      const store = await fresh();
      const folder = await store.upsertFolder("/zoo", "/zoo/_chunks");
      const add = (relativePath: string, contents: string[], title = relativePath) =>
        store.syncDocument({ folderId: folder.id, relativePath, title, documentType: "md", fileSize: 10, pageCount: null, chunks: contents.map((content) => ({ content, meta: {} })) });
      await add("animals.md", ["The cat sleeps on the warm sofa.", "A dog runs in the park.", "The eel swims in the river.", "A fox hunts at night near the river."]);
      await add("plants.md", ["The fern grows in the shade."], "Ferns");
      const ref = (n: number, file = "animals.md") => `${folder.id}:${file}#${n}`;
      return { store, folder, add, ref };
    }

    async function embed(store: MainStore, vectors: Record<string, Float32Array>, fingerprint = "model-a") {
      const chunks = await store.getChunks(Object.keys(vectors));
      return store.upsertVectors(chunks.map((chunk) => ({ ref: chunk.ref, embedHash: embedTextHash(chunk), embedding: vectors[chunk.ref] as Float32Array })), fingerprint);
    }

    lifetimeCases(fresh, reopen, leases);

    describe("folders and documents", () => {
      it("adds a folder once, finds it by id and path, and lists it with live counts", async () => {
        const { store, folder } = await seeded();
        expect((await store.upsertFolder("/zoo", "/zoo/_chunks")).id).toBe(folder.id);
        expect((await store.getFolder(folder.id))?.rootPath).toBe("/zoo");
        expect((await store.getFolderByPath("/zoo"))?.id).toBe(folder.id);
        expect(await store.getFolderByPath("/elsewhere")).toBeNull();
        const [summary] = await store.listFolders();
        expect(summary).toMatchObject({ id: folder.id, documentCount: 2, storedChunkCount: 5, includedChunkCount: 5, embeddedChunkCount: 0 });
      });

      it("lists every folder's place, by root path, without counts", async () => {
        const { store, folder } = await seeded();
        const other = await store.upsertFolder("/apple", "/apple/_chunks");
        const places = await store.listFolderPlaces();
        expect(places.map((place) => [place.id, place.rootPath, place.chunksRootPath])).toEqual([[other.id, "/apple", "/apple/_chunks"], [folder.id, "/zoo", "/zoo/_chunks"]]);
        expect(places[1]).toEqual(await store.getFolder(folder.id));
      });

      it("keeps per-folder settings and the review default for new text", async () => {
        const { store, folder } = await seeded();
        expect(await store.getFolderSettings(folder.id)).toBeNull();
        await store.setFolderSettings(folder.id, { chunkSizeTokens: 200 });
        expect(await store.getFolderSettings(folder.id)).toEqual({ chunkSizeTokens: 200 });
        await store.setNewChunksIncluded(folder.id, false);
        expect((await store.getFolder(folder.id))?.newChunksIncluded).toBe(false);
      });

      it("syncs a document's chunks: unchanged chunks stay, changed ones are reported, extra ones removed", async () => {
        const { store, add, ref } = await seeded();
        const result = await add("animals.md", ["The cat sleeps on the warm sofa.", "A dog sleeps all day."]);
        expect(result).toMatchObject({ added: 0, updated: 1, removed: 2, unchanged: 1 });
        expect(result.changedRefs).toEqual([ref(2)]);
        expect(result.removedRefs.sort()).toEqual([ref(3), ref(4)]);
        expect((await store.listChunks({ relativePath: "animals.md" })).map((chunk) => chunk.content)).toEqual(["The cat sleeps on the warm sofa.", "A dog sleeps all day."]);
      });

      it("reads documents and chunks by id, path, ref and filter, in order", async () => {
        const { store, folder, ref } = await seeded();
        const document = await store.getDocumentByPath(folder.id, "plants.md");
        expect(document?.title).toBe("Ferns");
        expect((await store.getDocument(document?.id ?? ""))?.relativePath).toBe("plants.md");
        expect((await store.listDocuments(folder.id)).map((item) => item.relativePath).sort()).toEqual(["animals.md", "plants.md"]);
        expect((await store.findDocuments("fern")).map((item) => item.relativePath)).toEqual(["plants.md"]);
        expect((await store.getChunk(ref(3)))?.content).toContain("eel");
        expect((await store.getChunks([ref(4), "nope:x#1", ref(1)])).map((chunk) => chunk.ordinal)).toEqual([4, 1]);
        expect(await store.listChunks({ documentId: document?.id ?? "" })).toHaveLength(1);
      });

      it("names chunks by their stable ref, never by a backend's row id", async () => {
        const { store, ref } = await seeded();
        const [chunk] = await store.getChunks([ref(1)]);
        expect(chunk?.ref).toBe(ref(1));
        expect(Object.keys(chunk ?? {})).not.toContain("id");
        const [hit] = await store.keywordSearch(words("cat"), { limit: 5 });
        expect(Object.keys(hit?.chunk ?? {})).not.toContain("id");
      });

      it("remembers sources for the incremental run", async () => {
        const { store, folder } = await seeded();
        const source = { folderId: folder.id, relativePath: "animals.md", size: 10, mtimeMs: 1, sourceHash: "h", chunkFileHash: null, syncedChunkFileHash: null, status: "processed" as const, errorCode: null, errorMessage: null, processedAt: new Date(0).toISOString() };
        await store.upsertSource(source);
        expect(await store.getSource(folder.id, "animals.md")).toMatchObject({ sourceHash: "h", status: "processed" });
        expect(await store.listSources(folder.id)).toHaveLength(1);
        expect(await store.deleteSource(folder.id, "animals.md")).toBe(true);
        expect(await store.getSource(folder.id, "animals.md")).toBeNull();
      });
    });

    describe("review state", () => {
      it("excludes and includes by ref, counting only real changes, and reports unknown refs", async () => {
        const { store, ref } = await seeded();
        expect(await store.setIncluded([ref(2), "nope:x#1"], false)).toEqual({ changed: 1, missingRefs: ["nope:x#1"] });
        expect((await store.setIncluded([ref(2)], false)).changed).toBe(0);
        expect(await store.listExcludedRefs()).toEqual([ref(2)]);
        expect((await store.getChunk(ref(2)))?.included).toBe(false);
        expect((await store.setIncluded([ref(2)], true)).changed).toBe(1);
        expect(await store.listExcludedRefs()).toEqual([]);
      });

      it("lets a decision follow its text when a paragraph is inserted before it", async () => {
        const { store, add, ref } = await seeded();
        await store.setIncluded([ref(3)], false);
        await add("animals.md", ["A new first paragraph about owls.", "The cat sleeps on the warm sofa.", "A dog runs in the park.", "The eel swims in the river.", "A fox hunts at night near the river."]);
        expect(await store.listExcludedRefs()).toEqual([ref(4)]);
        expect((await store.getChunk(ref(4)))?.content).toContain("eel");
      });

      it("gives new text the folder's default", async () => {
        const { store, folder, add, ref } = await seeded();
        await store.setNewChunksIncluded(folder.id, false);
        await add("birds.md", ["The heron waits by the river."]);
        expect(await store.listExcludedRefs(folder.id)).toEqual([ref(1, "birds.md")]);
      });
    });

    describe("keyword search", () => runKeywordCases({ seeded, words }));

    describe(storesVectors ? "vectors" : "vectors (skipped: this configuration stores no vectors)", () => {
      it("says whether it can store vectors", async () => {
        expect((await fresh()).vectorAvailable).toBe(storesVectors);
      });


      vectorCase("stores vectors and finds the nearest included chunks first, with similarity scores", async () => {
        const { store, ref } = await seeded();
        expect(store.vectorAvailable).toBe(true);
        await store.ensureVectorTable(4);
        expect(await store.vectorDimensions()).toBe(4);
        await embed(store, { [ref(1)]: vector(1, 0, 0, 0), [ref(2)]: vector(0.8, 0.6, 0, 0), [ref(3)]: vector(0, 1, 0, 0), [ref(4)]: vector(-1, 0, 0, 0) });
        const hits = await store.vectorSearch(vector(2, 0, 0, 0), { k: 3 });
        expect(hits.map((hit) => hit.chunk.ref)).toEqual([ref(1), ref(2), ref(3)]);
        // Three digits: an approximate index may keep vectors at reduced precision (shown as a relevance %).
        expect(hits.map((hit) => hit.score)).toEqual([expect.closeTo(1, 3), expect.closeTo(0.8, 3), expect.closeTo(0, 3)]);
        expect(await store.vectorCount()).toBe(4);
        expect(await store.embedCoverage()).toEqual({ chunks: 5, embedded: 4 });
      });

      vectorCase("returns k hits when enough qualify although nearer ones are excluded, filtered or fail the text constraints", async () => {
        const { store, folder, ref } = await seeded();
        expect(store.vectorAvailable).toBe(true);
        await store.ensureVectorTable(2);
        await embed(store, { [ref(1)]: vector(1, 0), [ref(2)]: vector(0.9, 0.1), [ref(3)]: vector(0.5, 0.5), [ref(4)]: vector(0, 1), [ref(1, "plants.md")]: vector(0.95, 0.05) });
        await store.setIncluded([ref(1)], false);
        expect((await store.vectorSearch(vector(1, 0), { k: 2 })).map((hit) => hit.chunk.ref)).toEqual([ref(1, "plants.md"), ref(2)]);
        const animals = await store.getDocumentByPath(folder.id, "animals.md");
        expect((await store.vectorSearch(vector(1, 0), { k: 2, documentIds: [animals?.id ?? ""] })).map((hit) => hit.chunk.ref)).toEqual([ref(2), ref(3)]);
        const riverOnly = await store.vectorSearch(vector(1, 0), { k: 2, text: { phrases: [["river"]], exclude: [] } });
        expect(riverOnly.map((hit) => hit.chunk.ref)).toEqual([ref(3), ref(4)]);
        const noFox = await store.vectorSearch(vector(0, 1), { k: 1, text: { phrases: [], exclude: [["fox"]] } });
        expect(noFox.map((hit) => hit.chunk.ref)).toEqual([ref(3)]);
      });

      vectorCase("marks a vector stale when its chunk's text changes, and reports the embed state", async () => {
        const { store, add, ref } = await seeded();
        expect(store.vectorAvailable).toBe(true);
        await store.ensureVectorTable(2);
        await embed(store, { [ref(1)]: vector(1, 0), [ref(2)]: vector(0, 1) });
        await add("animals.md", ["The cat sleeps on the warm sofa.", "A dog sleeps all day.", "The eel swims in the river.", "A fox hunts at night near the river."]);
        const hits = await store.vectorSearch(vector(0, 1), { k: 2 });
        expect(hits.find((hit) => hit.chunk.ref === ref(2))?.stale).toBe(true);
        expect(hits.find((hit) => hit.chunk.ref === ref(1))?.stale).toBe(false);
        const state = await store.embedState();
        const second = state.find((row) => row.ref === ref(2));
        expect(second?.embeddedHash).not.toBe(second?.embedHash);
        expect(state.find((row) => row.ref === ref(3))?.embeddedHash).toBeNull();
      });

      vectorCase("says of each keyword hit whether its chunk has a vector, as vectors come and go between searches", async () => {
        const { store, ref } = await seeded();
        await store.ensureVectorTable(2);
        const hasVector = async () => {
          const whole = (await store.keywordSearch(words("cat"), { limit: 5 })).find((hit) => hit.chunk.ref === ref(1))?.hasVector;
          // By reference too (a search reads whole chunks only for the results it shows).
          expect((await store.keywordSearchRefs(words("cat"), { limit: 5 })).find((hit) => hit.ref === ref(1))?.hasVector).toBe(whole);
          return whole;
        };
        expect(await hasVector()).toBe(false);
        await embed(store, { [ref(1)]: vector(1, 0) });
        expect(await hasVector()).toBe(true);
        await store.deleteVectors([ref(1)]);
        expect(await hasVector()).toBe(false);
      });

      vectorCase("refuses vectors of another size, skips refs that are gone, deletes and drops vectors", async () => {
        const { store, ref } = await seeded();
        expect(store.vectorAvailable).toBe(true);
        await store.ensureVectorTable(2);
        await expect(store.ensureVectorTable(3)).rejects.toMatchObject({ code: "EMBEDDING_MISMATCH" });
        const written = await store.upsertVectors([{ ref: "nope:x#1", embedHash: "h", embedding: vector(1, 0) }], "model-a");
        expect(written).toEqual({ written: 0, missingRefs: ["nope:x#1"] });
        expect(await store.hasVectors()).toBe(false);
        await embed(store, { [ref(1)]: vector(1, 0), [ref(2)]: vector(0, 1) });
        expect(await store.hasVectors()).toBe(true);
        expect(await store.deleteVectors([ref(1)])).toBe(1);
        expect(await store.vectorCount()).toBe(1);
        expect(await store.hasVectors()).toBe(true);
        await store.dropAllVectors();
        expect(await store.vectorCount()).toBe(0);
        expect(await store.hasVectors()).toBe(false);
      });
    });

    // Scores of given chunks, for hybrid search's union (conformance-scores.ts).
    describe("scores of given chunks", () => runScoreCases({ seeded, embed, words, vector, vectorCase }));

    describe("deletes", () => {
      it("deletes a document with its chunks, vectors and review state", async () => {
        const { store, folder, ref } = await seeded();
        if (storesVectors) {
          await store.ensureVectorTable(2);
          await embed(store, { [ref(1)]: vector(1, 0) });
        }
        await store.setIncluded([ref(2)], false);
        expect(await store.deleteDocument(folder.id, "animals.md")).toBe(true);
        expect(await store.deleteDocument(folder.id, "animals.md")).toBe(false);
        expect(await store.getChunk(ref(1))).toBeNull();
        expect(await store.listExcludedRefs()).toEqual([]);
        expect(await store.vectorCount()).toBe(0);
        expect(await store.keywordSearch(words("river"), { limit: 10 })).toEqual([]);
      });

      vectorCase("lists stored vectors per folder with the hash of the text they were made from", async () => {
        const { store, folder, ref } = await seeded();
        expect(store.vectorAvailable).toBe(true);
        const other = await store.upsertFolder("/garden", "/garden/_chunks");
        await store.syncDocument({ folderId: other.id, relativePath: "roses.md", title: "Roses", documentType: "md", fileSize: 1, pageCount: null, chunks: [{ content: "Roses by the river.", meta: {} }] });
        await store.ensureVectorTable(2);
        await embed(store, { [ref(1)]: vector(1, 0), [ref(2)]: vector(0.6, 0.8), [`${other.id}:roses.md#1`]: vector(0, 1) });
        const listed = await store.listVectors(folder.id);
        expect(listed.map((entry) => entry.ref)).toEqual([ref(1), ref(2)]);
        expect([...(listed[1]?.embedding ?? [])].map((value) => Math.round(value * 10) / 10)).toEqual([0.6, 0.8]);
        expect(listed[0]).toMatchObject({ embedHash: embedTextHash((await store.getChunk(ref(1)))!), fingerprint: "model-a" });
        expect((await store.listVectors()).length).toBe(3);
      });

      it("renames a document: refs, review decisions, vectors and the source record follow; the old path is free", async () => {
        const { store, folder, ref, add } = await seeded();
        await store.upsertSource({ folderId: folder.id, relativePath: "animals.md", size: 10, mtimeMs: 1, sourceHash: "h", chunkFileHash: null, syncedChunkFileHash: null, status: "processed", errorCode: null, errorMessage: null, processedAt: "2026-01-01T00:00:00.000Z" });
        if (storesVectors) {
          await store.ensureVectorTable(2);
          await embed(store, { [ref(1)]: vector(1, 0), [ref(3)]: vector(0, 1) });
        }
        await store.setIncluded([ref(2)], false);
        const before = await store.getDocumentByPath(folder.id, "animals.md");
        expect(await store.renameDocument(folder.id, "animals.md", "zoo/beasts.md")).toBe(true);
        const moved = ref.bind(null);
        const after = await store.getDocumentByPath(folder.id, "zoo/beasts.md");
        expect(after).toMatchObject({ relativePath: "zoo/beasts.md", title: before?.title, chunkCount: 4 });
        expect(after?.id).not.toBe(before?.id);
        expect(await store.getDocumentByPath(folder.id, "animals.md")).toBeNull();
        expect(await store.getChunk(ref(1))).toBeNull();
        expect((await store.getChunk(moved(1, "zoo/beasts.md")))?.content).toBe("The cat sleeps on the warm sofa.");
        expect(await store.listExcludedRefs()).toEqual([moved(2, "zoo/beasts.md")]);
        expect((await store.getSource(folder.id, "zoo/beasts.md"))?.sourceHash).toBe("h");
        expect(await store.getSource(folder.id, "animals.md")).toBeNull();
        if (storesVectors) {
          expect(await store.vectorCount()).toBe(2);
          const [nearest] = await store.vectorSearch(vector(0, 1), { k: 1 });
          expect(nearest?.chunk.ref).toBe(moved(3, "zoo/beasts.md"));
          expect(nearest?.stale).toBe(false);
          expect((await store.embedState(folder.id)).filter((row) => row.embeddedHash !== null).map((row) => row.ref).sort()).toEqual([moved(1, "zoo/beasts.md"), moved(3, "zoo/beasts.md")].sort());
        }
        expect((await store.keywordSearch(words("eel"), { limit: 5 })).map((hit) => hit.chunk.relativePath)).toEqual(["zoo/beasts.md"]);
        // A new file at the old path is a new document, not the renamed one.
        await add("animals.md", ["A new text about owls."]);
        expect((await store.listDocuments(folder.id)).map((document) => document.relativePath)).toEqual(["animals.md", "plants.md", "zoo/beasts.md"]);
        expect((await store.getDocumentByPath(folder.id, "zoo/beasts.md"))?.chunkCount).toBe(4);
        expect(await store.renameDocument(folder.id, "missing.md", "x.md")).toBe(false);
        await expect(store.renameDocument(folder.id, "plants.md", "animals.md")).rejects.toMatchObject({ code: "INVALID_ARGUMENT" });
      });

      it("removes a folder with everything in it, leaving other folders alone", async () => {
        const { store, folder, ref } = await seeded();
        const other = await store.upsertFolder("/garden", "/garden/_chunks");
        await store.syncDocument({ folderId: other.id, relativePath: "roses.md", title: "Roses", documentType: "md", fileSize: 1, pageCount: null, chunks: [{ content: "Roses by the river.", meta: {} }] });
        if (storesVectors) {
          await store.ensureVectorTable(2);
          await embed(store, { [ref(1)]: vector(1, 0) });
        }
        expect(await store.removeFolder(folder.id)).toBe(true);
        expect(await store.getFolder(folder.id)).toBeNull();
        expect(await store.listChunks({ folderId: folder.id })).toEqual([]);
        expect(await store.vectorCount()).toBe(0);
        expect((await store.keywordSearch(words("river"), { limit: 10 })).map((hit) => hit.chunk.relativePath)).toEqual(["roses.md"]);
        expect((await store.listFolders()).map((item) => item.rootPath)).toEqual(["/garden"]);
      });
    });

    describe("meta and integrity", () => {
      it("keeps meta values", async () => {
        const store = await fresh();
        expect(await store.getMeta("x")).toBeNull();
        await store.setMeta("x", "1");
        expect(await store.getMeta("x")).toBe("1");
        expect(await store.deleteMeta("x")).toBe(true);
        expect(await store.getMeta("x")).toBeNull();
      });

      it("reports a consistent store as ok, also after the keyword index is rebuilt", async () => {
        const { store } = await seeded();
        expect(await store.integrityCheck()).toEqual({ ok: true, problems: [] });
        await store.rebuildKeywordIndex();
        expect(await store.integrityCheck()).toEqual({ ok: true, problems: [] });
        expect(await store.keywordSearch(words("river"), { limit: 10 })).toHaveLength(2);
      });
    });
  });
}
