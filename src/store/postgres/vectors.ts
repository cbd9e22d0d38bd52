import type pg from "pg";
import { ChunkpadError } from "../../core/errors.js";
import type { MainStore, SearchScope, StoredVector, VectorHit } from "../contract.js";
import { inTransaction, type Queryable } from "./connection.js";
import { CHUNK_COLUMNS, CHUNK_FROM, toChunkRecord, type ChunkRow } from "./documents.js";
import { constraintsTsquery } from "./text-index.js";

/**
 * Vectors on PostgreSQL with pgvector: one `vector(n)` column beside the embed records, an HNSW
 * index for cosine distance, filters (review state, folders, documents, text constraints) in the
 * same query. pgvector ≥ 0.8 keeps scanning the index until k rows pass the filters
 * (iterative scans); older versions search a wider beam instead.
 */

type VectorMethods = Pick<
  MainStore,
  "ensureVectorTable" | "vectorDimensions" | "upsertVectors" | "deleteVectors" | "vectorSearch" | "embedCoverage" | "embedState" | "dropAllVectors" | "vectorCount" | "listVectors" | "vectorScores" | "hasVectors"
>;

export interface VectorSupport {
  available: boolean;
  reason: string | null;
  /** pgvector ≥ 0.8: iterative index scans. */
  iterative: boolean;
}

const VECTOR_LOCK = 0x56_65_63_74; // "Vect"

/** Loads pgvector when the server has it; otherwise says what is missing and how to get it. */
export async function loadVectorSupport(pool: pg.Pool, where: string): Promise<VectorSupport> {
  const available = (await pool.query<{ installed: string | null }>("SELECT installed_version AS installed FROM pg_available_extensions WHERE name = 'vector'")).rows[0];
  if (available === undefined) {
    return {
      available: false,
      iterative: false,
      reason:
        `The PostgreSQL server at ${where} has no pgvector extension ("vector"), so vector and hybrid search are off; keyword search works. ` +
        "Install pgvector on the server (Debian/Ubuntu: apt install postgresql-<version>-pgvector from apt.postgresql.org; macOS: brew install pgvector; " +
        'RDS, Cloud SQL, Azure, Supabase and Neon ship it: enable the "vector" extension), then restart Chunkpad.',
    };
  }
  if (available.installed === null) {
    try {
      await pool.query("CREATE EXTENSION IF NOT EXISTS vector");
    } catch (error) {
      return {
        available: false,
        iterative: false,
        reason: `The PostgreSQL server at ${where} has pgvector but it is not enabled in this database, and this user may not enable it (${(error as Error).message}). Ask an administrator to run CREATE EXTENSION vector; keyword search works meanwhile.`,
      };
    }
  }
  const version = (await pool.query<{ v: string }>("SELECT extversion AS v FROM pg_extension WHERE extname = 'vector'")).rows[0]?.v ?? "0";
  const [major = 0, minor = 0] = version.split(".").map(Number);
  return { available: true, reason: null, iterative: major > 0 || minor >= 8 };
}

function toVectorText(embedding: Float32Array): string {
  return `[${Array.from(embedding).join(",")}]`;
}

function fromVectorText(text: string): Float32Array {
  return Float32Array.from(JSON.parse(text) as number[]);
}

function mismatch(stored: number, given: number): ChunkpadError {
  return new ChunkpadError(
    "EMBEDDING_MISMATCH",
    `The vectors in the database have ${stored} dimensions but the embedding model makes ${given}: they were made by another model.`,
    { details: { storedDimensions: stored, modelDimensions: given }, nextSteps: [{ action: "embed", reembed: true }, { action: "change-setting", key: "embedding.model" }] },
  );
}

async function dimensionsOf(client: Queryable): Promise<number | null> {
  const row = (await client.query<{ typmod: number }>("SELECT atttypmod AS typmod FROM pg_attribute WHERE attrelid = 'vectors'::regclass AND attname = 'embedding' AND NOT attisdropped")).rows[0];
  return row === undefined || row.typmod < 0 ? null : row.typmod;
}

function scopeSql(scope: SearchScope, first: number): { sql: string; values: unknown[] } | null {
  if (scope.folderIds?.length === 0 || scope.documentIds?.length === 0) return null;
  return {
    sql: `($${first}::text[] IS NULL OR c.folder_id = ANY($${first})) AND ($${first + 1}::text[] IS NULL OR c.document_id = ANY($${first + 1}))`,
    values: [scope.folderIds ? [...scope.folderIds] : null, scope.documentIds ? [...scope.documentIds] : null],
  };
}

