import type pg from "pg";
import type { KeywordQuery } from "../../core/keyword-query.js";
import type { KeywordHit, MainStore, SearchScope } from "../contract.js";
import { CHUNK_COLUMNS, CHUNK_FROM, toChunkRecord, type ChunkRow } from "./documents.js";
import { rankedWords, tokenize, toTsquery } from "./text-index.js";

/**
 * Keyword search on PostgreSQL: the GIN index over each chunk's tsvector finds the matches
 * (words, prefixes, phrases, exclusions), and BM25 ranks them from the term statistics kept in
 * SQL (keyword-index.ts) with FTS5's constants and weights (title words count double), so both
 * backends rank alike. A phrase is ranked by its words (FTS5 ranks the phrase as one term).
 */

const K1 = 1.2;
const B = 0.75;
const MIN_IDF = 1e-6;
/** As the SQLite store: a prefix stays on a word the index does not hold whole, or on a rare word of 5+ letters. */
const RARE_WORD_ROWS = 1_000;
const PREFIX_WORTH_CHARS = 5;

type KeywordMethods = Pick<MainStore, "keywordSearch" | "keywordSearchRefs" | "planKeywordQuery" | "countKeywordMatches" | "keywordScores">;

/** The scope as SQL parameters; null when an empty list makes it match nothing. */
function scopeOf(scope: SearchScope): { folders: string[] | null; documents: string[] | null } | null {
  if (scope.folderIds?.length === 0 || scope.documentIds?.length === 0) return null;
  return { folders: scope.folderIds ? [...scope.folderIds] : null, documents: scope.documentIds ? [...scope.documentIds] : null };
}

