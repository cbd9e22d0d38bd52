import { describeError } from "../../core/errors.js";
import type { SqliteDatabase } from "./database.js";
import type { IntegrityReport } from "../contract.js";

export interface IntegrityStore {
  /** PRAGMA integrity_check, foreign keys, and the FTS index against the chunks it mirrors. */
  integrityCheck(): IntegrityReport;
  /** Rebuilds the keyword index from the chunks table (the fix when integrityCheck flags it). */
  rebuildKeywordIndex(): void;
}

export function createIntegrityStore(db: SqliteDatabase): IntegrityStore {
  return {
    integrityCheck() {
      const problems: string[] = [];
      const pages = db.prepare<[], string>("PRAGMA integrity_check").pluck().all();
      if (!(pages.length === 1 && pages[0] === "ok")) problems.push(...pages.map((line) => `database: ${line}`));
      const orphans = db.prepare<[], { table: string; rowid: number | null; parent: string }>("PRAGMA foreign_key_check").all();
      for (const orphan of orphans) problems.push(`foreign key: a row of ${orphan.table} (rowid ${orphan.rowid ?? "?"}) points at a missing ${orphan.parent} row`);
      try {
        // rank = 1 also compares the index with the chunks table it is built from.
        db.prepare("INSERT INTO chunks_fts (chunks_fts, rank) VALUES ('integrity-check', 1)").run();
      } catch (error) {
        problems.push(`keyword index: ${describeError(error)}; rebuild the keyword index from the chunks table (nothing is lost)`);
      }
      return { ok: problems.length === 0, problems };
    },

    rebuildKeywordIndex() {
      db.prepare("INSERT INTO chunks_fts (chunks_fts) VALUES ('rebuild')").run();
    },
  };
}
