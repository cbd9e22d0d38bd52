import { ChunkpadError } from "../../core/errors.js";
import type { SqliteDatabase } from "./database.js";
import type { SqliteStatement } from "./driver.js";
import { isFtsQueryError } from "./database.js";
import { createVersionedCache, createWriteVersion } from "./write-version.js";
import { CHUNK_COLUMN_NAMES, CHUNK_COLUMNS, CHUNK_FROM, chunkRowFromValues, createExcludedChunkCount, scopeConditions, toChunkRecord } from "./chunk-rows.js";
import type { ChunkRecord, KeywordSearchOptions, SearchScope } from "../contract.js";
import { quoteWords, type KeywordTerm } from "../../core/keyword-query.js";
import { createMemoryKeywordIndex, type MemoryKeywordIndex } from "./keyword-index.js";

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
  /** bm25 of these chunks for an FTS5 expression (lower is better); chunks it does not match are left out. */
  keywordBm25For(matchExpression: string, refs: readonly string[]): Map<string, number>;
  /** How many included chunks match, for the AND-then-OR fallback. */
  countKeywordMatches(matchExpression: string, scope?: SearchScope): number;
  /** How many chunks (included or not) hold this word, counting no further than `cap`. */
  countWordUpTo(word: string, cap: number): number;
  /**
   * The best `limit` chunks matching any of `terms` (FTS5 expressions of one word each; a word
   * given twice counts twice) and none of `exclude`, ranked exactly as the OR of the terms would
   * be, without scoring every match (see keywordSearchAny below).
   */
  keywordSearchAny(terms: readonly string[], exclude: readonly string[], options: KeywordSearchOptions, tuning?: { maxScoreFrom?: number }): FtsHit[];
  /**
   * All (or any) of `terms`, none of `exclude` (FTS5 expressions), ranked by the keyword index
   * in memory when this store keeps one (`memoryIndex`) — the same hits and bm25 as FTS5 — or
   * null: no index, or words FTS5 must read as phrases.
   */
  keywordSearchInMemory(terms: readonly KeywordTerm[], match: "all" | "any", exclude: readonly string[], options: KeywordSearchOptions): FtsHit[] | null;
  /** keywordSearchInMemory by reference: each hit's chunk ref and document, read from the chunks table alone. */
  keywordRefsInMemory(terms: readonly KeywordTerm[], match: "all" | "any", exclude: readonly string[], options: KeywordSearchOptions): FtsRefHit[] | null;
  /** Builds of the keyword index in memory so far (0: none, or no index kept). */
  keywordIndexBuilds(): number;
  /** Reads more of the keyword index in memory now, for about `budgetMs` (default: all of it); true while more remains. */
  warmKeywordIndex(budgetMs?: number): boolean;
  /** The keyword index in memory: ready once every word is read; null when this store keeps none. */
  keywordIndexStatus(): { ready: boolean; wordsRead: number } | null;
  /** Resolves once every word of the keyword index in memory is read (at once without one). */
  whenKeywordIndexReady(): Promise<void>;
  closeKeywordIndex(): void;
}

/** An FtsHit by reference (see KeywordRefHit in the contract). */
export interface FtsRefHit {
  ref: string;
  documentId: string;
  bm25: number;
  hasVector: boolean;
}

export interface KeywordStoreOptions {
  /** Keep the keyword index in memory (keyword-index.ts): for processes that search many times. */
  memoryIndex?: boolean;
  /** Read all of it in the background from the start (default true); false: the words searched, and warmKeywordIndex. */
  warmInBackground?: boolean;
}

/** A hit from a row of CHUNK_COLUMNS, bm25, has_vector read in raw mode (see chunkRowFromValues). */
function ftsHit(values: unknown[], bm25 = values[CHUNK_COLUMN_NAMES.length] as number): FtsHit {
  return { chunk: toChunkRecord(chunkRowFromValues(values)), bm25, hasVector: values[CHUNK_COLUMN_NAMES.length + 1] !== 0 };
}

const BM25 = `bm25(chunks_fts, ${TITLE_WEIGHT}, ${CONTENT_WEIGHT})`;
/**
 * Whether a chunk has a vector, for each row a search returns (up to 200 a keyword search).
 * Looked up in the narrow index: the records themselves carry their fingerprints (≈ 390 bytes a
 * row) and SQLite's plan took them by primary key, 0.5 of a search's 1.6 ms per 100 rows at 100k.
 */
export const HAS_VECTOR = "EXISTS (SELECT 1 FROM embedded_chunk_refs e INDEXED BY embedded_chunk_refs_narrow WHERE e.chunk_ref = c.ref) AS has_vector";

