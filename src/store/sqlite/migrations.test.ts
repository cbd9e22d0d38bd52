import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import { openSqlite } from "./driver.js";
import { afterEach, describe, expect, it } from "vitest";
import { isChunkpadError } from "../../core/errors.js";
import { openDatabase } from "./database.js";
import type { Migration } from "./migrations.js";
import { MAIN_MIGRATIONS, runMigrations, schemaVersion } from "./migrations.js";
import { spaceCjkWords } from "../../core/cjk.js";
import { openSqliteMainStore } from "./main-store.js";
import { HAS_VECTOR } from "./keyword.js";
import { openChatStore } from "./chat-store.js";

const directories: string[] = [];
function databasePath(name = "chunkpad.db"): string {
  const directory = fs.mkdtempSync(path.join(os.tmpdir(), "chunkpad-store-"));
  directories.push(directory);
  return path.join(directory, "nested", name);
}
afterEach(() => {
  for (const directory of directories.splice(0)) fs.rmSync(directory, { recursive: true, force: true });
});

const notesV1: Migration = {
  version: 1,
  description: "notes",
  up: (db) => db.exec("CREATE TABLE notes (id INTEGER PRIMARY KEY, text TEXT NOT NULL)"),
};
const notesV2: Migration = {
  version: 2,
  description: "note authors",
  up: (db) => db.exec("ALTER TABLE notes ADD COLUMN author TEXT NOT NULL DEFAULT 'me'"),
};

/** What search_text gave before migration 6: CJK cut into words, nothing else (for text without digits or Greek letters, also before 7). */
const oldSearchText = (text: unknown): unknown => (typeof text === "string" ? spaceCjkWords(text) : text);

/**
 * A database file brought to an older schema `version`, holding folder "f" (/docs) and the rows `sql` inserts;
 * `searchText` is the search_text() that version's keyword triggers called, when they called one.
 */
function databaseAtVersion(version: number, sql: string, searchText?: (text: unknown) => unknown): string {
  const file = databasePath();
  fs.mkdirSync(path.dirname(file), { recursive: true });
  const db = openDatabase({ path: file });
  if (searchText) db.function("search_text", { deterministic: true }, searchText);
  runMigrations(db, MAIN_MIGRATIONS.slice(0, version), "main");
  db.exec(`INSERT INTO indexed_folders (id, root_path, chunks_root_path, created_at) VALUES ('f', '/docs', '/docs/_chunks', 't');${sql}`);
  db.close();
  return file;
}

describe("runMigrations", () => {
  it("applies every migration once, records it, and does nothing on the next open", () => {
    const file = databasePath();
    const db = openDatabase({ path: file });
    expect(runMigrations(db, [notesV1, notesV2], "test")).toEqual({ applied: [1, 2], version: 2 });
    expect(schemaVersion(db)).toBe(2);
    const recorded = db.prepare("SELECT version, applied_at FROM schema_version ORDER BY version").all() as { version: number; applied_at: string }[];
    expect(recorded.map((row) => row.version)).toEqual([1, 2]);
    expect(recorded.every((row) => !Number.isNaN(Date.parse(row.applied_at)))).toBe(true);
    db.close();

    const again = openDatabase({ path: file });
    expect(runMigrations(again, [notesV1, notesV2], "test")).toEqual({ applied: [], version: 2 });
    again.close();
  });

  it("upgrades an older database without losing its rows", () => {
    const file = databasePath();
    const db = openDatabase({ path: file });
    runMigrations(db, [notesV1], "test");
    db.prepare("INSERT INTO notes (text) VALUES (?)").run("keep me");
    db.close();

    const upgraded = openDatabase({ path: file });
    expect(runMigrations(upgraded, [notesV1, notesV2], "test").applied).toEqual([2]);
    expect(upgraded.prepare("SELECT text, author FROM notes").all()).toEqual([{ text: "keep me", author: "me" }]);
    upgraded.close();
  });

  it("rolls back every step of a run when one step fails", () => {
    const file = databasePath();
    const db = openDatabase({ path: file });
    runMigrations(db, [notesV1], "test");
    const broken: Migration = { version: 3, description: "broken", up: (database) => database.exec("ALTER TABLE missing ADD COLUMN x") };
    expect(() => runMigrations(db, [notesV1, notesV2, broken], "test")).toThrow(/missing/);
    expect(schemaVersion(db)).toBe(1);
    const columns = (db.prepare("PRAGMA table_info(notes)").all() as { name: string }[]).map((column) => column.name);
    expect(columns).not.toContain("author");
    db.close();
  });

  it("refuses a database written by a newer Chunkpad, leaving it untouched", () => {
    const file = databasePath();
    const db = openDatabase({ path: file });
    runMigrations(db, [notesV1, notesV2], "test");
    db.close();

    const older = openDatabase({ path: file });
    let caught: unknown;
    try {
      runMigrations(older, [notesV1], "test");
    } catch (error) {
      caught = error;
    }
    expect(isChunkpadError(caught, "SCHEMA_TOO_NEW")).toBe(true);
    expect(String((caught as Error).message)).toMatch(/newer Chunkpad/);
    expect(schemaVersion(older)).toBe(2);
    older.close();
  });
});

