import type { ChunkRef } from "../../core/types.js";
import type { SqliteDatabase } from "./database.js";
import { writeTransaction } from "./database.js";
import type { SetIncludedResult } from "../contract.js";

export interface ReviewStore {
  /** Includes or excludes chunks. Excluded chunks are never returned by any search. */
  setIncluded(refs: readonly ChunkRef[], included: boolean): SetIncludedResult;
  /** Refs the user excluded, optionally within one folder. */
  listExcludedRefs(folderId?: string): ChunkRef[];
}

export function createReviewStore(db: SqliteDatabase, now: () => Date): ReviewStore {
  const current = db.prepare<[string], { included: number | null; content_hash: string }>(
    "SELECT r.included AS included, c.content_hash AS content_hash FROM chunks c LEFT JOIN chunk_reviews r ON r.ref = c.ref WHERE c.ref = ?",
  );
  // The decision is recorded with the text it was made on; syncDocument carries it when the text moves.
  const record = db.prepare(`
    INSERT INTO chunk_reviews (ref, included, content_hash, updated_at) VALUES (?, ?, ?, ?)
    ON CONFLICT (ref) DO UPDATE SET included = excluded.included, content_hash = excluded.content_hash, updated_at = excluded.updated_at`);

  return {
    setIncluded(refs, included) {
      return writeTransaction(db, () => {
        const timestamp = now().toISOString();
        const result: SetIncludedResult = { changed: 0, missingRefs: [] };
        for (const ref of new Set(refs)) {
          const row = current.get(ref);
          if (!row) {
            result.missingRefs.push(ref);
            continue;
          }
          const wasIncluded = row.included === null || row.included === 1;
          record.run(ref, included ? 1 : 0, row.content_hash, timestamp);
          if (wasIncluded !== included) result.changed += 1;
        }
        return result;
      });
    },

    listExcludedRefs(folderId) {
      const sql = folderId === undefined
        ? "SELECT r.ref FROM chunk_reviews r JOIN chunks c ON c.ref = r.ref WHERE r.included = 0 ORDER BY r.ref"
        : "SELECT r.ref FROM chunk_reviews r JOIN chunks c ON c.ref = r.ref WHERE r.included = 0 AND c.folder_id = ? ORDER BY r.ref";
      const statement = db.prepare<string[], string>(sql).pluck();
      return folderId === undefined ? statement.all() : statement.all(folderId);
    },
  };
}
