import { ChunkpadError } from "../../core/errors.js";
import type { SqliteDatabase } from "./database.js";
import { isFtsQueryError } from "./database.js";
import type { ChunkRow } from "./chunk-rows.js";
import { CHUNK_COLUMNS, scopeConditions, toChunkRecord } from "./chunk-rows.js";
import type { ChunkRecord, KeywordSearchOptions, SearchScope } from "../contract.js";

/** A keyword hit as FTS5 ranks it; the store adapter turns bm25 into a higher-is-better score. */
export interface FtsHit {
  chunk: ChunkRecord;
  /** FTS5 bm25 with column weights; lower (more negative) is better. */
  bm25: number;
  hasVector: boolean;
}

/** bm25 column weights: a hit in the document title counts twice a hit in the text. */
const TITLE_WEIGHT = 2.0;
const CONTENT_WEIGHT = 1.0;

export interface KeywordStore {
  /**
   * FTS5 search over chunk titles and text, best first (bm25 ascending). `matchExpression` is
   * FTS5 query syntax; the search room builds it. Excluded chunks are never returned.
   */
  keywordSearch(matchExpression: string, options: KeywordSearchOptions): FtsHit[];
  /** How many included chunks match, for the AND-then-OR fallback. */
  countKeywordMatches(matchExpression: string, scope?: SearchScope): number;
}

export function createKeywordStore(db: SqliteDatabase): KeywordStore {
  function run<T>(matchExpression: string, work: () => T): T {
    if (matchExpression.trim() === "") {
      throw new ChunkpadError("INVALID_ARGUMENT", "The keyword search expression is empty. Give at least one word to search for.");
    }
    try {
      return work();
    } catch (error) {
      if (!isFtsQueryError(error)) throw error;
      throw new ChunkpadError(
        "INVALID_ARGUMENT",
        `The keyword search expression ${JSON.stringify(matchExpression)} is not valid FTS5 syntax (${(error as Error).message}). Use plain words, "quoted phrases" and -word to exclude.`,
        { cause: error },
      );
    }
  }

  return {
    keywordSearch(matchExpression, { limit, ...scope }) {
      if (limit <= 0) return [];
      const filter = scopeConditions(scope);
      const sql = `
        SELECT ${CHUNK_COLUMNS}, bm25(chunks_fts, ${TITLE_WEIGHT}, ${CONTENT_WEIGHT}) AS bm25,
          EXISTS (SELECT 1 FROM embedded_chunk_refs e WHERE e.chunk_ref = c.ref) AS has_vector
        FROM chunks_fts
        JOIN chunks c ON c.id = chunks_fts.rowid
        JOIN documents d ON d.id = c.document_id
        LEFT JOIN chunk_reviews r ON r.ref = c.ref
        WHERE chunks_fts MATCH ? AND COALESCE(r.included, 1) = 1 ${filter.sql}
        ORDER BY bm25
        LIMIT ?`;
      return run(matchExpression, () =>
        db
          .prepare<unknown[], ChunkRow & { bm25: number; has_vector: number }>(sql)
          .all(matchExpression, ...filter.parameters, Math.floor(limit))
          .map((row) => ({ chunk: toChunkRecord(row), bm25: row.bm25, hasVector: row.has_vector !== 0 })),
      );
    },

    countKeywordMatches(matchExpression, scope = {}) {
      const filter = scopeConditions(scope);
      const sql = `
        SELECT COUNT(*) FROM chunks_fts
        JOIN chunks c ON c.id = chunks_fts.rowid
        LEFT JOIN chunk_reviews r ON r.ref = c.ref
        WHERE chunks_fts MATCH ? AND COALESCE(r.included, 1) = 1 ${filter.sql}`;
      return run(matchExpression, () => db.prepare<unknown[], number>(sql).pluck().get(matchExpression, ...filter.parameters) ?? 0);
    },
  };
}
