import type { SqliteDatabase } from "./database.js";

/**
 * FTS5 normally deletes lazily: a removed document's words stay in the index segments until a
 * merge happens to rewrite them. With 'secure-delete' (SQLite 3.42+) a delete removes them from
 * the segments at once; together with PRAGMA secure_delete nothing of the text stays readable.
 * The option is stored in the index itself, so it is set once, at open, after the migrations
 * (an index a migration recreates gets it again).
 */
export function enableFtsSecureDelete(db: SqliteDatabase, ftsTable: string): void {
  const configured = db.prepare<[], number>(`SELECT v FROM "${ftsTable}_config" WHERE k = 'secure-delete'`).pluck().get();
  if (configured === 1) return;
  db.prepare(`INSERT INTO "${ftsTable}" ("${ftsTable}", rank) VALUES ('secure-delete', 1)`).run();
}
