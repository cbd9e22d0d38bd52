import path from "node:path";
import type pg from "pg";
import { chunkRef, embedTextHash, sha256Hex } from "../../core/chunk-ref.js";
import { ChunkpadError } from "../../core/errors.js";
import type { ChunkMeta, ChunkRecord } from "../../core/types.js";
import type { MainStore, SyncDocumentResult } from "../contract.js";
import { carryReviewDecisions } from "../review-carry.js";
import { inTransaction, type Queryable } from "./connection.js";
import { folderNotIndexed } from "./folders.js";
import { indexChunks, searchColumns, unindexChunks } from "./keyword-index.js";
import { toDocument, type ChunkRowBase, type DocumentRow } from "../rows.js";

/** Documents, chunks and review state on PostgreSQL. Decisions follow text through the shared rule (review-carry.ts). */

const DOCUMENT_ID_LENGTH_CHARS = 16;

export function documentIdFor(folderId: string, relativePath: string): string {
  return sha256Hex(`${folderId}\n${relativePath}`).slice(0, DOCUMENT_ID_LENGTH_CHARS);
}

/** Metadata as jsonb, the review state as a boolean on the row. */
export interface ChunkRow extends ChunkRowBase<boolean> {
  embed_hash: string;
  meta: ChunkMeta;
}

export const CHUNK_COLUMNS = "c.id, c.ref, c.document_id, c.folder_id, d.relative_path, c.ordinal, c.title, c.content, c.content_hash, c.embed_hash, c.meta, c.included";
export const CHUNK_FROM = "chunks c JOIN documents d ON d.id = c.document_id";

export function toChunkRecord(row: ChunkRow): ChunkRecord {
  return {
    ref: row.ref,
    documentId: row.document_id,
    folderId: row.folder_id,
    relativePath: row.relative_path,
    ordinal: row.ordinal,
    title: row.title,
    content: row.content,
    contentHash: row.content_hash,
    included: row.included,
    ...row.meta,
  };
}

/** Meta keys in a stable order, undefined ones left out (so equal meta compares equal as JSON). */
function cleanMeta(meta: ChunkMeta): ChunkMeta {
  const clean: Record<string, unknown> = {};
  for (const key of ["page", "pageEnd", "slide", "sheet", "charStart", "charEnd", "section"] as const) if (meta[key] !== undefined && meta[key] !== null) clean[key] = meta[key];
  return clean as ChunkMeta;
}

export type DocumentMethods = Pick<
  MainStore,
  "syncDocument" | "deleteDocument" | "renameDocument" | "getDocument" | "getDocumentByPath" | "listDocuments" | "findDocuments" | "listChunks" | "getChunk" | "getChunks" | "setIncluded" | "listExcludedRefs"
>;

