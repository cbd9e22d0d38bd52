import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import { openSqlite, type SqliteDatabase } from "./driver.js";
import { afterEach, describe, expect, it } from "vitest";
import type { ChunkDraft } from "../../core/types.js";
import type { SqliteMainStore } from "./main-store.js";
import { openSqliteMainStore } from "./main-store.js";

const cleanups: (() => void)[] = [];
afterEach(() => {
  for (const cleanup of cleanups.splice(0).reverse()) cleanup();
});

function setup(): { store: SqliteMainStore; file: string; raw: SqliteDatabase } {
  const directory = fs.mkdtempSync(path.join(os.tmpdir(), "chunkpad-documents-"));
  const file = path.join(directory, "chunkpad.db");
  const store = openSqliteMainStore({ path: file, loadVectorExtension: false });
  // A second connection sees what another process would: the committed tables.
  const raw = openSqlite(file, { readOnly: true });
  cleanups.push(() => fs.rmSync(directory, { recursive: true, force: true }), () => store.close(), () => raw.close());
  return { store, file, raw };
}

function drafts(...contents: string[]): ChunkDraft[] {
  return contents.map((content, index) => ({ content, meta: { page: index + 1, section: `Part ${index + 1}` } }));
}

function ftsRowids(raw: SqliteDatabase, term: string): number[] {
  return (raw.prepare("SELECT rowid FROM chunks_fts WHERE chunks_fts MATCH ? ORDER BY rowid").pluck().all(term) as number[]);
}

function syncReport(store: SqliteMainStore, folderId: string, chunks: ChunkDraft[], relativePath = "notes/report.pdf", title = "Quarterly report") {
  return store.syncDocument({ folderId, relativePath, title, documentType: "pdf", fileSize: 1234, pageCount: chunks.length, chunks });
}

describe("folders and sources", () => {
  it("adds a folder once, keeps its id, and lists it with live counts", () => {
    const { store } = setup();
    const folder = store.upsertFolder("/home/me/docs", "/home/me/docs/_chunks");
    expect(folder.id).toMatch(/^[0-9a-f]{8}$/);
    expect(store.upsertFolder("/home/me/docs", "/home/me/docs/_chunks").id).toBe(folder.id);
    expect(store.getFolderByPath("/home/me/docs")?.id).toBe(folder.id);
    expect(store.getFolder("nope")).toBeNull();

    syncReport(store, folder.id, drafts("alpha text", "beta text", "gamma text"));
    store.setIncluded([`${folder.id}:notes/report.pdf#2`], false);
    store.upsertSource({
      folderId: folder.id, relativePath: "broken.docx", size: 10, mtimeMs: 1700000000123.5, sourceHash: null, chunkFileHash: null,
      syncedChunkFileHash: null, status: "failed", errorCode: "PARSE_MALFORMED", errorMessage: "damaged", processedAt: "2026-01-01T00:00:00.000Z",
    });
    store.updateFolderStats(folder.id, { lastProcessedAt: "2026-01-02T00:00:00.000Z", fileCount: 2, chunkCount: 3 });
    store.setFolderSettings(folder.id, { chunkSizeTokens: 200, chunkOverlapTokens: 20 });

    const [summary] = store.listFolders();
    expect(summary).toMatchObject({
      id: folder.id, rootPath: "/home/me/docs", fileCount: 2, chunkCount: 3, lastProcessedAt: "2026-01-02T00:00:00.000Z",
      documentCount: 1, storedChunkCount: 3, includedChunkCount: 2, embeddedChunkCount: 0, failedCount: 1,
      settings: { chunkSizeTokens: 200, chunkOverlapTokens: 20 },
    });
    expect(store.getFolderSettings(folder.id)).toEqual({ chunkSizeTokens: 200, chunkOverlapTokens: 20 });
    store.setFolderSettings(folder.id, null);
    expect(store.getFolderSettings(folder.id)).toBeNull();
  });

  it("remembers per-source state for the incremental run", () => {
    const { store } = setup();
    const folder = store.upsertFolder("/docs", "/docs/_chunks");
    const source = {
      folderId: folder.id, relativePath: "a.md", size: 42, mtimeMs: 1700000000123.25, sourceHash: "s1", chunkFileHash: "c1",
      syncedChunkFileHash: "c1", status: "processed" as const, errorCode: null, errorMessage: null, processedAt: "2026-01-01T00:00:00.000Z",
    };
    store.upsertSource(source);
    store.upsertSource({ ...source, relativePath: "b.md" });
    store.upsertSource({ ...source, size: 43, syncedChunkFileHash: "c2" });
    expect(store.getSource(folder.id, "a.md")).toEqual({ ...source, size: 43, syncedChunkFileHash: "c2" });
    expect(store.listSources(folder.id).map((row) => row.relativePath)).toEqual(["a.md", "b.md"]);
    expect(store.deleteSource(folder.id, "b.md")).toBe(true);
    expect(store.deleteSource(folder.id, "b.md")).toBe(false);
    expect(() => store.upsertSource({ ...source, folderId: "unknown" })).toThrow(expect.objectContaining({ code: "FOLDER_NOT_INDEXED" }));
  });
});

