import type { ChunkRecord, ChunkRef } from "../../core/types.js";
import type { SqliteDatabase } from "./database.js";
import type { ChunkRow } from "./chunk-rows.js";
import { CHUNK_COLUMNS, CHUNK_FROM, toChunkRecord } from "./chunk-rows.js";
import type { ChunkFilter } from "../contract.js";

export interface ChunkStore {
  /** Chunks in folder, path and chunk order, each with its review state. */
  listChunks(filter?: ChunkFilter): ChunkRecord[];
  getChunk(ref: ChunkRef): ChunkRecord | null;
  /** The chunks for these refs, in the order asked; unknown refs are left out. */
  getChunks(refs: readonly ChunkRef[]): ChunkRecord[];
}

export function createChunkStore(db: SqliteDatabase): ChunkStore {
  const byRef = db.prepare<[string], ChunkRow>(`SELECT ${CHUNK_COLUMNS} FROM ${CHUNK_FROM} WHERE c.ref = ?`);
  const byRefs = db.prepare<[string], ChunkRow>(
    `SELECT ${CHUNK_COLUMNS} FROM ${CHUNK_FROM} WHERE c.ref IN (SELECT value FROM json_each(?))`,
  );

  return {
    listChunks(filter = {}) {
      const conditions: string[] = [];
      const parameters: string[] = [];
      if (filter.folderId !== undefined) {
        conditions.push("c.folder_id = ?");
        parameters.push(filter.folderId);
      }
      if (filter.documentId !== undefined) {
        conditions.push("c.document_id = ?");
        parameters.push(filter.documentId);
      }
      if (filter.relativePath !== undefined) {
        conditions.push("d.relative_path = ?");
        parameters.push(filter.relativePath);
      }
      const where = conditions.length === 0 ? "" : `WHERE ${conditions.join(" AND ")}`;
      return db
        .prepare<string[], ChunkRow>(`SELECT ${CHUNK_COLUMNS} FROM ${CHUNK_FROM} ${where} ORDER BY c.folder_id, d.relative_path, c.ordinal`)
        .all(...parameters)
        .map(toChunkRecord);
    },

    getChunk(ref) {
      const row = byRef.get(ref);
      return row ? toChunkRecord(row) : null;
    },

    getChunks(refs) {
      if (refs.length === 0) return [];
      const found = new Map(byRefs.all(JSON.stringify(refs)).map((row) => [row.ref, toChunkRecord(row)]));
      return refs.flatMap((ref) => {
        const chunk = found.get(ref);
        return chunk ? [chunk] : [];
      });
    },
  };
}
