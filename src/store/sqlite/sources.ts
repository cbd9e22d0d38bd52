import { ChunkpadError } from "../../core/errors.js";
import type { SqliteDatabase } from "./database.js";
import type { SourceRecord } from "../contract.js";
import { toSource, type SourceRow } from "../rows.js";

export interface SourceStore {
  listSources(folderId: string): SourceRecord[];
  getSource(folderId: string, relativePath: string): SourceRecord | null;
  upsertSource(source: SourceRecord): void;
  deleteSource(folderId: string, relativePath: string): boolean;
}

export function createSourceStore(db: SqliteDatabase): SourceStore {
  const list = db.prepare<[string], SourceRow>("SELECT * FROM sources WHERE folder_id = ? ORDER BY relative_path");
  const get = db.prepare<[string, string], SourceRow>("SELECT * FROM sources WHERE folder_id = ? AND relative_path = ?");
  const upsert = db.prepare(`
    INSERT INTO sources (folder_id, relative_path, size, mtime_ms, source_hash, chunk_file_hash, synced_chunk_file_hash, chunk_file_stat, status, error_code, error_message, processed_at)
    VALUES (@folder_id, @relative_path, @size, @mtime_ms, @source_hash, @chunk_file_hash, @synced_chunk_file_hash, @chunk_file_stat, @status, @error_code, @error_message, @processed_at)
    ON CONFLICT (folder_id, relative_path) DO UPDATE SET
      size = excluded.size, mtime_ms = excluded.mtime_ms, source_hash = excluded.source_hash,
      chunk_file_hash = excluded.chunk_file_hash, synced_chunk_file_hash = excluded.synced_chunk_file_hash, chunk_file_stat = excluded.chunk_file_stat, status = excluded.status, error_code = excluded.error_code,
      error_message = excluded.error_message, processed_at = excluded.processed_at`);
  const folderExists = db.prepare<[string], number>("SELECT 1 FROM indexed_folders WHERE id = ?").pluck();
  const remove = db.prepare("DELETE FROM sources WHERE folder_id = ? AND relative_path = ?");

  return {
    listSources(folderId) {
      return list.all(folderId).map(toSource);
    },
    getSource(folderId, relativePath) {
      const row = get.get(folderId, relativePath);
      return row ? toSource(row) : null;
    },
    upsertSource(source) {
      if (folderExists.get(source.folderId) === undefined) throw folderNotIndexed(source.folderId);
      upsert.run({
        folder_id: source.folderId,
        relative_path: source.relativePath,
        size: source.size,
        mtime_ms: source.mtimeMs,
        source_hash: source.sourceHash,
        chunk_file_hash: source.chunkFileHash,
        synced_chunk_file_hash: source.syncedChunkFileHash,
        chunk_file_stat: source.chunkFileStat ?? null,
        status: source.status,
        error_code: source.errorCode,
        error_message: source.errorMessage,
        processed_at: source.processedAt,
      });
    },
    deleteSource(folderId, relativePath) {
      return remove.run(folderId, relativePath).changes > 0;
    },
  };
}

export function folderNotIndexed(folderId: string): ChunkpadError {
  return new ChunkpadError("FOLDER_NOT_INDEXED", `No indexed folder has the id ${folderId}.`, {
    details: { folderId },
    nextSteps: [{ action: "add-folder" }],
  });
}