export function createDocumentMethods(pool: pg.Pool, options: { now: () => Date; changed: (client: Queryable, kind: string, folderId: string | null) => Promise<void> }): DocumentMethods {
  const byPath = async (client: Queryable, folderId: string, relativePath: string) =>
    (await client.query<DocumentRow>("SELECT * FROM documents WHERE folder_id = $1 AND relative_path = $2", [folderId, relativePath])).rows[0];

  return {
    async syncDocument(input) {
      checkRelativePath(input.relativePath);
      return inTransaction(pool, async (client) => {
        const folder = (await client.query<{ new_chunks_included: boolean }>("SELECT new_chunks_included FROM folders WHERE id = $1 FOR SHARE", [input.folderId])).rows[0];
        if (!folder) throw folderNotIndexed(input.folderId);
        const timestamp = options.now().toISOString();
        const existing = await byPath(client, input.folderId, input.relativePath);
        const documentId = existing?.id ?? documentIdFor(input.folderId, input.relativePath);
        await client.query(
          `INSERT INTO documents (id, folder_id, relative_path, file_name, title, document_type, file_size, page_count, chunk_count, indexed_at)
           VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10)
           ON CONFLICT (id) DO UPDATE SET file_name = excluded.file_name, title = excluded.title, document_type = excluded.document_type,
             file_size = excluded.file_size, page_count = excluded.page_count, chunk_count = excluded.chunk_count, indexed_at = excluded.indexed_at`,
          [documentId, input.folderId, input.relativePath, path.posix.basename(input.relativePath), input.title, input.documentType, input.fileSize, input.pageCount, input.chunks.length, timestamp],
        );
        const storedRows = (await client.query<ChunkRow>(`SELECT ${CHUNK_COLUMNS} FROM ${CHUNK_FROM} WHERE c.document_id = $1 ORDER BY c.ordinal FOR UPDATE OF c`, [documentId])).rows;
        const stored = new Map(storedRows.map((row) => [row.ordinal, row]));
        const contentHashes = input.chunks.map((draft) => sha256Hex(draft.content));
        const decisions = carryReviewDecisions(
          storedRows.map((row) => ({ content: row.content, contentHash: row.content_hash, included: row.included })),
          input.chunks.map((draft, index) => ({ content: draft.content, contentHash: contentHashes[index] as string })),
          folder.new_chunks_included,
        );
        const result: SyncDocumentResult = { documentId, added: 0, updated: 0, removed: 0, unchanged: 0, changedRefs: [], removedRefs: [] };
        const reindex: { id: number; title: string; content: string }[] = [];
        // New rows go in one statement; changed rows leave the keyword statistics together first.
        const inserts: { ref: string; ordinal: number; content: string; contentHash: string; embedHash: string; meta: string; included: boolean; search: string; tokenCount: number }[] = [];
        const updates: { id: number; content: string; values: unknown[] }[] = [];
        for (const [index, draft] of input.chunks.entries()) {
          const ordinal = index + 1;
          const ref = chunkRef(input.folderId, input.relativePath, ordinal);
          const meta = cleanMeta(draft.meta);
          const contentHash = contentHashes[index] as string;
          const included = (decisions[index] as { included: boolean }).included;
          const embedHash = embedTextHash({ title: input.title, section: meta.section, content: draft.content });
          const old = stored.get(ordinal);
          if (!old || old.title !== input.title || old.content_hash !== contentHash || JSON.stringify(cleanMeta(old.meta)) !== JSON.stringify(meta)) {
            const { search, tokenCount } = searchColumns(input.title, draft.content);
            if (!old) {
              inserts.push({ ref, ordinal, content: draft.content, contentHash, embedHash, meta: JSON.stringify(meta), included, search, tokenCount });
              result.added += 1;
            } else {
              updates.push({ id: old.id, content: draft.content, values: [input.title, draft.content, contentHash, embedHash, JSON.stringify(meta), included, search, tokenCount, timestamp, old.id] });
              result.updated += 1;
            }
            result.changedRefs.push(ref);
          } else {
            if (old.included !== included) await client.query("UPDATE chunks SET included = $2 WHERE id = $1", [old.id, included]);
            result.unchanged += 1;
          }
        }
        await unindexChunks(client, updates.map((update) => update.id));
        for (const update of updates) {
          await client.query(
            "UPDATE chunks SET title = $1, content = $2, content_hash = $3, embed_hash = $4, meta = $5, included = $6, search = $7::tsvector, token_count = $8, updated_at = $9 WHERE id = $10",
            update.values,
          );
          reindex.push({ id: update.id, title: input.title, content: update.content });
        }
        if (inserts.length > 0) {
          const inserted = await client.query<{ id: number; ordinal: number }>(
            `INSERT INTO chunks (ref, document_id, folder_id, ordinal, title, content, content_hash, embed_hash, meta, included, search, token_count, updated_at)
             SELECT r.ref, $1, $2, r.ordinal, $3, r.content, r.content_hash, r.embed_hash, r.meta::jsonb, r.included, r.search::tsvector, r.token_count, $4
             FROM unnest($5::text[], $6::int[], $7::text[], $8::text[], $9::text[], $10::text[], $11::bool[], $12::text[], $13::int[])
               AS r(ref, ordinal, content, content_hash, embed_hash, meta, included, search, token_count)
             RETURNING id, ordinal`,
            [
              documentId, input.folderId, input.title, timestamp,
              inserts.map((row) => row.ref), inserts.map((row) => row.ordinal), inserts.map((row) => row.content), inserts.map((row) => row.contentHash),
              inserts.map((row) => row.embedHash), inserts.map((row) => row.meta), inserts.map((row) => row.included), inserts.map((row) => row.search), inserts.map((row) => row.tokenCount),
            ],
          );
          const contentOf = new Map(inserts.map((row) => [row.ordinal, row.content]));
          for (const row of inserted.rows) reindex.push({ id: row.id, title: input.title, content: contentOf.get(row.ordinal) as string });
        }
        await indexChunks(client, reindex);
        const removed = storedRows.filter((row) => row.ordinal > input.chunks.length);
        if (removed.length > 0) {
          await unindexChunks(client, removed.map((row) => row.id));
          await client.query("DELETE FROM chunks WHERE id = ANY($1::bigint[])", [removed.map((row) => row.id)]);
          result.removedRefs = removed.map((row) => row.ref);
          result.removed = removed.length;
        }
        await options.changed(client, "document", input.folderId);
        return result;
      });
    },

    async deleteDocument(folderId, relativePath) {
      return inTransaction(pool, async (client) => {
        const existing = await byPath(client, folderId, relativePath);
        if (!existing) return false;
        const ids = (await client.query<{ id: number }>("SELECT id FROM chunks WHERE document_id = $1", [existing.id])).rows.map((row) => row.id);
        await unindexChunks(client, ids);
        await client.query("DELETE FROM documents WHERE id = $1", [existing.id]);
        await options.changed(client, "document", folderId);
        return true;
      });
    },

    async renameDocument(folderId, from, to) {
      checkRelativePath(to);
      return inTransaction(pool, async (client) => {
        const existing = await byPath(client, folderId, from);
        if (!existing) return false;
        if (from === to) return true;
        if (await byPath(client, folderId, to)) throw new ChunkpadError("INVALID_ARGUMENT", `Cannot rename "${from}" to "${to}": a document is already indexed at "${to}".`);
        // The id is a hash of the path: a new file at the old path must not find this document.
        const documentId = documentIdFor(folderId, to);
        await client.query("UPDATE documents SET id = $1, relative_path = $2, file_name = $3 WHERE id = $4", [documentId, to, path.posix.basename(to), existing.id]);
        const chunks = (await client.query<{ id: number; ordinal: number }>("SELECT id, ordinal FROM chunks WHERE document_id = $1", [documentId])).rows;
        // Refs move in two steps, so no new ref meets an old one still in place.
        await client.query("UPDATE chunks SET ref = '~' || ref WHERE document_id = $1", [documentId]);
        await client.query("UPDATE chunks SET ref = r.ref FROM unnest($1::bigint[], $2::text[]) AS r(id, ref) WHERE chunks.id = r.id", [
          chunks.map((chunk) => chunk.id),
          chunks.map((chunk) => chunkRef(folderId, to, chunk.ordinal)),
        ]);
        await client.query("UPDATE sources SET relative_path = $1 WHERE folder_id = $2 AND relative_path = $3", [to, folderId, from]);
        await options.changed(client, "document", folderId);
        return true;
      });
    },

    async getDocument(id) {
      const row = (await pool.query<DocumentRow>("SELECT * FROM documents WHERE id = $1", [id])).rows[0];
      return row ? toDocument(row) : null;
    },
    async getDocumentByPath(folderId, relativePath) {
      const row = await byPath(pool, folderId, relativePath);
      return row ? toDocument(row) : null;
    },
    async listDocuments(folderId) {
      const rows = folderId === undefined
        ? (await pool.query<DocumentRow>('SELECT * FROM documents ORDER BY folder_id COLLATE "C", relative_path COLLATE "C"')).rows
        : (await pool.query<DocumentRow>('SELECT * FROM documents WHERE folder_id = $1 ORDER BY relative_path COLLATE "C"', [folderId])).rows;
      return rows.map(toDocument);
    },
    async findDocuments(query, findOptions = {}) {
      if (query.trim() === "") return [];
      const pattern = `%${query.toLowerCase().replace(/[\\%_]/g, (character) => `\\${character}`)}%`;
      const tiers: [string, string][] = [["id = $1", query], ["relative_path = $1", query], ["lower(file_name) = lower($1)", query], ["(lower(relative_path) LIKE $1 OR lower(title) LIKE $1)", pattern]];
      for (const [condition, value] of tiers) {
        const rows = (await pool.query<DocumentRow>(
          `SELECT * FROM documents WHERE ${condition} AND ($2::text IS NULL OR folder_id = $2) ORDER BY folder_id COLLATE "C", relative_path COLLATE "C"`,
          [value, findOptions.folderId ?? null],
        )).rows;
        if (rows.length > 0) return rows.map(toDocument);
      }
      return [];
    },

    async listChunks(filter = {}) {
      const rows = (await pool.query<ChunkRow>(
        `SELECT ${CHUNK_COLUMNS} FROM ${CHUNK_FROM}
         WHERE ($1::text IS NULL OR c.folder_id = $1) AND ($2::text IS NULL OR c.document_id = $2) AND ($3::text IS NULL OR d.relative_path = $3)
         ORDER BY c.folder_id COLLATE "C", d.relative_path COLLATE "C", c.ordinal`,
        [filter.folderId ?? null, filter.documentId ?? null, filter.relativePath ?? null],
      )).rows;
      return rows.map(toChunkRecord);
    },
    async getChunk(ref) {
      const row = (await pool.query<ChunkRow>(`SELECT ${CHUNK_COLUMNS} FROM ${CHUNK_FROM} WHERE c.ref = $1`, [ref])).rows[0];
      return row ? toChunkRecord(row) : null;
    },
    async getChunks(refs) {
      if (refs.length === 0) return [];
      const rows = (await pool.query<ChunkRow>(`SELECT ${CHUNK_COLUMNS} FROM ${CHUNK_FROM} WHERE c.ref = ANY($1::text[])`, [[...refs]])).rows;
      const byRef = new Map(rows.map((row) => [row.ref, toChunkRecord(row)]));
      return refs.flatMap((ref) => {
        const chunk = byRef.get(ref);
        return chunk ? [chunk] : [];
      });
    },

    async setIncluded(refs, included) {
      return inTransaction(pool, async (client) => {
        const unique = [...new Set(refs)];
        const known = new Set((await client.query<{ ref: string; folder_id: string }>("SELECT ref, folder_id FROM chunks WHERE ref = ANY($1::text[])", [unique])).rows.map((row) => row.ref));
        const changed = (await client.query("UPDATE chunks SET included = $2 WHERE ref = ANY($1::text[]) AND included <> $2", [unique, included])).rowCount ?? 0;
        if (changed > 0) await options.changed(client, "review", null);
        return { changed, missingRefs: unique.filter((ref) => !known.has(ref)) };
      });
    },
    async listExcludedRefs(folderId) {
      const rows = (await pool.query<{ ref: string }>('SELECT ref FROM chunks WHERE NOT included AND ($1::text IS NULL OR folder_id = $1) ORDER BY ref COLLATE "C"', [folderId ?? null])).rows;
      return rows.map((row) => row.ref);
    },
  };
}

function checkRelativePath(relativePath: string): void {
  if (relativePath === "" || relativePath.startsWith("/") || relativePath.includes("\\")) {
    throw new ChunkpadError("INVALID_ARGUMENT", `"${relativePath}" is not a relative source path: use the path inside the folder, with forward slashes (for example "notes/report.pdf").`);
  }
}