export function createKeywordMethods(pool: pg.Pool): KeywordMethods {
  async function plan(query: KeywordQuery): Promise<KeywordQuery> {
    if (!query.terms.some((term) => term.prefix)) return query;
    const terms = await Promise.all(
      query.terms.map(async (term) => {
        if (!term.prefix || /\p{Script=Hangul}/u.test(term.word)) return term;
        const last = tokenize(term.word).at(-1);
        if (last === undefined) return term;
        const rows = (await pool.query<{ rows: number }>("SELECT rows FROM term_stats WHERE term = $1", [last])).rows[0]?.rows ?? 0;
        const keep = rows === 0 || (rows <= RARE_WORD_ROWS && Array.from(term.word).length >= PREFIX_WORTH_CHARS);
        return keep ? term : { ...term, prefix: false };
      }),
    );
    return { ...query, terms };
  }

  /** Ranked matches; with `refs`, only those chunks (their scores for keywordScores). */
  async function search(query: KeywordQuery, options: { limit: number } & SearchScope, refs: readonly string[] | null): Promise<KeywordHit[]> {
    const planned = await plan(query);
    const tsquery = toTsquery(planned);
    const scope = scopeOf(options);
    if (tsquery === null || scope === null || options.limit <= 0) return [];
    // A word typed again counts again (BM25's query term frequency, as FTS5 adds a term's share
    // once per occurrence; the query caps the repeats).
    const counted = new Map<string, { word: string; prefix: boolean; times: number }>();
    for (const word of rankedWords(planned)) {
      const key = `${word.prefix ? "*" : ""}${word.word}`;
      const known = counted.get(key);
      if (known) known.times += 1;
      else counted.set(key, { ...word, times: 1 });
    }
    const ranked = [...counted.values()];
    // Each word's postings are read by the index on (term, chunk_id): exact words by equality,
    // prefixes as the range [word, word + U+10FFFF) in the C collation's byte order.
    // `matched` and `hits` are MATERIALIZED: inlined, the planner (which guesses one match for a
    // tsquery) re-read every word's postings once per matched chunk — 2.7 s instead of 30 ms for
    // a three-word AND query on CISI (EXPLAIN ANALYZE, decision 046).
    const rows = (await pool.query<ChunkRow & { score: number; has_vector: boolean }>(
      `WITH stats AS (SELECT GREATEST(rows, 1)::float8 AS n, CASE WHEN rows > 0 THEN tokens::float8 / rows ELSE 1 END AS avgdl FROM keyword_stats),
       q AS (SELECT word, prefix, times, idx, word || U&'\\+10FFFF' AS upper FROM unnest($2::text[], $3::bool[], $8::int[]) WITH ORDINALITY AS q(word, prefix, times, idx)),
       df AS (
         SELECT q.idx, COALESCE((SELECT t.rows FROM term_stats t WHERE t.term = q.word), 0)::float8 AS rows FROM q WHERE NOT q.prefix
         UNION ALL
         SELECT q.idx, COALESCE((SELECT SUM(t.rows) FROM term_stats t WHERE t.term >= q.word AND t.term < q.upper), 0)::float8 FROM q WHERE q.prefix
       ),
       idf AS (SELECT df.idx, q.times * GREATEST(ln((s.n - LEAST(df.rows, s.n) + 0.5) / (LEAST(df.rows, s.n) + 0.5)), ${MIN_IDF}) AS value FROM df JOIN q ON q.idx = df.idx CROSS JOIN stats s),
       matched AS MATERIALIZED (
         SELECT c.id, c.token_count FROM chunks c
         WHERE c.search @@ $1::tsquery AND c.included
           AND ($4::text[] IS NULL OR c.folder_id = ANY($4)) AND ($5::text[] IS NULL OR c.document_id = ANY($5))
           AND ($7::text[] IS NULL OR c.ref = ANY($7))
       ),
       hits AS MATERIALIZED (
         SELECT q.idx, t.chunk_id, t.frequency::float8 AS f FROM q JOIN chunk_terms t ON t.term = q.word WHERE NOT q.prefix
         UNION ALL
         SELECT q.idx, t.chunk_id, SUM(t.frequency)::float8 FROM q JOIN chunk_terms t ON t.term >= q.word AND t.term < q.upper WHERE q.prefix GROUP BY q.idx, t.chunk_id
       ),
       scored AS (
         SELECT m.id, GREATEST(COALESCE(SUM(i.value * (h.f * ${K1 + 1}) / (h.f + ${K1} * (1 - ${B} + ${B} * m.token_count / s.avgdl))), 0), 1e-9) AS score
         FROM matched m CROSS JOIN stats s
         LEFT JOIN hits h ON h.chunk_id = m.id
         LEFT JOIN idf i ON i.idx = h.idx
         GROUP BY m.id
         ORDER BY score DESC, m.id
         LIMIT $6
       )
       SELECT ${CHUNK_COLUMNS}, s.score, EXISTS (SELECT 1 FROM vectors v WHERE v.chunk_id = c.id) AS has_vector
       FROM scored s JOIN chunks c ON c.id = s.id JOIN documents d ON d.id = c.document_id
       ORDER BY s.score DESC, c.id`,
      [tsquery, ranked.map((word) => word.word), ranked.map((word) => word.prefix), scope.folders, scope.documents, options.limit, refs === null ? null : [...refs], ranked.map((word) => word.times)],
    )).rows;
    return rows.map((row) => ({ chunk: toChunkRecord(row), score: Number(row.score), hasVector: row.has_vector }));
  }

  return {
    planKeywordQuery: plan,

    keywordSearch: (query, options) => search(query, options, null),

    // One query ranks and reads the rows here: the whole hits, by reference.
    async keywordSearchRefs(query, options) {
      return (await search(query, options, null)).map(({ chunk, score, hasVector }) => ({ ref: chunk.ref, documentId: chunk.documentId, score, hasVector }));
    },

    async keywordScores(query, refs) {
      if (refs.length === 0) return new Map();
      const hits = await search(query, { limit: refs.length }, refs);
      return new Map(hits.map((hit) => [hit.chunk.ref, hit.score]));
    },

    async countKeywordMatches(query, scopeOptions = {}) {
      const tsquery = toTsquery(await plan(query));
      const scope = scopeOf(scopeOptions);
      if (tsquery === null || scope === null) return 0;
      const row = (await pool.query<{ n: number }>(
        `SELECT COUNT(*) AS n FROM ${CHUNK_FROM} WHERE c.search @@ $1::tsquery AND c.included AND ($2::text[] IS NULL OR c.folder_id = ANY($2)) AND ($3::text[] IS NULL OR c.document_id = ANY($3))`,
        [tsquery, scope.folders, scope.documents],
      )).rows[0];
      return Number(row?.n ?? 0);
    },
  };
}