describe("syncDocument", () => {
  it("reports what changed and keeps chunk rows stable across updates", () => {
    const { store, raw } = setup();
    // Row ids are SQLite's own (no longer on ChunkRecord): read them from the file.
    const rowIds = (documentId: string) => raw.prepare<[string], number>("SELECT id FROM chunks WHERE document_id = ? ORDER BY ordinal").pluck().all(documentId);
    const folder = store.upsertFolder("/docs", "/docs/_chunks");
    const first = syncReport(store, folder.id, drafts("apples grow on trees", "bananas are yellow", "cherries are red"));
    expect(first).toMatchObject({ added: 3, updated: 0, removed: 0, unchanged: 0 });
    expect(first.changedRefs).toEqual([1, 2, 3].map((n) => `${folder.id}:notes/report.pdf#${n}`));
    const idsBefore = rowIds(first.documentId);

    expect(syncReport(store, folder.id, drafts("apples grow on trees", "bananas are yellow", "cherries are red"))).toMatchObject({ added: 0, updated: 0, removed: 0, unchanged: 3 });

    const second = syncReport(store, folder.id, drafts("apples grow on trees", "bananas are green", "cherries are red", "dates are sweet"));
    expect(second).toMatchObject({ documentId: first.documentId, added: 1, updated: 1, removed: 0, unchanged: 2 });
    expect(second.changedRefs).toEqual([`${folder.id}:notes/report.pdf#2`, `${folder.id}:notes/report.pdf#4`]);
    expect(rowIds(first.documentId).slice(0, 3)).toEqual(idsBefore);

    const third = syncReport(store, folder.id, drafts("apples grow on trees", "bananas are green"));
    expect(third).toMatchObject({ added: 0, updated: 0, removed: 2, unchanged: 2 });
    expect(third.removedRefs).toEqual([`${folder.id}:notes/report.pdf#3`, `${folder.id}:notes/report.pdf#4`]);
    expect(store.getDocument(first.documentId)?.chunkCount).toBe(2);
  });

  it("counts a metadata-only change as an update and stores the metadata", () => {
    const { store } = setup();
    const folder = store.upsertFolder("/docs", "/docs/_chunks");
    syncReport(store, folder.id, [{ content: "same words", meta: { page: 1 } }]);
    const result = syncReport(store, folder.id, [{ content: "same words", meta: { page: 2, pageEnd: 3, charStart: 10, charEnd: 20, section: "Intro", sheet: "S1", slide: 4 } }]);
    expect(result).toMatchObject({ updated: 1, unchanged: 0 });
    const [chunk] = store.listChunks({ folderId: folder.id });
    expect(chunk).toMatchObject({ ordinal: 1, page: 2, pageEnd: 3, charStart: 10, charEnd: 20, section: "Intro", sheet: "S1", slide: 4, included: true, title: "Quarterly report" });
    expect(chunk?.contentHash).toMatch(/^[0-9a-f]{64}$/);
  });

  it("keeps the keyword index in step with inserts, updates and deletes", () => {
    const { store, raw } = setup();
    const folder = store.upsertFolder("/docs", "/docs/_chunks");
    syncReport(store, folder.id, drafts("the zebra sleeps", "a walrus swims"));
    expect(ftsRowids(raw, "zebra")).toHaveLength(1);
    expect(ftsRowids(raw, "walrus")).toHaveLength(1);

    syncReport(store, folder.id, drafts("the giraffe sleeps", "a walrus swims"));
    expect(ftsRowids(raw, "zebra")).toEqual([]);
    expect(ftsRowids(raw, "giraffe")).toHaveLength(1);
    expect(store.keywordSearch("giraffe", { limit: 5 }).map((hit) => hit.chunk.ordinal)).toEqual([1]);

    syncReport(store, folder.id, drafts("the giraffe sleeps"));
    expect(ftsRowids(raw, "walrus")).toEqual([]);
    expect(store.keywordSearch("walrus", { limit: 5 })).toEqual([]);

    // A title change reaches the index too.
    syncReport(store, folder.id, drafts("the giraffe sleeps"), "notes/report.pdf", "Savanna almanac");
    expect(store.keywordSearch("almanac", { limit: 5 })).toHaveLength(1);
    expect(store.keywordSearch("quarterly", { limit: 5 })).toEqual([]);
    expect(store.integrityCheck()).toEqual({ ok: true, problems: [] });
  });

  it("removing a document or a folder leaves no keyword hits, chunks or review state behind", () => {
    const { store, raw } = setup();
    const folder = store.upsertFolder("/docs", "/docs/_chunks");
    const other = store.upsertFolder("/other", "/other/_chunks");
    syncReport(store, folder.id, drafts("pelican facts", "pelican habits"), "birds.md");
    syncReport(store, folder.id, drafts("otter facts"), "otters.md");
    syncReport(store, other.id, drafts("pelican sightings"), "log.md");
    store.setIncluded([`${folder.id}:otters.md#1`], false);

    expect(store.deleteDocument(folder.id, "birds.md")).toBe(true);
    expect(store.deleteDocument(folder.id, "birds.md")).toBe(false);
    expect(store.keywordSearch("pelican", { limit: 10 }).map((hit) => hit.chunk.folderId)).toEqual([other.id]);

    expect(store.removeFolder(folder.id)).toBe(true);
    expect(ftsRowids(raw, "otter")).toEqual([]);
    expect(raw.prepare("SELECT COUNT(*) FROM chunks WHERE folder_id = ?").pluck().get(folder.id)).toBe(0);
    expect(raw.prepare("SELECT COUNT(*) FROM chunk_reviews").pluck().get()).toBe(0);
    expect(store.listDocuments(folder.id)).toEqual([]);
    expect(store.listFolders().map((summary) => summary.id)).toEqual([other.id]);
    expect(store.keywordSearch("pelican", { limit: 10 })).toHaveLength(1);
    expect(store.integrityCheck().ok).toBe(true);
  });

  it("keeps a user's exclusion when the chunks are rewritten", () => {
    const { store } = setup();
    const folder = store.upsertFolder("/docs", "/docs/_chunks");
    syncReport(store, folder.id, drafts("lemur one", "lemur two", "lemur three"));
    const excludedRef = `${folder.id}:notes/report.pdf#2`;
    expect(store.setIncluded([excludedRef, "missing:ref#1"], false)).toEqual({ changed: 1, missingRefs: ["missing:ref#1"] });
    expect(store.setIncluded([excludedRef], false).changed).toBe(0);

    syncReport(store, folder.id, drafts("lemur one rewritten", "lemur two rewritten", "lemur three rewritten"));
    expect(store.getChunk(excludedRef)?.included).toBe(false);
    expect(store.keywordSearch("lemur", { limit: 10 }).map((hit) => hit.chunk.ordinal).sort()).toEqual([1, 3]);
    expect(store.listExcludedRefs(folder.id)).toEqual([excludedRef]);

    expect(store.setIncluded([excludedRef], true).changed).toBe(1);
    expect(store.keywordSearch("lemur", { limit: 10 })).toHaveLength(3);
  });

  it("moves decisions with their text, drops those of vanished text, and gives new text the folder's default", () => {
    const { store, raw } = setup();
    const folder = store.upsertFolder("/docs", "/docs/_chunks");
    const ref = (ordinal: number) => `${folder.id}:notes/report.pdf#${ordinal}`;
    const included = () => store.listChunks({ folderId: folder.id }).map((chunk) => [chunk.content.split(" ")[0], chunk.included]);
    syncReport(store, folder.id, drafts("alpha opening words here", "bravo salary figures for everyone", "charlie closing words here"));
    store.setIncluded([ref(2)], false);

    syncReport(store, folder.id, drafts("zulu inserted paragraph on top", "alpha opening words here", "bravo salary figures for everyone", "charlie closing words here"));
    expect(included()).toEqual([["zulu", true], ["alpha", true], ["bravo", false], ["charlie", true]]);
    expect(store.listExcludedRefs(folder.id)).toEqual([ref(3)]);

    expect(store.setNewChunksIncluded(folder.id, false)).toBe(true);
    expect(store.getFolder(folder.id)?.newChunksIncluded).toBe(false);
    syncReport(store, folder.id, drafts("alpha opening words here", "yankee brand new text", "charlie closing words here"));
    expect(included()).toEqual([["alpha", true], ["yankee", false], ["charlie", true]]);
    // The salary text is gone, and its decision with it: no row may land on later text.
    expect(raw.prepare("SELECT ref, content_hash FROM chunk_reviews ORDER BY ref").all()).toEqual([
      { ref: ref(2), content_hash: store.getChunk(ref(2))?.contentHash },
    ]);
  });

  it("refuses a folder that was never added and a path that is not relative", () => {
    const { store } = setup();
    expect(() => syncReport(store, "nope", drafts("x"))).toThrow(expect.objectContaining({ code: "FOLDER_NOT_INDEXED" }));
    const folder = store.upsertFolder("/docs", "/docs/_chunks");
    expect(() => syncReport(store, folder.id, drafts("x"), "/abs/path.md")).toThrow(expect.objectContaining({ code: "INVALID_ARGUMENT" }));
  });
});