export function createVectorMethods(pool: pg.Pool, support: () => VectorSupport): VectorMethods {
  const requireVectors = () => {
    const current = support();
    if (!current.available) throw new ChunkpadError("VECTOR_UNAVAILABLE", current.reason ?? "pgvector is not available.");
  };

  async function ensure(client: Queryable, dimensions: number): Promise<void> {
    const stored = await dimensionsOf(client);
    if (stored !== null && stored !== dimensions) throw mismatch(stored, dimensions);
    if (stored === null) {
      await client.query("SELECT pg_advisory_xact_lock($1)", [VECTOR_LOCK]);
      const again = await dimensionsOf(client);
      if (again !== null) {
        if (again !== dimensions) throw mismatch(again, dimensions);
        return;
      }
      await client.query(`ALTER TABLE vectors ADD COLUMN embedding vector(${Math.trunc(dimensions)})`);
      await client.query("CREATE INDEX vectors_hnsw ON vectors USING hnsw (embedding vector_cosine_ops)");
    }
  }

  return {
    async ensureVectorTable(dimensions) {
      requireVectors();
      await inTransaction(pool, (client) => ensure(client, dimensions));
    },
    vectorDimensions: () => dimensionsOf(pool),

    async upsertVectors(vectors, fingerprint) {
      requireVectors();
      const first = vectors[0];
      if (first === undefined) return { written: 0, missingRefs: [] };
      for (const vector of vectors) {
        if (vector.embedding.length !== first.embedding.length) throw mismatch(first.embedding.length, vector.embedding.length);
        if (!vector.embedding.every(Number.isFinite)) {
          throw new ChunkpadError("EMBEDDING_FAILED", `The embedding for ${vector.ref} contains values that are not numbers; the embedding model is misbehaving. Try again, or use another model.`);
        }
      }
      return inTransaction(pool, async (client) => {
        await ensure(client, first.embedding.length);
        const ids = new Map((await client.query<{ id: number; ref: string }>("SELECT id, ref FROM chunks WHERE ref = ANY($1::text[])", [vectors.map((vector) => vector.ref)])).rows.map((row) => [row.ref, row.id]));
        const present = vectors.filter((vector) => ids.has(vector.ref));
        if (present.length > 0) {
          await client.query(
            `INSERT INTO vectors (chunk_id, embed_hash, fingerprint, embedding)
             SELECT r.id, r.hash, $3, r.embedding::vector FROM unnest($1::bigint[], $2::text[], $4::text[]) AS r(id, hash, embedding)
             ON CONFLICT (chunk_id) DO UPDATE SET embed_hash = excluded.embed_hash, fingerprint = excluded.fingerprint, embedding = excluded.embedding`,
            [present.map((vector) => ids.get(vector.ref)), present.map((vector) => vector.embedHash), fingerprint, present.map((vector) => toVectorText(vector.embedding))],
          );
        }
        return { written: present.length, missingRefs: vectors.filter((vector) => !ids.has(vector.ref)).map((vector) => vector.ref) };
      });
    },

    async deleteVectors(refs) {
      if (refs.length === 0) return 0;
      return (await pool.query("DELETE FROM vectors v USING chunks c WHERE v.chunk_id = c.id AND c.ref = ANY($1::text[])", [[...refs]])).rowCount ?? 0;
    },

    async vectorSearch(embedding, { k, text, ...scope }): Promise<VectorHit[]> {
      requireVectors();
      const filter = scopeSql(scope, 3);
      if (filter === null || k <= 0) return [];
      const stored = await dimensionsOf(pool);
      if (stored === null) return [];
      if (stored !== embedding.length) throw mismatch(stored, embedding.length);
      const constraints = constraintsTsquery(text);
      return inTransaction(pool, async (client) => {
        // The beam must hold k rows after the filters; iterative scans widen it as needed.
        await client.query(`SET LOCAL hnsw.ef_search = ${Math.min(1000, Math.max(40, k * 2))}`);
        if (support().iterative) await client.query("SET LOCAL hnsw.iterative_scan = strict_order");
        const rows = (await client.query<ChunkRow & { distance: number; embedded_hash: string }>(
          `SELECT ${CHUNK_COLUMNS}, v.embedding <=> $1::vector AS distance, v.embed_hash AS embedded_hash
           FROM vectors v JOIN ${CHUNK_FROM} ON c.id = v.chunk_id
           WHERE c.included AND v.embedding IS NOT NULL AND ${filter.sql} AND ($5::tsquery IS NULL OR c.search @@ $5::tsquery)
           ORDER BY v.embedding <=> $1::vector
           LIMIT $2`,
          [toVectorText(embedding), k, ...filter.values, constraints],
        )).rows;
        return rows.map((row) => {
          const chunk = toChunkRecord(row);
          return { chunk, score: 1 - Number(row.distance), stale: row.embedded_hash !== row.embed_hash };
        });
      });
    },

    async embedCoverage(scope = {}) {
      const filter = scopeSql(scope, 1);
      if (filter === null) return { chunks: 0, embedded: 0 };
      const row = (await pool.query<{ chunks: number; embedded: number }>(
        `SELECT COUNT(*) AS chunks, COUNT(v.chunk_id) AS embedded FROM chunks c LEFT JOIN vectors v ON v.chunk_id = c.id WHERE c.included AND ${filter.sql}`,
        filter.values,
      )).rows[0];
      return { chunks: Number(row?.chunks ?? 0), embedded: Number(row?.embedded ?? 0) };
    },

    async embedState(folderId) {
      const rows = (await pool.query<{ ref: string; embed_hash: string; included: boolean; embedded_hash: string | null; fingerprint: string | null }>(
        `SELECT c.ref, c.embed_hash, c.included, v.embed_hash AS embedded_hash, v.fingerprint
         FROM chunks c LEFT JOIN vectors v ON v.chunk_id = c.id WHERE $1::text IS NULL OR c.folder_id = $1 ORDER BY c.id`,
        [folderId ?? null],
      )).rows;
      return rows.map((row) => ({ ref: row.ref, embedHash: row.embed_hash, included: row.included, embeddedHash: row.embedded_hash, embeddedFingerprint: row.fingerprint }));
    },

    async dropAllVectors() {
      await inTransaction(pool, async (client) => {
        await client.query("DELETE FROM vectors");
        // The next embed may bring vectors of another size.
        await client.query("ALTER TABLE vectors DROP COLUMN IF EXISTS embedding");
      });
    },

    async vectorScores(embedding, refs) {
      if (refs.length === 0 || !support().available) return new Map();
      const stored = await dimensionsOf(pool);
      if (stored === null) return new Map();
      if (stored !== embedding.length) throw mismatch(stored, embedding.length);
      const rows = (await pool.query<{ ref: string; distance: number }>(
        `SELECT c.ref, v.embedding <=> $1::vector AS distance FROM vectors v JOIN chunks c ON c.id = v.chunk_id
         WHERE v.embedding IS NOT NULL AND c.ref = ANY($2::text[])`,
        [toVectorText(embedding), [...refs]],
      )).rows;
      return new Map(rows.map((row) => [row.ref, 1 - Number(row.distance)]));
    },

    async hasVectors() {
      return Boolean((await pool.query<{ any: boolean }>("SELECT EXISTS (SELECT 1 FROM vectors) AS any")).rows[0]?.any);
    },

    async vectorCount() {
      return Number((await pool.query<{ n: number }>("SELECT COUNT(*) AS n FROM vectors")).rows[0]?.n ?? 0);
    },

    async listVectors(folderId) {
      if ((await dimensionsOf(pool)) === null) return [];
      const rows = (await pool.query<{ ref: string; embed_hash: string; fingerprint: string; embedding: string }>(
        `SELECT c.ref, v.embed_hash, v.fingerprint, v.embedding::text AS embedding FROM vectors v JOIN ${CHUNK_FROM} ON c.id = v.chunk_id
         WHERE v.embedding IS NOT NULL AND ($1::text IS NULL OR c.folder_id = $1) ORDER BY c.ref COLLATE "C"`,
        [folderId ?? null],
      )).rows;
      return rows.map((row): StoredVector => ({ ref: row.ref, embedHash: row.embed_hash, fingerprint: row.fingerprint, embedding: fromVectorText(row.embedding) }));
    },
  };
}
