import type pg from "pg";
import { sha256Hex } from "../../core/chunk-ref.js";
import { ChunkpadError } from "../../core/errors.js";
import type { FolderSettings, FolderStats, FolderSummary, MainStore, StoredFolder } from "../contract.js";
import { inTransaction, type Queryable } from "./connection.js";
import { unindexChunks } from "./keyword-index.js";
import { toFolder, toSource, type FolderRow as SharedFolderRow, type SourceRow } from "../rows.js";

/** Folders, sources and meta values on PostgreSQL (the same ids as the SQLite store, so a migrated store keeps its refs). */

const FOLDER_ID_LENGTH_CHARS = 8;

/** jsonb settings, a boolean review default. */
interface FolderRow extends SharedFolderRow<boolean> {
  settings: FolderSettings | null;
}

const SUMMARY_SQL = `
  SELECT f.*,
    (SELECT COUNT(*) FROM documents d WHERE d.folder_id = f.id) AS document_count,
    (SELECT COUNT(*) FROM chunks c WHERE c.folder_id = f.id) AS stored_chunk_count,
    (SELECT COUNT(*) FROM chunks c WHERE c.folder_id = f.id AND c.included) AS included_chunk_count,
    (SELECT COUNT(*) FROM chunks c JOIN vectors v ON v.chunk_id = c.id WHERE c.folder_id = f.id AND v.embed_hash = c.embed_hash) AS embedded_chunk_count,
    (SELECT COUNT(*) FROM chunks c JOIN vectors v ON v.chunk_id = c.id WHERE c.folder_id = f.id AND v.embed_hash <> c.embed_hash) AS modified_chunk_count,
    (SELECT COUNT(*) FROM sources s WHERE s.folder_id = f.id AND s.status = 'failed') AS failed_count
  FROM folders f
  ORDER BY f.root_path COLLATE "C"`;

export type FolderMethods = Pick<
  MainStore,
  | "upsertFolder" | "getFolder" | "getFolderByPath" | "listFolders" | "listFolderPlaces" | "updateFolderStats" | "getFolderSettings" | "setFolderSettings" | "setNewChunksIncluded" | "removeFolder"
  | "listSources" | "getSource" | "upsertSource" | "deleteSource" | "getMeta" | "setMeta" | "deleteMeta"
>;

