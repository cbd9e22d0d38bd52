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

type FtsRow = ChunkRow & { bm25: number; has_vector: number };

const BM25 = `bm25(chunks_fts, ${TITLE_WEIGHT}, ${CONTENT_WEIGHT})`;
const HAS_VECTOR = "EXISTS (SELECT 1 FROM embedded_chunk_refs e WHERE e.chunk_ref = c.ref) AS has_vector";

/** Above this many excluded chunks, ranking first would fetch too many rows: filter first. */
const MAX_EXCLUDED_FOR_RANK_FIRST = 5_000;

function filteredSql(scopeSql: string): string {
  return `
    SELECT ${CHUNK_COLUMNS}, ${BM25} AS bm25, ${HAS_VECTOR}
    FROM chunks_fts
    JOIN chunks c ON c.id = chunks_fts.rowid
    JOIN documents d ON d.id = c.document_id
    LEFT JOIN chunk_reviews r ON r.ref = c.ref
    WHERE chunks_fts MATCH ? AND COALESCE(r.included, 1) = 1 ${scopeSql}
    ORDER BY bm25
    LIMIT ?`;
}

export function createKeywordStore(db: SqliteDatabase): KeywordStore {
  const countExcluded = db.prepare<[], number>("SELECT COUNT(*) FROM chunk_reviews WHERE included = 0").pluck();
  const rankFirst = db.prepare<[string, number, number], FtsRow>(`
    WITH top AS (
      SELECT rowid AS id, ${BM25} AS bm25 FROM chunks_fts WHERE chunks_fts MATCH ? ORDER BY bm25 LIMIT ?
    )
    SELECT ${CHUNK_COLUMNS}, top.bm25 AS bm25, ${HAS_VECTOR}
    FROM top
    JOIN chunks c ON c.id = top.id
    JOIN documents d ON d.id = c.document_id
    LEFT JOIN chunk_reviews r ON r.ref = c.ref
    WHERE COALESCE(r.included, 1) = 1
    ORDER BY top.bm25
    LIMIT ?`);

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
      const rows = run(matchExpression, () => {
        // An OR query on common words matches tens of thousands of chunks. Ranked inside FTS5
        // first, only the best rows are joined to chunks, documents and review state: the top
        // `limit + excluded` rows hold `limit` included ones whenever that many match, so the
        // result is exact. With a folder or document filter (or very many exclusions) the
        // filters apply before ranking instead.
        const excluded = filter.sql === "" ? (countExcluded.get() ?? 0) : Number.POSITIVE_INFINITY;
        if (excluded <= MAX_EXCLUDED_FOR_RANK_FIRST) return rankFirst.all(matchExpression, Math.floor(limit) + excluded, Math.floor(limit));
        return db.prepare<unknown[], FtsRow>(filteredSql(filter.sql)).all(matchExpression, ...filter.parameters, Math.floor(limit));
      });
      return rows.map((row) => ({ chunk: toChunkRecord(row), bm25: row.bm25, hasVector: row.has_vector !== 0 }));
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
