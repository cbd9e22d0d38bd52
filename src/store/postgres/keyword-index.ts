import type pg from "pg";
import { SEARCH_TEXT_VERSION } from "../../core/searchable-text.js";
import { indexText } from "./text-index.js";
import { inTransaction, type Queryable } from "./connection.js";

/**
 * Keeps the keyword index's statistics in SQL, in the writer's transaction: each chunk's words
 * with their weighted counts (chunk_terms), how many chunks hold each word (term_stats), and the
 * number of chunks and words (keyword_stats). BM25 reads them (keyword.ts). Words are made in
 * Node (text-index.ts), so the server's text-search configuration plays no part.
 */

export interface IndexEntry {
  id: number;
  title: string;
  content: string;
}

/** The tsvector and length columns of a chunk row. */
export function searchColumns(title: string, content: string): { search: string; tokenCount: number } {
  const indexed = indexText(title, content);
  return { search: indexed.vector, tokenCount: indexed.length };
}

/** Adds the words of chunks whose rows (search, token_count) were just written. */
export async function indexChunks(client: Queryable, entries: readonly IndexEntry[]): Promise<void> {
  if (entries.length === 0) return;
  const ids: number[] = [];
  const terms: string[] = [];
  const frequencies: number[] = [];
  const rowsPerTerm = new Map<string, number>();
  let tokens = 0;
  for (const entry of entries) {
    const indexed = indexText(entry.title, entry.content);
    tokens += indexed.length;
    for (const [term, frequency] of indexed.frequencies) {
      ids.push(entry.id);
      terms.push(term);
      frequencies.push(frequency);
      rowsPerTerm.set(term, (rowsPerTerm.get(term) ?? 0) + 1);
    }
  }
  if (ids.length > 0) {
    await client.query("INSERT INTO chunk_terms (chunk_id, term, frequency) SELECT * FROM unnest($1::bigint[], $2::text[], $3::real[])", [ids, terms, frequencies]);
    // In one order, so two writers never wait on each other's words in a cycle.
    const sorted = [...rowsPerTerm].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
    await client.query(
      `INSERT INTO term_stats (term, rows) SELECT * FROM unnest($1::text[], $2::int[])
       ON CONFLICT (term) DO UPDATE SET rows = term_stats.rows + excluded.rows`,
      [sorted.map(([term]) => term), sorted.map(([, rows]) => rows)],
    );
  }
  await client.query("UPDATE keyword_stats SET rows = rows + $1, tokens = tokens + $2", [entries.length, tokens]);
}

/** Takes the words of chunks out of the statistics (before the rows are updated or deleted). */
export async function unindexChunks(client: Queryable, ids: readonly number[]): Promise<void> {
  if (ids.length === 0) return;
  await client.query(
    `WITH gone AS (SELECT term, COUNT(*)::int AS n FROM chunk_terms WHERE chunk_id = ANY($1::bigint[]) GROUP BY term ORDER BY term)
     UPDATE term_stats t SET rows = t.rows - gone.n FROM gone WHERE t.term = gone.term`,
    [ids],
  );
  await client.query("DELETE FROM chunk_terms WHERE chunk_id = ANY($1::bigint[])", [ids]);
  await client.query(
    "UPDATE keyword_stats SET rows = rows - s.n, tokens = tokens - s.t FROM (SELECT COUNT(*) AS n, COALESCE(SUM(token_count), 0) AS t FROM chunks WHERE id = ANY($1::bigint[])) s",
    [ids],
  );
}

/** Rebuilds every statistic and tsvector from the chunks (the fix when integrityCheck flags them). */
export async function rebuildKeywordIndex(client: Queryable): Promise<void> {
  await client.query("DELETE FROM chunk_terms");
  await client.query("DELETE FROM term_stats");
  await client.query("UPDATE keyword_stats SET rows = 0, tokens = 0");
  const batch = 500;
  for (let after = 0; ; ) {
    const rows = (await client.query<IndexEntry>("SELECT id, title, content FROM chunks WHERE id > $1 ORDER BY id LIMIT $2", [after, batch])).rows;
    if (rows.length === 0) break;
    for (const row of rows) {
      const { search, tokenCount } = searchColumns(row.title, row.content);
      await client.query("UPDATE chunks SET search = $2::tsvector, token_count = $3 WHERE id = $1", [row.id, search, tokenCount]);
    }
    await indexChunks(client, rows);
    after = (rows.at(-1) as IndexEntry).id;
  }
}