export function createFolderMethods(pool: pg.Pool, options: { now: () => Date; changed: (client: Queryable, kind: string, folderId: string | null) => Promise<void> }): FolderMethods {
  const one = async (sql: string, values: unknown[]): Promise<StoredFolder | null> => {
    const row = (await pool.query<FolderRow>(sql, values)).rows[0];
    return row ? toFolderWithSettings(row) : null;
  };

  return {
    async upsertFolder(rootPath, chunksRootPath) {
      return inTransaction(pool, async (client) => {
        const existing = (await client.query<FolderRow>("SELECT * FROM folders WHERE root_path = $1 FOR UPDATE", [rootPath])).rows[0];
        if (existing) {
          if (existing.chunks_root_path !== chunksRootPath) await client.query("UPDATE folders SET chunks_root_path = $1 WHERE id = $2", [chunksRootPath, existing.id]);
          return toFolderWithSettings({ ...existing, chunks_root_path: chunksRootPath });
        }
        // Derived from the path, so a folder removed and added again gets its old refs back.
        const hash = sha256Hex(rootPath);
        let id = hash;
        for (let length = FOLDER_ID_LENGTH_CHARS; length < hash.length; length += 4) {
          const taken = (await client.query("SELECT 1 FROM folders WHERE id = $1", [hash.slice(0, length)])).rowCount ?? 0;
          if (taken === 0) {
            id = hash.slice(0, length);
            break;
          }
        }
        const inserted = await client.query<FolderRow>(
          "INSERT INTO folders (id, root_path, chunks_root_path, created_at) VALUES ($1, $2, $3, $4) ON CONFLICT (root_path) DO UPDATE SET chunks_root_path = excluded.chunks_root_path RETURNING *",
          [id, rootPath, chunksRootPath, options.now().toISOString()],
        );
        await options.changed(client, "folder", id);
        return toFolderWithSettings(inserted.rows[0] as FolderRow);
      });
    },
    getFolder: (id) => one("SELECT * FROM folders WHERE id = $1", [id]),
    getFolderByPath: (rootPath) => one("SELECT * FROM folders WHERE root_path = $1", [rootPath]),
    async listFolders() {
      const rows = (await pool.query<FolderRow & Record<string, number>>(SUMMARY_SQL)).rows;
      return rows.map((row): FolderSummary => ({
        ...toFolderWithSettings(row),
        documentCount: Number(row.document_count),
        storedChunkCount: Number(row.stored_chunk_count),
        includedChunkCount: Number(row.included_chunk_count),
        embeddedChunkCount: Number(row.embedded_chunk_count),
        modifiedChunkCount: Number(row.modified_chunk_count),
        failedCount: Number(row.failed_count),
      }));
    },
    async listFolderPlaces() {
      return (await pool.query<FolderRow>('SELECT * FROM folders ORDER BY root_path COLLATE "C"')).rows.map(toFolderWithSettings);
    },
    async updateFolderStats(id, stats: FolderStats) {
      const result = await pool.query(
        `UPDATE folders SET
           last_processed_at = CASE WHEN $2 THEN $3 ELSE last_processed_at END,
           file_count = COALESCE($4, file_count), chunk_count = COALESCE($5, chunk_count)
         WHERE id = $1`,
        [id, stats.lastProcessedAt !== undefined, stats.lastProcessedAt ?? null, stats.fileCount ?? null, stats.chunkCount ?? null],
      );
      return (result.rowCount ?? 0) > 0;
    },
    async getFolderSettings(id) {
      return (await one("SELECT * FROM folders WHERE id = $1", [id]))?.settings ?? null;
    },
    async setFolderSettings(id, settings) {
      const result = await pool.query("UPDATE folders SET settings = $2 WHERE id = $1", [id, settings === null ? null : JSON.stringify(settings)]);
      return (result.rowCount ?? 0) > 0;
    },
    async setNewChunksIncluded(id, included) {
      return ((await pool.query("UPDATE folders SET new_chunks_included = $2 WHERE id = $1", [id, included])).rowCount ?? 0) > 0;
    },
    async removeFolder(id) {
      return inTransaction(pool, async (client) => {
        const ids = (await client.query<{ id: number }>("SELECT id FROM chunks WHERE folder_id = $1", [id])).rows.map((row) => row.id);
        await unindexChunks(client, ids);
        // Sources, documents, chunks, their words and vectors go with the folder (ON DELETE CASCADE).
        const removed = ((await client.query("DELETE FROM folders WHERE id = $1", [id])).rowCount ?? 0) > 0;
        if (removed) await options.changed(client, "folder-removed", id);
        return removed;
      });
    },

    async listSources(folderId) {
      return (await pool.query<SourceRow>('SELECT * FROM sources WHERE folder_id = $1 ORDER BY relative_path COLLATE "C"', [folderId])).rows.map(toSource);
    },
    async getSource(folderId, relativePath) {
      const row = (await pool.query<SourceRow>("SELECT * FROM sources WHERE folder_id = $1 AND relative_path = $2", [folderId, relativePath])).rows[0];
      return row ? toSource(row) : null;
    },
    async upsertSource(source) {
      const exists = (await pool.query("SELECT 1 FROM folders WHERE id = $1", [source.folderId])).rowCount ?? 0;
      if (exists === 0) throw folderNotIndexed(source.folderId);
      await pool.query(
        `INSERT INTO sources (folder_id, relative_path, size, mtime_ms, source_hash, chunk_file_hash, synced_chunk_file_hash, status, error_code, error_message, processed_at)
         VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11)
         ON CONFLICT (folder_id, relative_path) DO UPDATE SET size = excluded.size, mtime_ms = excluded.mtime_ms, source_hash = excluded.source_hash,
           chunk_file_hash = excluded.chunk_file_hash, synced_chunk_file_hash = excluded.synced_chunk_file_hash, status = excluded.status,
           error_code = excluded.error_code, error_message = excluded.error_message, processed_at = excluded.processed_at`,
        [source.folderId, source.relativePath, source.size, source.mtimeMs, source.sourceHash, source.chunkFileHash, source.syncedChunkFileHash, source.status, source.errorCode, source.errorMessage, source.processedAt],
      );
    },
    async deleteSource(folderId, relativePath) {
      return ((await pool.query("DELETE FROM sources WHERE folder_id = $1 AND relative_path = $2", [folderId, relativePath])).rowCount ?? 0) > 0;
    },

    async getMeta(key) {
      return (await pool.query<{ value: string }>("SELECT value FROM meta WHERE key = $1", [key])).rows[0]?.value ?? null;
    },
    async setMeta(key, value) {
      await pool.query("INSERT INTO meta (key, value) VALUES ($1, $2) ON CONFLICT (key) DO UPDATE SET value = excluded.value", [key, value]);
    },
    async deleteMeta(key) {
      return ((await pool.query("DELETE FROM meta WHERE key = $1", [key])).rowCount ?? 0) > 0;
    },
  };
}

const toFolderWithSettings = (row: FolderRow): StoredFolder => toFolder(row, row.settings);

export function folderNotIndexed(folderId: string): ChunkpadError {
  return new ChunkpadError("FOLDER_NOT_INDEXED", `No indexed folder has the id ${folderId}.`, { details: { folderId }, nextSteps: [{ action: "add-folder" }] });
}