describe("opening the real databases", () => {
  it("creates the main schema with its parent folders, at the newest version", () => {
    const file = databasePath();
    const store = openSqliteMainStore({ path: file, loadVectorExtension: false });
    expect(store.migration).toEqual({ applied: MAIN_MIGRATIONS.map((migration) => migration.version), version: MAIN_MIGRATIONS.length });
    store.close();

    const raw = openSqlite(file);
    expect(raw.pragma("journal_mode", { simple: true })).toBe("wal");
    const tables = (raw.prepare("SELECT name FROM sqlite_master WHERE type IN ('table', 'trigger')").all() as { name: string }[]).map((row) => row.name);
    for (const name of ["meta", "indexed_folders", "sources", "documents", "chunks", "chunks_fts", "chunk_reviews", "embedded_chunk_refs", "schema_version"]) {
      expect(tables).toContain(name);
    }
    expect(tables).toEqual(expect.arrayContaining(["chunks_after_insert", "chunks_after_update", "chunks_after_delete"]));
    raw.close();

    const reopened = openSqliteMainStore({ path: file, loadVectorExtension: false });
    expect(reopened.migration.applied).toEqual([]);
    reopened.close();
  });

  it("rebuilds a version 2 keyword index so Chinese and Japanese text already stored becomes searchable by word", () => {
    const file = databaseAtVersion(2, `
      INSERT INTO documents (id, folder_id, relative_path, file_name, title, document_type, indexed_at) VALUES ('d', 'f', 'zh.md', 'zh.md', '会议', 'markdown', 't');
      INSERT INTO chunks (ref, document_id, folder_id, ordinal, title, content, content_hash, section, updated_at) VALUES
        ('f:zh.md#1', 'd', 'f', 1, '会议', '我们明天在北京开会讨论预算', 'h1', NULL, 't');
    `);

    const store = openSqliteMainStore({ path: file, loadVectorExtension: false, keywordIndexInMemory: true });
    expect(store.migration.applied).toEqual(MAIN_MIGRATIONS.slice(2).map((migration) => migration.version));
    expect(store.keywordSearch('"北京"', { limit: 5 }).map((hit) => hit.chunk.ref)).toEqual(["f:zh.md#1"]);
    // The keyword index in memory reads the same words (decision 031).
    expect(store.keywordSearchInMemory([{ word: "北京", prefix: false }], "all", [], { limit: 5 })?.map((hit) => hit.chunk.ref)).toEqual(["f:zh.md#1"]);
    expect(store.integrityCheck()).toEqual({ ok: true, problems: [] });
    store.close();
  });

  it("rebuilds a version 5 keyword index, so IL6 already stored is found as IL-6 and TNFα as TNF-alpha, and deletes stay consistent", () => {
    const file = databaseAtVersion(5, `
      INSERT INTO documents (id, folder_id, relative_path, file_name, title, document_type, indexed_at) VALUES ('d', 'f', 'bio.md', 'bio.md', 'Cytokines', 'markdown', 't');
      INSERT INTO chunks (ref, document_id, folder_id, ordinal, title, content, content_hash, section, updated_at) VALUES
        ('f:bio.md#1', 'd', 'f', 1, 'Cytokines', 'IL6 and TNFα rise together.', 'h1', NULL, 't');
    `, oldSearchText);

    const store = openSqliteMainStore({ path: file, loadVectorExtension: false, keywordIndexInMemory: true });
    expect(store.migration.applied).toEqual([6, 7, 8, 9]);
    expect(store.keywordSearch('"il 6"', { limit: 5 }).map((hit) => hit.chunk.ref)).toEqual(["f:bio.md#1"]);
    expect(store.keywordSearch('"tnf alpha"', { limit: 5 }).map((hit) => hit.chunk.ref)).toEqual(["f:bio.md#1"]);
    expect(store.integrityCheck()).toEqual({ ok: true, problems: [] });
    store.close();
  });

  it("rebuilds a version 6 keyword index, so a Korean compound already stored is found by its last word, and parseQuery by its words", () => {
    const file = databaseAtVersion(6, `
      INSERT INTO documents (id, folder_id, relative_path, file_name, title, document_type, indexed_at) VALUES ('d', 'f', 'ko.md', 'ko.md', '안내', 'markdown', 't');
      INSERT INTO chunks (ref, document_id, folder_id, ordinal, title, content, content_hash, section, updated_at) VALUES
        ('f:ko.md#1', 'd', 'f', 1, '안내', '서울 본사에서 예산회의가 열립니다. Call parseQuery first.', 'h1', NULL, 't');
    `, oldSearchText);

    const store = openSqliteMainStore({ path: file, loadVectorExtension: false, keywordIndexInMemory: true });
    expect(store.migration.applied).toEqual([7, 8, 9]);
    expect(store.keywordSearch('"회의"', { limit: 5 }).map((hit) => hit.chunk.ref)).toEqual(["f:ko.md#1"]);
    expect(store.keywordSearchInMemory([{ word: "회의", prefix: false }], "all", [], { limit: 5 })?.map((hit) => hit.chunk.ref)).toEqual(["f:ko.md#1"]);
    expect(store.keywordSearch('"parse query"', { limit: 5 }).map((hit) => hit.chunk.ref)).toEqual(["f:ko.md#1"]);
    expect(store.integrityCheck()).toEqual({ ok: true, problems: [] });
    store.close();
  });

  it("moves a version 1 database to decisions with their text: keeps them, drops orphans, keeps current vectors current", () => {
    const file = databaseAtVersion(1, `
      INSERT INTO documents (id, folder_id, relative_path, file_name, title, document_type, indexed_at) VALUES ('d', 'f', 'a.md', 'a.md', 'A', 'markdown', 't');
      INSERT INTO chunks (ref, document_id, folder_id, ordinal, title, content, content_hash, section, updated_at) VALUES
        ('f:a.md#1', 'd', 'f', 1, 'A', 'salaries', 'h1', 'Pay', 't'),
        ('f:a.md#2', 'd', 'f', 2, 'A', 'parking', 'h2', NULL, 't');
      INSERT INTO chunk_reviews (ref, included, updated_at) VALUES ('f:a.md#1', 0, 't'), ('f:a.md#9', 0, 't');
      INSERT INTO embedded_chunk_refs (chunk_ref, content_hash, fingerprint, embedded_at) VALUES ('f:a.md#1', 'h1', 's', 't'), ('f:a.md#2', 'older', 's', 't');
    `);

    const store = openSqliteMainStore({ path: file, loadVectorExtension: false });
    expect(store.migration.applied).toEqual(MAIN_MIGRATIONS.slice(1).map((migration) => migration.version));
    expect(store.listExcludedRefs()).toEqual(["f:a.md#1"]);
    expect(store.getFolder("f")?.newChunksIncluded).toBe(true);
    const state = new Map(store.embedState("f").map((row) => [row.ref, row]));
    expect(state.get("f:a.md#1")?.embeddedHash).toBe(state.get("f:a.md#1")?.embedHash);
    expect(state.get("f:a.md#2")?.embeddedHash).toBe("older");
    store.close();
    const raw = openSqlite(file, { readOnly: true });
    expect(raw.prepare("SELECT ref, included, content_hash FROM chunk_reviews").all()).toEqual([{ ref: "f:a.md#1", included: 0, content_hash: "h1" }]);
    raw.close();
  });

  it("refuses a main or chat database from the future with SCHEMA_TOO_NEW", () => {
    for (const open of [
      (file: string) => openSqliteMainStore({ path: file, loadVectorExtension: false }),
      (file: string) => openChatStore({ path: file }),
    ]) {
      const file = databasePath();
      fs.mkdirSync(path.dirname(file), { recursive: true });
      const raw = openSqlite(file);
      raw.pragma("user_version = 99");
      raw.close();
      expect(() => open(file)).toThrow(expect.objectContaining({ code: "SCHEMA_TOO_NEW" }));
    }
  });

  it("says a file that is not a database is damaged instead of crashing", () => {
    const file = databasePath();
    fs.mkdirSync(path.dirname(file), { recursive: true });
    fs.writeFileSync(file, "this is a text file, not SQLite ".repeat(200));
    expect(() => openSqliteMainStore({ path: file, loadVectorExtension: false })).toThrow(expect.objectContaining({ code: "DATABASE_ERROR" }));
  });
});

