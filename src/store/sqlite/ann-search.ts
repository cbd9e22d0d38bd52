import type { SqliteDatabase, SqliteStatement } from "./driver.js";
import type { AnnIndex } from "./ann.js";
import { CHUNK_COLUMN_NAMES, CHUNK_COLUMNS, chunkRowFromValues, createExcludedChunkCount, scopeConditions, toChunkRecord } from "./chunk-rows.js";
import type { SearchScope } from "../contract.js";
import type { VectorHit } from "./vectors.js";

/** Candidates asked of the approximate index at first, and at most (it is asked 4× more each round). */
const ANN_MIN_CANDIDATES = 64;
const ANN_MAX_CANDIDATES = 16_384;
/** Up to this many excluded chunks the first round asks for k + excluded candidates (no scope). */
const MAX_EXCLUDED_FOR_EXACT_FIRST_ROUND = 1_000;

/**
 * Vector search through the approximate index (ann.ts): its nearest candidates, filtered like
 * the exact path in vectors.ts. `embeddedInScope` counts the vectors a folder or document scope
 * holds (below the index's threshold the exact path is as fast).
 */
export function createAnnSearch({ db, ann, embeddedInScope }: { db: SqliteDatabase; ann: AnnIndex; embeddedInScope: (scope: SearchScope) => number }) {
  const excludedCount = createExcludedChunkCount(db);
  const candidateFetches = new Map<string, SqliteStatement<unknown[], unknown[]>>();
  /**
   * Through the approximate index: its nearest candidates, filtered like the exact path (review
   * state, folders, documents); more candidates while too few pass the filters. Null when the
   * exact path should answer (few vectors in the scope, no index, or a filter so narrow that the
   * index keeps missing).
   */
  return function annSearch(embedding: Float32Array, dimensions: number, k: number, scope: SearchScope): VectorHit[] | null {
    if ((scope.folderIds !== undefined || scope.documentIds !== undefined) && embeddedInScope(scope) < ann.threshold) return null;
    const filter = scopeConditions(scope);
    // Rows read as arrays (chunkRowFromValues): CHUNK_COLUMNS, then the two hashes.
    const fetch = candidateFetches.get(filter.sql) ?? db.prepare<unknown[], unknown[]>(`
      SELECT ${CHUNK_COLUMNS}, c.embed_hash AS embed_hash, e.content_hash AS embedded_hash
      FROM chunks c
      JOIN documents d ON d.id = c.document_id
      LEFT JOIN chunk_reviews r ON r.ref = c.ref
      LEFT JOIN embedded_chunk_refs e ON e.chunk_ref = c.ref
      WHERE c.id IN (SELECT value FROM json_each(?)) AND COALESCE(r.included, 1) = 1 ${filter.sql}`).raw();
    candidateFetches.set(filter.sql, fetch);
    // Without a folder or document filter only the user's exclusions can drop a candidate: the
    // nearest k + excluded hold k included chunks, and fetching fewer rows is most of the cost.
    const excluded = filter.sql === "" ? excludedCount() : Number.POSITIVE_INFINITY;
    const first = excluded <= MAX_EXCLUDED_FOR_EXACT_FIRST_ROUND ? Math.max(k + excluded, Math.min(k * 4, ANN_MIN_CANDIDATES)) : Math.max(k * 4, ANN_MIN_CANDIDATES);
    for (let want = first; want <= ANN_MAX_CANDIDATES; want *= 4) {
      const candidates = ann.candidates(embedding, dimensions, want);
      if (candidates === null) return null;
      const rows = new Map(fetch.all(JSON.stringify(candidates.map((candidate) => candidate.id)), ...filter.parameters).map((values) => [values[0] as number, values]));
      const hits: VectorHit[] = [];
      const hashes = CHUNK_COLUMN_NAMES.length;
      for (const candidate of candidates) {
        const values = rows.get(candidate.id);
        if (values) hits.push({ chunk: toChunkRecord(chunkRowFromValues(values)), distance: candidate.distance, stale: values[hashes + 1] !== values[hashes] });
        if (hits.length === k) break;
      }
      if (hits.length >= k || candidates.length < want) return hits;
    }
    return null;
  };
}