describe("reading documents and chunks", () => {
  it("finds documents by id, path, file name, then by part of a path or title", () => {
    const { store } = setup();
    const folder = store.upsertFolder("/docs", "/docs/_chunks");
    const report = syncReport(store, folder.id, drafts("a"), "reports/2024/Annual.PDF", "Annual report 2024");
    syncReport(store, folder.id, drafts("b"), "reports/annual-summary.md", "Summary");
    syncReport(store, folder.id, drafts("c"), "misc/100%_done.txt", "Done");

    expect(store.findDocuments(report.documentId).map((document) => document.relativePath)).toEqual(["reports/2024/Annual.PDF"]);
    expect(store.findDocuments("reports/annual-summary.md").map((document) => document.title)).toEqual(["Summary"]);
    expect(store.findDocuments("annual.pdf").map((document) => document.title)).toEqual(["Annual report 2024"]);
    expect(store.findDocuments("ANNUAL").map((document) => document.title)).toEqual(["Annual report 2024", "Summary"]);
    expect(store.findDocuments("100%").map((document) => document.title)).toEqual(["Done"]);
    expect(store.findDocuments("0%_d").map((document) => document.title)).toEqual(["Done"]);
    expect(store.findDocuments("nothing like it")).toEqual([]);
    expect(store.findDocuments("annual", { folderId: "other" })).toEqual([]);
    expect(store.getDocumentByPath(folder.id, "misc/100%_done.txt")).toMatchObject({ title: "Done", documentType: "pdf", fileSize: 1234, pageCount: 1 });
  });

  it("returns chunks by ref in the order asked, skipping unknown refs", () => {
    const { store } = setup();
    const folder = store.upsertFolder("/docs", "/docs/_chunks");
    syncReport(store, folder.id, drafts("one", "two", "three"), "a#b.md");
    const refs = [3, 1].map((n) => `${folder.id}:a#b.md#${n}`);
    expect(store.getChunks([...refs, "nope"]).map((chunk) => chunk.content)).toEqual(["three", "one"]);
    expect(store.getChunk(`${folder.id}:a#b.md#2`)).toMatchObject({ relativePath: "a#b.md", ordinal: 2, content: "two" });
    expect(store.getChunk("nope")).toBeNull();
    expect(store.listChunks({ relativePath: "a#b.md" }).map((chunk) => chunk.ordinal)).toEqual([1, 2, 3]);
  });
});