describe("migration 9: the embed records' narrow index", () => {
  it("counts a database's embed records from the narrow index, not the whole records (old databases too)", () => {
    const file = databaseAtVersion(8, "");
    const store = openSqliteMainStore({ path: file, loadVectorExtension: false });
    expect(store.migration.applied).toEqual([9]);
    store.close();
    const raw = openSqlite(file, { readOnly: true });
    const plan = (raw.prepare("EXPLAIN QUERY PLAN SELECT COUNT(*) FROM embedded_chunk_refs").all() as { detail: string }[]).map((row) => row.detail).join(" ");
    // Every record carries its fingerprint (≈ 270 bytes): a search's coverage count read them all (issue 22).
    expect(plan).toContain("COVERING INDEX embedded_chunk_refs_narrow");
    raw.close();
  });

  it("tells whether each found chunk has a vector from the narrow index too", () => {
    const file = databaseAtVersion(8, "");
    openSqliteMainStore({ path: file, loadVectorExtension: false }).close();
    const raw = openSqlite(file, { readOnly: true });
    const plan = (raw.prepare(`EXPLAIN QUERY PLAN SELECT ${HAS_VECTOR} FROM chunks c`).all() as { detail: string }[]).map((row) => row.detail).join(" ");
    expect(plan).toContain("COVERING INDEX embedded_chunk_refs_narrow");
    raw.close();
  });
});
