import { ChunkpadError } from "../../core/errors.js";
import type { CommitGroup, CommitGroupOptions } from "../contract.js";
import type { SqliteDatabase } from "./database.js";

/**
 * Writes grouped into one transaction for a short while (Step 1: one commit for many documents
 * instead of one per document; FTS5 flushes its pending terms once per commit). The transaction
 * opens at the first write of a group, not before, and commits `maxDelayMs` later at most, so the
 * write lock is never held across a long parse and other writers get their turn between groups.
 * Each store call inside stays atomic on its own (better-sqlite3 nests it as a savepoint).
 */
export interface CommitGrouping {
  start(options: CommitGroupOptions): CommitGroup;
  /** Called before every grouped write: opens the group's transaction when a group is on. */
  beforeWrite(): void;
}

export function createCommitGrouping(db: SqliteDatabase): CommitGrouping {
  /** The runs grouping now (two folders processed at once in one server share the transaction). */
  const groups = new Set<CommitGroupOptions>();
  let open = false;
  let timer: NodeJS.Timeout | undefined;
  let failure: unknown;

  const commit = () => {
    clearTimeout(timer);
    timer = undefined;
    if (!open) return;
    open = false;
    if (!db.inTransaction) {
      // SQLite rolled the transaction back on its own (a full disk, an I/O error): say so, never pretend.
      failure = new ChunkpadError("DATABASE_ERROR", "The database undid the last writes of this run (the disk may be full or failing). Free space or check the disk, then run the same command again.");
      throw failure;
    }
    db.exec("COMMIT");
    for (const group of groups) group.onCommit();
  };

  return {
    start(options) {
      groups.add(options);
      if (groups.size === 1) {
        failure = undefined;
        keepStatementJournalsInMemory(db, true);
      }
      return {
        async end() {
          try {
            commit();
          } finally {
            groups.delete(options);
            if (groups.size === 0) keepStatementJournalsInMemory(db, false);
          }
        },
      };
    },
    beforeWrite() {
      if (failure) throw failure;
      if (groups.size === 0 || open || db.inTransaction) return;
      db.exec("BEGIN IMMEDIATE");
      open = true;
      timer = setTimeout(() => {
        try {
          commit();
        } catch (error) {
          failure = error;
        }
      }, Math.min(...[...groups].map((group) => group.maxDelayMs)));
    },
  };
}

/**
 * Each document's writes inside a group's transaction are a savepoint (so one failure undoes only
 * its own writes), and SQLite keeps a copy of every page a savepoint changes that the transaction
 * had already changed: ≈ 37 pages (150 KB) a note, written to a temporary file past 64 KB —
 * 75 `pwrite64` a note on a first `add` (decision 098). While a group is open they are kept in
 * memory; afterwards temporary storage is SQLite's default again (large sorts go to disk). It
 * cannot change inside a transaction: then it stays as it is.
 */
function keepStatementJournalsInMemory(db: SqliteDatabase, inMemory: boolean): void {
  if (db.open && !db.inTransaction) db.pragma(`temp_store = ${inMemory ? "MEMORY" : "DEFAULT"}`);
}
