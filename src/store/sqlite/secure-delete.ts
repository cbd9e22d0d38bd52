import type { SqliteDatabase } from "./database.js";

/**
 * FTS5 normally deletes lazily: a removed document's words stay in the index segments until a
 * merge happens to rewrite them. With 'secure-delete' (SQLite 3.42+) a delete removes them from
 * the segments at once; together with PRAGMA secure_delete nothing of the text stays readable.
 * The option is stored in the index itself, so it is set at open, after the migrations (an
 * index a migration recreates gets it again).
 *
 * It costs about 7 ms per deleted chunk, though, so bulk deletes (a removed folder, sources gone
 * from a folder) switch it off and rewrite the whole index once with 'optimize' instead, which
 * drops every deleted entry too (bench/remove-folder.ts prints both costs).
 */
export function enableFtsSecureDelete(db: SqliteDatabase, ftsTable: string): void {
  const configured = db.prepare<[], number>(`SELECT v FROM "${ftsTable}_config" WHERE k = 'secure-delete'`).pluck().get();
  if (configured === 1) return;
  setFtsSecureDelete(db, ftsTable, true);
}

/**
 * Runs a bulk delete with FTS5 secure-delete off; the caller purges with optimizeFtsIndex
 * afterwards. Not one transaction with the delete (vec0 takes no savepoints): should the process
 * die in between, the next open switches the option on again.
 */
export function withoutFtsSecureDelete<R>(db: SqliteDatabase, ftsTable: string, work: () => R): R {
  setFtsSecureDelete(db, ftsTable, false);
  try {
    return work();
  } finally {
    setFtsSecureDelete(db, ftsTable, true);
  }
}

/** Rewrites the index into one segment, leaving out every deleted entry. */
export function optimizeFtsIndex(db: SqliteDatabase, ftsTable: string): void {
  db.prepare(`INSERT INTO "${ftsTable}" ("${ftsTable}") VALUES ('optimize')`).run();
}

function setFtsSecureDelete(db: SqliteDatabase, ftsTable: string, on: boolean): void {
  // A literal: FTS5 reads the value of a configuration command from the statement, not a parameter.
  db.prepare(`INSERT INTO "${ftsTable}" ("${ftsTable}", rank) VALUES ('secure-delete', ${on ? 1 : 0})`).run();
}
