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
  let active: { options: CommitGroupOptions; timer: NodeJS.Timeout | undefined; open: boolean } | undefined;
  let failure: unknown;

  const commit = () => {
    if (!active) return;
    clearTimeout(active.timer);
    active.timer = undefined;
    if (!active.open) return;
    active.open = false;
    if (!db.inTransaction) {
      // SQLite rolled the transaction back on its own (a full disk, an I/O error): say so, never pretend.
      failure = new ChunkpadError("DATABASE_ERROR", "The database undid the last writes of this run (the disk may be full or failing). Free space or check the disk, then run the same command again.");
      throw failure;
    }
    db.exec("COMMIT");
    active.options.onCommit();
  };

  return {
    start(options) {
      if (active) throw new ChunkpadError("INTERNAL", "a commit group is already running on this store");
      active = { options, timer: undefined, open: false };
      failure = undefined;
      return {
        async end() {
          try {
            commit();
          } finally {
            if (active?.timer) clearTimeout(active.timer);
            active = undefined;
          }
        },
      };
    },
    beforeWrite() {
      if (failure) throw failure;
      if (!active || active.open || db.inTransaction) return;
      db.exec("BEGIN IMMEDIATE");
      active.open = true;
      const group = active;
      group.timer = setTimeout(() => {
        try {
          if (active === group) commit();
        } catch (error) {
          failure = error;
        }
      }, group.options.maxDelayMs);
    },
  };
}
