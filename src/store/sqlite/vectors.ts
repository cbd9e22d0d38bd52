import { ChunkpadError } from "../../core/errors.js";
import type { ChunkRef } from "../../core/types.js";
import type { SqliteDatabase } from "./database.js";
import { writeTransaction } from "./database.js";
import type { ChunkRow } from "./chunk-rows.js";
import { CHUNK_COLUMNS, scopeConditions, toChunkRecord } from "./chunk-rows.js";
import { createAnnSearch } from "./ann-search.js";
import type { VectorSupport } from "./vector-extension.js";
import { vectorUnavailableError } from "./vector-extension.js";
import type { AnnIndex } from "./ann.js";
import { createVersionedCache, createWriteVersion } from "./write-version.js";
import type { ChunkRecord, EmbedCoverage, EmbedStateRow, SearchScope, StoredVector, UpsertVectorsResult, VectorInput } from "../contract.js";

/** FTS5 expressions a vector hit must satisfy (compiled from the query's phrases and -words). */
export interface TextConstraints {
  /** A hit must match this. */
  required?: string | null;
  /** A hit must not match this. */
  excluded?: string | null;
}

export interface VectorSearchOptions extends SearchScope {
  k: number;
  /** Applied before k is counted, so k hits come back when that many qualify. */
  text?: TextConstraints;
}

/** A vector hit as sqlite-vec ranks it; the store adapter turns the distance into a similarity score. */
export interface VectorHit {
  chunk: ChunkRecord;
  /** Cosine distance, 0 (same direction) .. 2 (opposite). */
  distance: number;
  /** True when the chunk's text changed after its vector was made. */
  stale: boolean;
}

/** sqlite-vec's largest k for one KNN query. */
const MAX_KNN_K = 4096;
/** sqlite-vec's largest float vector. */
const MAX_DIMENSIONS = 8192;

export interface VectorStore {
  readonly vectorAvailable: boolean;
  readonly vectorUnavailableReason: string | null;
  /** Creates vec_chunks for vectors of this size; EMBEDDING_MISMATCH when it holds another size. */
  ensureVectorTable(dimensions: number): void;
  /** Size of the stored vectors, or null before the first embed. Works without sqlite-vec. */
  vectorDimensions(): number | null;
  /** Writes vectors and their embed records together, in one transaction. */
  upsertVectors(vectors: readonly VectorInput[], fingerprint: string): UpsertVectorsResult;
  /** Deletes vectors; returns how many chunks lost theirs. */
  deleteVectors(refs: readonly ChunkRef[]): number;
  /** Nearest included chunks first, by cosine distance. */
  vectorSearch(embedding: Float32Array, options: VectorSearchOptions): VectorHit[];
  /** These chunks' cosine distance from the query vector; chunks without a vector are left out. */
  vectorDistances(embedding: Float32Array, refs: readonly ChunkRef[]): Map<ChunkRef, number>;
  /** Included chunks in the scope, and how many of them have a vector. Works without sqlite-vec. */
  embedCoverage(scope?: SearchScope): EmbedCoverage;
  /** Per chunk: its content hash, review state and what (if anything) was embedded for it. */
  embedState(folderId?: string): EmbedStateRow[];
  /** Drops every vector and embed record (for --reembed or a model change). */
  dropAllVectors(): void;
  /** Chunks with a vector. Works without sqlite-vec. */
  vectorCount(): number;
  /** Whether any chunk has a vector (one row read, where vectorCount reads them all). Works without sqlite-vec. */
  hasVectors(): boolean;
  /** The stored vectors (of one folder), each with the hash of the text it was made from, in ref order. */
  listVectors(folderId?: string): StoredVector[];
  /** For the other stores: delete vectors of chunks they are deleting (no-op without vectors). */
  removeVectorRows(refs: readonly string[]): void;
  /** For the document store: moves vectors to new refs; without sqlite-vec their embed records go (re-embedded later). */
  renameVectorRows(renames: readonly { from: string; to: string }[], documentId: string): void;
}

interface EmbedStateDatabaseRow {
  ref: string;
  embed_hash: string;
  included: number;
  embedded_hash: string | null;
  fingerprint: string | null;
}

