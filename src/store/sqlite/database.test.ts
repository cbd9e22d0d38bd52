import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import { openSqlite } from "./driver.js";
import { afterEach, describe, expect, it } from "vitest";
import { openSqliteMainStore } from "./main-store.js";

const cleanups: (() => void)[] = [];
afterEach(() => {
  for (const cleanup of cleanups.splice(0).reverse()) cleanup();
});

function databaseFile(): string {
  const directory = fs.mkdtempSync(path.join(os.tmpdir(), "chunkpad-database-"));
  cleanups.push(() => fs.rmSync(directory, { recursive: true, force: true }));
  return path.join(directory, "chunkpad.db");
}

describe("sharing the database with another process", () => {
  it("says another process holds the database instead of failing with SQLITE_BUSY", () => {
    const file = databaseFile();
    const store = openSqliteMainStore({ path: file, loadVectorExtension: false, busyTimeoutMs: 20 });
    cleanups.push(() => store.close());
    const other = openSqlite(file);
    other.exec("BEGIN IMMEDIATE");
    try {
      let caught: unknown;
      try {
        store.upsertFolder("/docs", "/docs/_chunks");
      } catch (error) {
        caught = error;
      }
      expect(caught).toMatchObject({ code: "DATABASE_LOCKED", isRetryable: true, message: expect.stringMatching(/another Chunkpad process/) });
      // Reading still works while the other process writes (WAL).
      expect(store.listFolders()).toEqual([]);
    } finally {
      other.exec("ROLLBACK");
      other.close();
    }
    expect(store.upsertFolder("/docs", "/docs/_chunks").rootPath).toBe("/docs");
  });

  it("sees what another connection committed", () => {
    const file = databaseFile();
    const writer = openSqliteMainStore({ path: file, loadVectorExtension: false });
    const reader = openSqliteMainStore({ path: file, loadVectorExtension: false });
    cleanups.push(() => writer.close(), () => reader.close());
    const folder = writer.upsertFolder("/docs", "/docs/_chunks");
    writer.syncDocument({ folderId: folder.id, relativePath: "a.md", title: "A", documentType: "md", fileSize: 1, pageCount: null, chunks: [{ content: "shared words", meta: {} }] });
    expect(reader.keywordSearch("shared", { limit: 5 })).toHaveLength(1);
  });
});

describe("integrityCheck", () => {
  it("passes on a healthy database and names a keyword index that drifted, which a rebuild fixes", () => {
    const file = databaseFile();
    const store = openSqliteMainStore({ path: file, loadVectorExtension: false });
    cleanups.push(() => store.close());
    const folder = store.upsertFolder("/docs", "/docs/_chunks");
    store.syncDocument({ folderId: folder.id, relativePath: "a.md", title: "A", documentType: "md", fileSize: 1, pageCount: null, chunks: [{ content: "original words", meta: {} }] });
    expect(store.integrityCheck()).toEqual({ ok: true, problems: [] });

    // Someone edits the table behind the triggers' back.
    const raw = openSqlite(file);
    raw.exec("DROP TRIGGER chunks_after_update; UPDATE chunks SET content = 'replaced text'");
    raw.close();
    const report = store.integrityCheck();
    expect(report.ok).toBe(false);
    expect(report.problems.join("\n")).toMatch(/keyword index/);

    store.rebuildKeywordIndex();
    expect(store.integrityCheck()).toEqual({ ok: true, problems: [] });
    expect(store.keywordSearch("replaced", { limit: 5 })).toHaveLength(1);
    expect(store.keywordSearch("original", { limit: 5 })).toEqual([]);
  });
});

describe("a damaged database", () => {
  it("says the file is damaged and how to recover when a search reads a broken page, not that the query is wrong", () => {
    const file = databaseFile();
    const store = openSqliteMainStore({ path: file, loadVectorExtension: false });
    const folder = store.upsertFolder("/docs", "/docs/_chunks");
    const chunks = Array.from({ length: 200 }, (_, index) => ({ content: `shared words in chunk ${index} ${"filler ".repeat(60)}`, meta: {} }));
    store.syncDocument({ folderId: folder.id, relativePath: "a.md", title: "A", documentType: "md", fileSize: 1, pageCount: null, chunks });
    store.close();
    const raw = openSqlite(file);
    const page = raw.prepare<[], number>("SELECT rootpage FROM sqlite_master WHERE name = 'chunks'").pluck().get() ?? 0;
    const pageSize = raw.pragma("page_size", { simple: true }) as number;
    raw.close();
    const handle = fs.openSync(file, "r+");
    fs.writeSync(handle, Buffer.alloc(pageSize, 0xff), 0, pageSize, (page - 1) * pageSize);
    fs.closeSync(handle);

    const damaged = openSqliteMainStore({ path: file, loadVectorExtension: false });
    cleanups.push(() => damaged.close());
    expect(() => damaged.keywordSearch("shared", { limit: 5 })).toThrow(expect.objectContaining({ code: "DATABASE_ERROR", message: expect.stringMatching(/is damaged .*Move the file aside/) }));
  });
});

describe("meta", () => {
  it("stores, replaces and deletes values", () => {
    const store = openSqliteMainStore({ path: databaseFile(), loadVectorExtension: false });
    cleanups.push(() => store.close());
    expect(store.getMeta("embedding.fingerprint")).toBeNull();
    store.setMeta("embedding.fingerprint", "a");
    store.setMeta("embedding.fingerprint", "b");
    expect(store.getMeta("embedding.fingerprint")).toBe("b");
    expect(store.deleteMeta("embedding.fingerprint")).toBe(true);
    expect(store.getMeta("embedding.fingerprint")).toBeNull();
  });
});