/** Problems with the statistics: totals that disagree with the chunks they count. */
export async function checkKeywordIndex(client: Queryable): Promise<string[]> {
  const problems: string[] = [];
  const totals = (await client.query<{ rows: number; tokens: number; chunks: number; chunk_tokens: number }>(
    "SELECT k.rows, k.tokens, (SELECT COUNT(*) FROM chunks) AS chunks, (SELECT COALESCE(SUM(token_count), 0) FROM chunks)::bigint AS chunk_tokens FROM keyword_stats k",
  )).rows[0];
  if (totals === undefined || Number(totals.rows) !== Number(totals.chunks) || Number(totals.tokens) !== Number(totals.chunk_tokens)) {
    problems.push("keyword index: its totals do not match the chunks; rebuild the keyword index from the chunks table (nothing is lost)");
  }
  const wrongRows = (await client.query<{ n: number }>(
    "SELECT COUNT(*) AS n FROM term_stats t FULL JOIN (SELECT term, COUNT(*)::int AS rows FROM chunk_terms GROUP BY term) c ON c.term = t.term WHERE COALESCE(t.rows, 0) <> COALESCE(c.rows, 0)",
  )).rows[0]?.n ?? 0;
  if (Number(wrongRows) > 0) problems.push(`keyword index: ${wrongRows} words have wrong chunk counts; rebuild the keyword index from the chunks table (nothing is lost)`);
  return problems;
}

/**
 * What made the index's words, recorded in meta (as on SQLite). An index made otherwise holds
 * words no query now looks for, so at open it is rebuilt from the chunks (nothing is lost), once
 * for every stale record, under a lock: writers wait, and a second process opening at the same
 * moment finds it done.
 */
export interface WordsMadeBy {
  key: string;
  value: string;
  stale(recorded: string | null): boolean;
}

/**
 * core/searchable-text.ts makes the words (decisions 041, 048, 049); a database that never
 * recorded its version was indexed before the first change (CJK words only).
 */
export function searchTextRecord(): WordsMadeBy {
  const value = String(SEARCH_TEXT_VERSION);
  return { key: "keyword.searchText", value, stale: (recorded) => recorded !== value };
}

/** meta key: the ICU that cut the index's CJK words. */
export const KEYWORD_ICU_KEY = "keyword.icu";

/**
 * CJK text is cut by Intl.Segmenter, whose dictionary is Node's ICU: another ICU can cut the same
 * text differently, and the index would no longer match its queries. A process with a newer ICU
 * rebuilds; one with an older ICU leaves the index as it is (servers of a team on two Node
 * versions must not rebuild it back and forth at every start); its CJK queries may then cut a
 * word differently.
 */
export function icuRecord(icu: string): WordsMadeBy {
  return { key: KEYWORD_ICU_KEY, value: icu, stale: (recorded) => recorded === null || newerVersion(icu, recorded) };
}

function newerVersion(a: string, b: string): boolean {
  const parts = (version: string) => version.split(/[.-]/).map((part) => Number.parseInt(part, 10) || 0);
  const [left, right] = [parts(a), parts(b)];
  for (let index = 0; index < Math.max(left.length, right.length); index += 1) {
    const difference = (left[index] ?? 0) - (right[index] ?? 0);
    if (difference !== 0) return difference > 0;
  }
  return false;
}

/** Rebuilds the index once when any record is stale, then records every stale one (one read when none is). */
export async function rebuildIfWordsChanged(pool: pg.Pool, records: readonly WordsMadeBy[]): Promise<void> {
  const staleIn = async (client: Queryable) => {
    const rows = (await client.query<{ key: string; value: string }>("SELECT key, value FROM meta WHERE key = ANY($1::text[])", [records.map((record) => record.key)])).rows;
    const recorded = new Map(rows.map((row) => [row.key, row.value]));
    return records.filter((record) => record.stale(recorded.get(record.key) ?? null));
  };
  if ((await staleIn(pool)).length === 0) return;
  await inTransaction(pool, async (client) => {
    await client.query("LOCK TABLE chunks IN SHARE ROW EXCLUSIVE MODE");
    const stale = await staleIn(client);
    if (stale.length === 0) return;
    const holdsChunks = (await client.query("SELECT 1 FROM chunks LIMIT 1")).rows.length > 0;
    if (holdsChunks) await rebuildKeywordIndex(client);
    for (const record of stale) {
      await client.query("INSERT INTO meta (key, value) VALUES ($1, $2) ON CONFLICT (key) DO UPDATE SET value = excluded.value", [record.key, record.value]);
    }
  });
}