export function createVectorStore(db: SqliteDatabase, support: VectorSupport, now: () => Date, ann: AnnIndex | null = null): VectorStore {
  const tableSql = db.prepare<[], string>("SELECT sql FROM sqlite_master WHERE type = 'table' AND name = 'vec_chunks'").pluck();
  const chunkPlace = db.prepare<[string], { id: number; folder_id: string; document_id: string }>("SELECT id, folder_id, document_id FROM chunks WHERE ref = ?");
  const chunkId = db.prepare<[string], number>("SELECT id FROM chunks WHERE ref = ?").pluck();
  const recordEmbed = db.prepare(`
    INSERT INTO embedded_chunk_refs (chunk_ref, content_hash, fingerprint, embedded_at) VALUES (?, ?, ?, ?)
    ON CONFLICT (chunk_ref) DO UPDATE SET content_hash = excluded.content_hash, fingerprint = excluded.fingerprint, embedded_at = excluded.embedded_at`);
  const forgetEmbed = db.prepare("DELETE FROM embedded_chunk_refs WHERE chunk_ref = ?");
  const anyVector = db.prepare<[], number>("SELECT EXISTS (SELECT 1 FROM embedded_chunk_refs)").pluck();
  const chunkIdsOf = db.prepare<[string], { id: number; ref: ChunkRef }>("SELECT id, ref FROM chunks WHERE ref IN (SELECT value FROM json_each(?))");

  function requireVectors(): void {
    if (!support.available) throw vectorUnavailableError(support);
  }

  function vectorDimensions(): number | null {
    const sql = tableSql.get();
    if (sql === undefined) return null;
    const match = /embedding\s+float\[(\d+)\]/i.exec(sql);
    return match?.[1] === undefined ? null : Number(match[1]);
  }

  function mismatch(stored: number, given: number): ChunkpadError {
    return new ChunkpadError(
      "EMBEDDING_MISMATCH",
      `The vectors in the database have ${stored} dimensions but the embedding model makes ${given}: they were made by another model.`,
      { details: { storedDimensions: stored, modelDimensions: given }, nextSteps: [{ action: "embed", reembed: true }, { action: "change-setting", key: "embedding.model" }] },
    );
  }

  function ensureVectorTable(dimensions: number): void {
    requireVectors();
    if (!Number.isInteger(dimensions) || dimensions < 1 || dimensions > MAX_DIMENSIONS) {
      throw new ChunkpadError("INVALID_ARGUMENT", `A vector size of ${dimensions} is not possible; it must be a whole number from 1 to ${MAX_DIMENSIONS}.`);
    }
    writeTransaction(db, () => {
      const stored = vectorDimensions();
      if (stored !== null && stored !== dimensions) throw mismatch(stored, dimensions);
      if (stored === null) {
        db.exec(
          `CREATE VIRTUAL TABLE vec_chunks USING vec0(chunk_ref TEXT PRIMARY KEY, embedding float[${dimensions}] distance_metric=cosine, folder_id TEXT, document_id TEXT)`,
        );
        // No vectors exist, so no chunk counts as embedded (the table may have been dropped by hand).
        db.exec("DELETE FROM embedded_chunk_refs");
        ann?.logReset();
      } else {
        // Vectors of chunks deleted while sqlite-vec was unavailable.
        db.exec("DELETE FROM vec_chunks WHERE chunk_ref NOT IN (SELECT chunk_ref FROM embedded_chunk_refs)");
      }
    });
  }

  function removeVectorRows(refs: readonly string[]): void {
    if (!support.available || refs.length === 0 || vectorDimensions() === null) return;
    const remove = db.prepare("DELETE FROM vec_chunks WHERE chunk_ref = ?");
    const removed: number[] = [];
    for (const ref of refs) {
      if (remove.run(ref).changes === 0) continue;
      const id = chunkId.get(ref);
      if (id !== undefined) removed.push(id);
    }
    ann?.logRemove(removed);
  }

  function renameVectorRows(renames: readonly { from: string; to: string }[], documentId: string): void {
    if (renames.length === 0 || vectorDimensions() === null) return;
    if (!support.available) {
      // The vectors cannot be moved: without their records they are cleared and made again.
      for (const rename of renames) forgetEmbed.run(rename.to);
      return;
    }
    const read = db.prepare<[string], { embedding: Uint8Array; folder_id: string }>("SELECT embedding, folder_id FROM vec_chunks WHERE chunk_ref = ?");
    const remove = db.prepare("DELETE FROM vec_chunks WHERE chunk_ref = ?");
    const insert = db.prepare("INSERT INTO vec_chunks (chunk_ref, embedding, folder_id, document_id) VALUES (?, ?, ?, ?)");
    for (const rename of renames) {
      const row = read.get(rename.from);
      if (!row) continue;
      remove.run(rename.from);
      insert.run(rename.to, row.embedding, row.folder_id, documentId);
    }
  }

  /**
   * Exact nearest neighbours among the chunks that satisfy the text constraints. A KNN query
   * filtered afterwards could return fewer than k when the nearest chunks are excluded, so
   * this ranks every qualifying vector by distance instead (vec0 KNN is a full scan too).
   */
  function constrainedSearch(embedding: Float32Array, k: number, scope: SearchScope, text: TextConstraints): VectorHit[] {
    const filter = scopeConditions(scope);
    let sql = `
      SELECT ${CHUNK_COLUMNS}, vec_distance_cosine(v.embedding, ?) AS distance, c.embed_hash AS embed_hash, e.content_hash AS embedded_hash
      FROM vec_chunks v
      JOIN chunks c ON c.ref = v.chunk_ref
      JOIN documents d ON d.id = c.document_id
      LEFT JOIN chunk_reviews r ON r.ref = c.ref
      LEFT JOIN embedded_chunk_refs e ON e.chunk_ref = c.ref
      WHERE COALESCE(r.included, 1) = 1 ${filter.sql}`;
    const parameters: unknown[] = [toBlob(embedding), ...filter.parameters];
    if (text.required) {
      sql += " AND c.id IN (SELECT rowid FROM chunks_fts WHERE chunks_fts MATCH ?)";
      parameters.push(text.required);
    }
    if (text.excluded) {
      sql += " AND c.id NOT IN (SELECT rowid FROM chunks_fts WHERE chunks_fts MATCH ?)";
      parameters.push(text.excluded);
    }
    sql += " ORDER BY distance LIMIT ?";
    parameters.push(Math.floor(k));
    return db
      .prepare<unknown[], ChunkRow & { distance: number; embed_hash: string; embedded_hash: string | null }>(sql)
      .all(...parameters)
      .map((row) => ({ chunk: toChunkRecord(row), distance: row.distance, stale: row.embedded_hash !== row.embed_hash }));
  }

  // Counting every chunk's vector takes tens of milliseconds at 100k chunks, and each vector
  // or hybrid search reports coverage: counted once per scope until the database changes.
  const writeVersion = createWriteVersion(db);
  const coverageCache = createVersionedCache<EmbedCoverage>(writeVersion, 256);
  const annSearch = ann === null ? null : createAnnSearch({ db, ann, embeddedInScope: (scope) => embedCoverageOf(scope).embedded });
  function embedCoverageOf(scope: SearchScope): EmbedCoverage {
    return coverageCache.get(JSON.stringify([scope.folderIds ?? null, scope.documentIds ?? null]), () => countEmbedCoverage(scope));
  }

  // Without a scope: every row counted from the narrow tables, less the excluded ones (few),
  // instead of a lookup per chunk (5× faster at 20k chunks; embed records exist only for chunks).
  const wholeCoverage = db.prepare<[], { chunks: number; embedded: number }>(`
    SELECT (SELECT COUNT(*) FROM chunks) - (SELECT COUNT(*) FROM chunk_reviews r JOIN chunks c ON c.ref = r.ref WHERE r.included = 0) AS chunks,
      (SELECT COUNT(*) FROM embedded_chunk_refs) - (SELECT COUNT(*) FROM chunk_reviews r JOIN embedded_chunk_refs e ON e.chunk_ref = r.ref WHERE r.included = 0) AS embedded`);
  function countEmbedCoverage(scope: SearchScope): EmbedCoverage {
    if (scope.folderIds === undefined && scope.documentIds === undefined) return wholeCoverage.get() ?? { chunks: 0, embedded: 0 };
    const filter = scopeConditions(scope);
    const row = db
      .prepare<unknown[], { chunks: number; embedded: number | null }>(
        `SELECT COUNT(*) AS chunks, SUM(EXISTS (SELECT 1 FROM embedded_chunk_refs e WHERE e.chunk_ref = c.ref)) AS embedded
         FROM chunks c LEFT JOIN chunk_reviews r ON r.ref = c.ref
         WHERE COALESCE(r.included, 1) = 1 ${filter.sql}`,
      )
      .get(...filter.parameters);
    return { chunks: row?.chunks ?? 0, embedded: row?.embedded ?? 0 };
  }

  return {
    vectorAvailable: support.available,
    vectorUnavailableReason: support.reason,
    ensureVectorTable,
    vectorDimensions,
    removeVectorRows,
    renameVectorRows,
    listVectors(folderId) {
      requireVectors();
      if (vectorDimensions() === null) return [];
      const rows = db
        .prepare<[string | null, string | null], { ref: string; hash: string; fingerprint: string; embedding: Uint8Array }>(
          `SELECT e.chunk_ref AS ref, e.content_hash AS hash, e.fingerprint AS fingerprint, v.embedding AS embedding
           FROM embedded_chunk_refs e JOIN vec_chunks v ON v.chunk_ref = e.chunk_ref JOIN chunks c ON c.ref = e.chunk_ref
           WHERE ? IS NULL OR c.folder_id = ? ORDER BY e.chunk_ref`,
        )
        .all(folderId ?? null, folderId ?? null);
      return rows.map((row) => ({ ref: row.ref, embedHash: row.hash, fingerprint: row.fingerprint, embedding: new Float32Array(row.embedding.buffer.slice(row.embedding.byteOffset, row.embedding.byteOffset + row.embedding.byteLength)) }));
    },

    upsertVectors(vectors, fingerprint) {
      requireVectors();
      const result: UpsertVectorsResult = { written: 0, missingRefs: [] };
      const first = vectors[0];
      if (first === undefined) return result;
      if (vectorDimensions() === null) ensureVectorTable(first.embedding.length);
      const dimensions = vectorDimensions() as number;
      for (const vector of vectors) {
        if (vector.embedding.length !== dimensions) throw mismatch(dimensions, vector.embedding.length);
        if (!vector.embedding.every(Number.isFinite)) {
          throw new ChunkpadError("EMBEDDING_FAILED", `The embedding for ${vector.ref} contains values that are not numbers; the embedding model is misbehaving. Try again, or use another model.`);
        }
      }
      return writeTransaction(db, () => {
        const remove = db.prepare("DELETE FROM vec_chunks WHERE chunk_ref = ?");
        const insert = db.prepare("INSERT INTO vec_chunks (chunk_ref, embedding, folder_id, document_id) VALUES (?, ?, ?, ?)");
        const timestamp = now().toISOString();
        const added: number[] = [];
        for (const vector of vectors) {
          const place = chunkPlace.get(vector.ref);
          if (!place) {
            result.missingRefs.push(vector.ref);
            continue;
          }
          remove.run(vector.ref);
          insert.run(vector.ref, toBlob(vector.embedding), place.folder_id, place.document_id);
          recordEmbed.run(vector.ref, vector.embedHash, fingerprint, timestamp);
          added.push(place.id);
          result.written += 1;
        }
        ann?.logAdd(added);
        return result;
      });
    },

    deleteVectors(refs) {
      requireVectors();
      return writeTransaction(db, () => {
        removeVectorRows(refs);
        let deleted = 0;
        for (const ref of new Set(refs)) deleted += forgetEmbed.run(ref).changes;
        return deleted;
      });
    },

    vectorSearch(embedding, { k, text, ...scope }) {
      requireVectors();
      const dimensions = vectorDimensions();
      if (dimensions === null || k <= 0) return [];
      if (embedding.length !== dimensions) throw mismatch(dimensions, embedding.length);
      if (text?.required || text?.excluded) return constrainedSearch(embedding, k, scope, text);
      const approximate = annSearch?.(embedding, dimensions, Math.floor(k), scope) ?? null;
      if (approximate !== null) return approximate;
      // Excluded chunks may still have vectors until the next embed; fetch enough to skip them.
      const excluded = scopeConditions(scope);
      const excludedCount = db
        .prepare<unknown[], number>(
          `SELECT COUNT(*) FROM chunk_reviews r JOIN embedded_chunk_refs e ON e.chunk_ref = r.ref JOIN chunks c ON c.ref = r.ref WHERE r.included = 0 ${excluded.sql}`,
        )
        .pluck()
        .get(...excluded.parameters) ?? 0;
      const fetchCount = Math.min(MAX_KNN_K, Math.floor(k) + excludedCount);
      const knnScope = scopeConditions(scope, "v");
      const sql = `
        WITH knn AS (
          SELECT v.chunk_ref AS chunk_ref, v.distance AS distance FROM vec_chunks v
          WHERE v.embedding MATCH ? AND k = ? ${knnScope.sql}
        )
        SELECT ${CHUNK_COLUMNS}, knn.distance AS distance, c.embed_hash AS embed_hash, e.content_hash AS embedded_hash
        FROM knn
        JOIN chunks c ON c.ref = knn.chunk_ref
        JOIN documents d ON d.id = c.document_id
        LEFT JOIN chunk_reviews r ON r.ref = c.ref
        LEFT JOIN embedded_chunk_refs e ON e.chunk_ref = c.ref
        WHERE COALESCE(r.included, 1) = 1
        ORDER BY knn.distance
        LIMIT ?`;
      return db
        .prepare<unknown[], ChunkRow & { distance: number; embed_hash: string; embedded_hash: string | null }>(sql)
        .all(toBlob(embedding), fetchCount, ...knnScope.parameters, Math.floor(k))
        .map((row) => ({ chunk: toChunkRecord(row), distance: row.distance, stale: row.embedded_hash !== row.embed_hash }));
    },

    vectorDistances(embedding, refs) {
      const distances = new Map<ChunkRef, number>();
      const dimensions = vectorDimensions();
      if (!support.available || dimensions === null || refs.length === 0) return distances;
      if (embedding.length !== dimensions) throw mismatch(dimensions, embedding.length);
      const asked = new Set(refs);
      // From the approximate index's float16 copies once a search has loaded it: a sqlite-vec
      // point lookup reads the whole block of vectors it sits in (decision 102).
      if (ann?.loadedSize()) {
        const ids = new Map(chunkIdsOf.all(JSON.stringify([...asked])).map((row) => [row.id, row.ref]));
        for (const [id, distance] of ann.distances(embedding, dimensions, [...ids.keys()]) ?? []) {
          const ref = ids.get(id) as ChunkRef;
          distances.set(ref, distance);
          asked.delete(ref);
        }
      }
      // The rest, one lookup by primary key per chunk: a few hundred candidates, never a scan.
      const distance = db.prepare<[Buffer, string], number>("SELECT vec_distance_cosine(embedding, ?) FROM vec_chunks WHERE chunk_ref = ?").pluck();
      const blob = toBlob(embedding);
      for (const ref of asked) {
        const value = distance.get(blob, ref);
        if (value !== undefined && value !== null) distances.set(ref, value);
      }
      return distances;
    },

    embedCoverage: (scope = {}) => embedCoverageOf(scope),

    embedState(folderId) {
      const sql = `
        SELECT c.ref AS ref, c.embed_hash AS embed_hash, COALESCE(r.included, 1) AS included,
          e.content_hash AS embedded_hash, e.fingerprint AS fingerprint
        FROM chunks c
        LEFT JOIN chunk_reviews r ON r.ref = c.ref
        LEFT JOIN embedded_chunk_refs e ON e.chunk_ref = c.ref
        ${folderId === undefined ? "" : "WHERE c.folder_id = ?"}
        ORDER BY c.id`;
      const statement = db.prepare<string[], EmbedStateDatabaseRow>(sql);
      const rows = folderId === undefined ? statement.all() : statement.all(folderId);
      return rows.map((row) => ({
        ref: row.ref,
        embedHash: row.embed_hash,
        included: row.included !== 0,
        embeddedHash: row.embedded_hash,
        embeddedFingerprint: row.fingerprint,
      }));
    },

    dropAllVectors() {
      requireVectors();
      writeTransaction(db, () => {
        db.exec("DROP TABLE IF EXISTS vec_chunks");
        db.exec("DELETE FROM embedded_chunk_refs");
      });
      // Vectors of a model no longer used leave no copy behind.
      ann?.discard();
    },

    vectorCount() {
      return db.prepare<[], number>("SELECT COUNT(*) FROM embedded_chunk_refs").pluck().get() ?? 0;
    },

    hasVectors: () => anyVector.get() === 1,
  };
}

function toBlob(embedding: Float32Array): Buffer {
  return Buffer.from(embedding.buffer, embedding.byteOffset, embedding.byteLength);
}