/**
 * FTS5's bm25: a phrase adds idf × f(k1 + 1) / (f + k1(1 − b + b·len/avglen)) to a row's score,
 * which stays below idf × (k1 + 1) with k1 = 1.2; idf = ln((N − n + 0.5) / (n + 0.5)), or 1e-6
 * when that is not positive (fts5_aux.c).
 */
const BM25_K1 = 1.2;
const BM25_MIN_IDF = 1e-6;

/**
 * Below this many matches (the words' row counts added up) one plain OR query is cheaper than
 * MaxScore's several: scoring a few thousand rows takes a few milliseconds.
 */
const MAXSCORE_MIN_MATCHES = 10_000;

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

/**
 * Rows by chunk id (raw values, the id first), reusing those the last call read while nothing is
 * written (this connection's changes and `PRAGMA data_version`: another process's writes too).
 */
function createRowReuse(statement: SqliteStatement<[string], unknown[]>, writeVersion: () => string): (ids: number[]) => Map<number, unknown[]> {
  let lastRows = new Map<number, unknown[]>();
  let lastVersion = "";
  return (ids) => {
    const version = writeVersion();
    const known = version === lastVersion ? lastRows : new Map<number, unknown[]>();
    const rows = new Map<number, unknown[]>();
    const missing: number[] = [];
    for (const id of ids) {
      const values = known.get(id);
      if (values === undefined) missing.push(id);
      else rows.set(id, values);
    }
    if (missing.length > 0) for (const values of statement.all(JSON.stringify(missing))) rows.set(values[0] as number, values);
    lastRows = rows;
    lastVersion = version;
    return rows;
  };
}

export function createKeywordStore(db: SqliteDatabase, { memoryIndex = false, warmInBackground = true }: KeywordStoreOptions = {}): KeywordStore {
  const rankFirst = db.prepare<[string, number, number], unknown[]>(`
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
    LIMIT ?`).raw();

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

  const countUpTo = db.prepare<[string, number], number>("SELECT COUNT(*) FROM (SELECT 1 FROM chunks_fts WHERE chunks_fts MATCH ? LIMIT ?)").pluck();
  const countRows = db.prepare<[], number>("SELECT COUNT(*) FROM chunks").pluck();
  const countPhraseRows = db.prepare<[string], number>("SELECT COUNT(*) FROM chunks_fts WHERE chunks_fts MATCH ?").pluck();
  // Row counts (for MaxScore's bounds, prefixes, exclusions), kept until this or another connection writes.
  const cached = createVersionedCache<number>(createWriteVersion(db));
  const counts = () => ({
    rows: cached.get("", () => countRows.get() ?? 0),
    phrase: (expression: string) => cached.get(`phrase:${expression}`, () => run(expression, () => countPhraseRows.get(expression) ?? 0)),
  });
  const excludedChunks = createExcludedChunkCount(db);

  let index: MemoryKeywordIndex | null = memoryIndex
    ? createMemoryKeywordIndex({ db, table: "chunks_fts", weights: { title: TITLE_WEIGHT, content: CONTENT_WEIGHT }, background: warmInBackground })
    : null;
  // Chunk ids a ranking skips (excluded chunks, chunks outside a scope), kept until any connection writes.
  const idSets = createVersionedCache<Set<number>>(createWriteVersion(db), 100);
  const excludedIds = db.prepare<[], number>("SELECT c.id FROM chunk_reviews r JOIN chunks c ON c.ref = r.ref WHERE r.included = 0").pluck();
  const matchingIds = db.prepare<[string], number>("SELECT rowid FROM chunks_fts WHERE chunks_fts MATCH ?").pluck();
  const rowsByIds = db.prepare<[string], unknown[]>(`SELECT ${CHUNK_COLUMNS}, 0 AS bm25, ${HAS_VECTOR} FROM ${CHUNK_FROM} WHERE c.id IN (SELECT value FROM json_each(?))`).raw();
  // By reference: the chunks table and the embed records' narrow index only, no text, document or review
  // (the ranking has already left out excluded chunks): 1.1 against 2.3 ms of CPU per 200 rows at 100k.
  const refsByIds = db.prepare<[string], unknown[]>(`SELECT c.id, c.ref, c.document_id, ${HAS_VECTOR} FROM chunks c WHERE c.id IN (SELECT value FROM json_each(?))`).raw();
  // The rows the last in-memory search returned, while nothing is written: a search's any-word
  // pass finds most of its all-word pass's chunks again (keyword-stage.ts), and reading a row
  // (its document, review and vector record) is the larger part of a search at 100k chunks.
  const writeVersion = createWriteVersion(db);
  const rowsOf = createRowReuse(rowsByIds, writeVersion);
  const refRowsOf = createRowReuse(refsByIds, writeVersion);

  // `+rowid` keeps the row filter out of FTS5's plan: handed to FTS5, each row id became a query
  // of its own, with its own pass over every phrase's doclist (240 ms for 100 CISI chunks, not 5).
  const bm25ForRefs = db.prepare<[string, string], { ref: string; bm25: number }>(`
    SELECT c.ref AS ref, ${BM25} AS bm25 FROM chunks_fts JOIN chunks c ON c.id = chunks_fts.rowid
    WHERE chunks_fts MATCH ? AND +chunks_fts.rowid IN (SELECT id FROM chunks WHERE ref IN (SELECT value FROM json_each(?)))`);

  /** The in-memory ranking of included chunks in the scope (ids and bm25), or null: no index, or it cannot rank these terms. */
  function rankInMemory(terms: readonly KeywordTerm[], match: "all" | "any", exclude: readonly string[], { limit, ...scope }: KeywordSearchOptions) {
    const ranker = index;
    if (ranker === null || terms.length === 0) return null;
    if (limit <= 0) return [];
    const excluded = idSets.get("excluded", () => new Set(excludedIds.all()));
    const without = exclude.length === 0 ? null : idSets.get(`not:${exclude.join(" OR ")}`, () => new Set(run(exclude.join(" OR "), () => matchingIds.all(exclude.join(" OR ")))));
    const filter = scopeConditions(scope);
    const inScope =
      filter.sql === ""
        ? null
        : idSets.get(`scope:${JSON.stringify(filter.parameters)}`, () => new Set(db.prepare<unknown[], number>(`SELECT c.id FROM chunks c WHERE 1 = 1 ${filter.sql}`).pluck().all(...filter.parameters)));
    return ranker.search(terms, match, Math.floor(limit), (id) => !excluded.has(id) && (without === null || !without.has(id)) && (inScope === null || inScope.has(id)));
  }

  /** A search over the in-memory ranking that reads its hits' rows with `rowsFor`. */
  function searchInMemory<Hit>(rowsFor: (ids: number[]) => Map<number, unknown[]>, toHit: (values: unknown[], bm25: number) => Hit) {
    return (terms: readonly KeywordTerm[], match: "all" | "any", exclude: readonly string[], options: KeywordSearchOptions): Hit[] | null => {
      const ranked = rankInMemory(terms, match, exclude, options);
      if (ranked === null) return null;
      const rows = rowsFor(ranked.map((hit) => hit.id));
      return ranked.flatMap(({ id, bm25 }) => {
        const values = rows.get(id);
        return values === undefined ? [] : [toHit(values, bm25)];
      });
    };
  }

  function keywordSearch(matchExpression: string, { limit, ...scope }: KeywordSearchOptions): FtsHit[] {
    if (limit <= 0) return [];
    const filter = scopeConditions(scope);
    const rows = run(matchExpression, () => {
      // An OR query on common words matches tens of thousands of chunks. Ranked inside FTS5
      // first, only the best rows are joined to chunks, documents and review state: the top
      // `limit + excluded` rows hold `limit` included ones whenever that many match, so the
      // result is exact. With a folder or document filter (or very many exclusions) the
      // filters apply before ranking instead.
      const excluded = filter.sql === "" ? excludedChunks() : Number.POSITIVE_INFINITY;
      if (excluded <= MAX_EXCLUDED_FOR_RANK_FIRST) return rankFirst.all(matchExpression, Math.floor(limit) + excluded, Math.floor(limit));
      return db.prepare<unknown[], unknown[]>(filteredSql(filter.sql)).raw().all(matchExpression, ...filter.parameters, Math.floor(limit));
    });
    return rows.map((values) => ftsHit(values));
  }

  /** How many chunks (included or not) this FTS5 expression matches, counting no further than `cap`. */
  function countMatchesUpTo(matchExpression: string, cap: number): number {
    return cached.get(`upto:${cap}:${matchExpression}`, () => run(matchExpression, () => countUpTo.get(matchExpression, cap) ?? 0));
  }

  return {
    keywordSearchInMemory: searchInMemory(rowsOf, (values, bm25) => ftsHit(values, bm25)),
    keywordRefsInMemory: searchInMemory(refRowsOf, (values, bm25) => ({ ref: values[1] as string, documentId: values[2] as string, bm25, hasVector: values[3] !== 0 })),

    countWordUpTo(word, cap) {
      // The keyword index in memory knows every word's row count; FTS5 counts them.
      const rows = index?.rowsHolding(word) ?? null;
      return rows === null ? countMatchesUpTo(quoteWords([word]), cap) : Math.min(rows, cap);
    },

    keywordIndexBuilds: () => index?.builds() ?? 0,
    warmKeywordIndex: (budgetMs = Number.POSITIVE_INFINITY) => index?.warm(budgetMs) ?? false,
    keywordIndexStatus: () => index?.status() ?? null,
    whenKeywordIndexReady: () => index?.whenReady() ?? Promise.resolve(),

    closeKeywordIndex() {
      index?.close();
      index = null;
    },


    keywordSearch,

    /**
     * MaxScore (Turtle & Flood 1995) over FTS5: an OR of common words matches tens of thousands
     * of chunks, and FTS5 computes bm25 for every one before sorting. Words are taken rarest
     * first (highest bound); step j ranks the chunks holding word j and none of the rarer ones,
     * scored by word j and the commoner words (words under NOT add nothing to bm25: those rows
     * do not hold them), so every score is exactly the OR's. Once the `limit`-th best score found
     * is at least what all the remaining words together could add, no chunk left can enter.
     */
    keywordSearchAny(terms, exclude, options, { maxScoreFrom = MAXSCORE_MIN_MATCHES } = {}) {
      const limit = Math.floor(options.limit);
      if (limit <= 0 || terms.length === 0) return [];
      const { rows, phrase } = counts();
      const plain = () => {
        const expression = `(${terms.join(" OR ")})`;
        return keywordSearch(exclude.length === 0 ? expression : `${expression} NOT (${exclude.join(" OR ")})`, options);
      };
      if (terms.reduce((sum, term) => sum + phrase(term), 0) < maxScoreFrom) return plain();
      const distinct = new Map<string, number>();
      for (const term of terms) distinct.set(term, (distinct.get(term) ?? 0) + 1);
      const words = [...distinct]
        .map(([expression, times]) => {
          const hits = phrase(expression);
          const idf = Math.log((rows - hits + 0.5) / (hits + 0.5));
          // A word given twice is a phrase twice in the OR: it counts twice, bound and score.
          const scored = times === 1 ? expression : `(${Array.from({ length: times }, () => expression).join(" OR ")})`;
          return { expression, scored, hits, bound: times * (BM25_K1 + 1) * (idf > BM25_MIN_IDF ? idf : BM25_MIN_IDF) };
        })
        .filter((word) => word.hits > 0)
        .sort((a, b) => b.bound - a.bound);
      const found: FtsHit[] = [];
      const threshold = () => {
        if (found.length < limit) return Number.NEGATIVE_INFINITY;
        found.sort((a, b) => a.bm25 - b.bm25);
        return -(found[limit - 1] as FtsHit).bm25;
      };
      // A margin for floating point: a bound a hair too low could drop an equal score.
      const safe = (bound: number) => bound * (1 + 1e-9) + 1e-12;
      const without = (expression: string, excluded: string[]) => (excluded.length === 0 ? expression : `(${expression}) NOT (${excluded.join(" OR ")})`);
      for (let index = 0; index < words.length; index++) {
        const word = words[index] as (typeof words)[number];
        const remaining = words.slice(index).reduce((sum, other) => sum + other.bound, 0);
        if (safe(remaining) <= threshold()) break;
        const rarer = words.slice(0, index).map((other) => other.expression);
        const commoner = words.slice(index + 1);
        if (commoner.length > 0) {
          const expression = `${word.scored} AND (${commoner.map((other) => other.scored).join(" OR ")})`;
          found.push(...keywordSearch(without(expression, [...rarer, ...exclude]), options));
        }
        // Rows holding this word alone score at most its own bound.
        if (safe(word.bound) > threshold()) {
          found.push(...keywordSearch(without(word.scored, [...rarer, ...commoner.map((other) => other.expression), ...exclude]), options));
        }
      }
      found.sort((a, b) => a.bm25 - b.bm25);
      return found.slice(0, limit);
    },

    keywordBm25For(matchExpression, refs) {
      if (refs.length === 0) return new Map();
      // bm25 depends on the row and the table's statistics only, so restricting the rows gives
      // the numbers a search over every row gives them.
      const rows = run(matchExpression, () => bm25ForRefs.all(matchExpression, JSON.stringify(refs)));
      return new Map(rows.map((row) => [row.ref, row.bm25]));
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
