import * as path from "node:path";
import { ChunkpadError } from "../../core/errors.js";
import type { DocumentRecord } from "../../core/types.js";
import type { SqliteDatabase } from "./database.js";
import { writeTransaction } from "./database.js";
import { CHUNK_META_COLUMN_NAMES, metaColumns, type ChunkMetaColumns } from "./chunk-rows.js";
import { chunkRef, embedTextHash, sha256Hex } from "../../core/chunk-ref.js";
import { carryReviewDecisions } from "../review-carry.js";
import { folderNotIndexed } from "./sources.js";
import type { SyncDocumentInput, SyncDocumentResult } from "../contract.js";
import { toDocument, type DocumentRow as SharedDocumentRow } from "../rows.js";

/** Hex characters of the document id (a hash of folder id and relative path). */
const DOCUMENT_ID_LENGTH_CHARS = 16;

interface DocumentRow extends SharedDocumentRow {
  file_name: string;
}

interface StoredChunkRow extends ChunkMetaColumns {
  id: number;
  ref: string;
  ordinal: number;
  title: string;
  content: string;
  content_hash: string;
  /** The review decision's included flag; null when the chunk has no review row. */
  review: number | null;
  review_hash: string | null;
}

export interface DocumentDependencies {
  db: SqliteDatabase;
  now: () => Date;
  removeVectorRows: (refs: readonly string[]) => void;
  /** Moves vectors to new refs (and document id); vectors it cannot move lose their embed record. */
  renameVectorRows: (renames: readonly { from: string; to: string }[], documentId: string) => void;
}

export interface DocumentStore {
  /**
   * Makes the stored chunks of one document equal to `chunks`, in one transaction. Chunk n keeps
   * its row (and its FTS rowid) when it exists; only changed rows are rewritten; chunks past the
   * new count are deleted with their vectors. Review decisions follow the text, not the place:
   * they are carried to the new chunks by carryReviewDecisions (same text, then overlap; text
   * derived from excluded text stays excluded; new text gets the folder's default), and the
   * decisions of text that is gone are removed.
   */
  syncDocument(input: SyncDocumentInput): SyncDocumentResult;
  /** Deletes the document, its chunks, their vectors and review state. False when absent. */
  deleteDocument(folderId: string, relativePath: string): boolean;
  /**
   * Gives a document a new path in its folder, in one transaction: its id, chunk refs, review
   * decisions, vectors and source record follow; text, titles and embed records stay. False when
   * there is no document at `from`; INVALID_ARGUMENT when `to` is taken.
   */
  renameDocument(folderId: string, from: string, to: string): boolean;
  getDocument(id: string): DocumentRecord | null;
  getDocumentByPath(folderId: string, relativePath: string): DocumentRecord | null;
  listDocuments(folderId?: string): DocumentRecord[];
  /**
   * Documents a user means by `query`, for filters and pins: an exact id, else an exact relative
   * path, else an exact file name (any case), else paths or titles containing it (any case).
   */
  findDocuments(query: string, options?: { folderId?: string }): DocumentRecord[];
}

export function createDocumentStore({ db, now, removeVectorRows, renameVectorRows }: DocumentDependencies): DocumentStore {
  const folderExists = db.prepare<[string], number>("SELECT 1 FROM indexed_folders WHERE id = ?").pluck();
  const byPath = db.prepare<[string, string], DocumentRow>("SELECT * FROM documents WHERE folder_id = ? AND relative_path = ?");
  const byId = db.prepare<[string], DocumentRow>("SELECT * FROM documents WHERE id = ?");
  const upsertDocument = db.prepare(`
    INSERT INTO documents (id, folder_id, relative_path, file_name, title, document_type, file_size, page_count, chunk_count, indexed_at)
    VALUES (@id, @folder_id, @relative_path, @file_name, @title, @document_type, @file_size, @page_count, @chunk_count, @indexed_at)
    ON CONFLICT (id) DO UPDATE SET
      file_name = excluded.file_name, title = excluded.title, document_type = excluded.document_type,
      file_size = excluded.file_size, page_count = excluded.page_count, chunk_count = excluded.chunk_count,
      indexed_at = excluded.indexed_at`);
  const storedChunks = db.prepare<[string], StoredChunkRow>(
    `SELECT c.id AS id, c.ref AS ref, c.ordinal AS ordinal, c.title AS title, c.content AS content, c.content_hash AS content_hash,
       c.page AS page, c.page_end AS page_end, c.slide AS slide, c.sheet AS sheet, c.char_start AS char_start, c.char_end AS char_end,
       c.section AS section, r.included AS review, r.content_hash AS review_hash
     FROM chunks c LEFT JOIN chunk_reviews r ON r.ref = c.ref WHERE c.document_id = ? ORDER BY c.ordinal`,
  );
  const newChunksIncluded = db.prepare<[string], number>("SELECT new_chunks_included FROM indexed_folders WHERE id = ?").pluck();
  const recordReview = db.prepare(`
    INSERT INTO chunk_reviews (ref, included, content_hash, updated_at) VALUES (?, 0, ?, ?)
    ON CONFLICT (ref) DO UPDATE SET included = 0, content_hash = excluded.content_hash, updated_at = excluded.updated_at`);
  const insertChunk = db.prepare(`
    INSERT INTO chunks (ref, document_id, folder_id, ordinal, title, content, content_hash, embed_hash, page, page_end, slide, sheet, char_start, char_end, section, updated_at)
    VALUES (@ref, @document_id, @folder_id, @ordinal, @title, @content, @content_hash, @embed_hash, @page, @page_end, @slide, @sheet, @char_start, @char_end, @section, @updated_at)`);
  const updateChunk = db.prepare(`
    UPDATE chunks SET title = @title, content = @content, content_hash = @content_hash, embed_hash = @embed_hash, page = @page, page_end = @page_end,
      slide = @slide, sheet = @sheet, char_start = @char_start, char_end = @char_end, section = @section, updated_at = @updated_at
    WHERE id = @id`);
  const deleteChunksAfter = db.prepare("DELETE FROM chunks WHERE document_id = ? AND ordinal > ?");
  const documentRefs = db.prepare<[string], string>("SELECT ref FROM chunks WHERE document_id = ?").pluck();
  const deleteReview = db.prepare("DELETE FROM chunk_reviews WHERE ref = ?");
  const deleteDocumentRow = db.prepare("DELETE FROM documents WHERE id = ?");
  const moveDocumentRow = db.prepare("UPDATE documents SET id = ?, relative_path = ?, file_name = ? WHERE id = ?");
  const documentChunks = db.prepare<[string], { id: number; ref: string; ordinal: number }>("SELECT id, ref, ordinal FROM chunks WHERE document_id = ?");
  const moveChunk = db.prepare("UPDATE chunks SET ref = ?, document_id = ? WHERE id = ?");
  const moveReview = db.prepare("UPDATE chunk_reviews SET ref = ? WHERE ref = ?");
  const moveEmbedRecord = db.prepare("UPDATE embedded_chunk_refs SET chunk_ref = ? WHERE chunk_ref = ?");
  const moveSource = db.prepare("UPDATE sources SET relative_path = ? WHERE folder_id = ? AND relative_path = ?");

  function syncDocument(input: SyncDocumentInput): SyncDocumentResult {
    checkRelativePath(input.relativePath);
    return writeTransaction(db, () => {
      if (folderExists.get(input.folderId) === undefined) throw folderNotIndexed(input.folderId);
      const timestamp = now().toISOString();
      const existing = byPath.get(input.folderId, input.relativePath);
      const documentId = existing?.id ?? documentIdFor(input.folderId, input.relativePath);
      upsertDocument.run({
        id: documentId,
        folder_id: input.folderId,
        relative_path: input.relativePath,
        file_name: path.posix.basename(input.relativePath),
        title: input.title,
        document_type: input.documentType,
        file_size: input.fileSize,
        page_count: input.pageCount,
        chunk_count: input.chunks.length,
        indexed_at: timestamp,
      });

      const storedRows = storedChunks.all(documentId);
      const stored = new Map(storedRows.map((row) => [row.ordinal, row]));
      const contentHashes = input.chunks.map((draft) => sha256Hex(draft.content));
      const decisions = carryReviewDecisions(
        storedRows.map((row) => ({ content: row.content, contentHash: row.content_hash, included: row.review !== 0 })),
        input.chunks.map((draft, index) => ({ content: draft.content, contentHash: contentHashes[index] as string })),
        newChunksIncluded.get(input.folderId) !== 0,
      );
      const result: SyncDocumentResult = { documentId, added: 0, updated: 0, removed: 0, unchanged: 0, changedRefs: [], removedRefs: [] };
      input.chunks.forEach((draft, index) => {
        const ordinal = index + 1;
        const ref = chunkRef(input.folderId, input.relativePath, ordinal);
        const meta = metaColumns(draft.meta);
        const contentHash = contentHashes[index] as string;
        const embedHash = embedTextHash({ title: input.title, section: meta.section, content: draft.content });
        const values = { title: input.title, content: draft.content, content_hash: contentHash, embed_hash: embedHash, ...meta, updated_at: timestamp };
        const old = stored.get(ordinal);
        if (!old) {
          insertChunk.run({ ...values, ref, document_id: documentId, folder_id: input.folderId, ordinal });
          result.added += 1;
          result.changedRefs.push(ref);
        } else if (old.title !== values.title || old.content_hash !== values.content_hash || CHUNK_META_COLUMN_NAMES.some((key) => old[key] !== values[key])) {
          updateChunk.run({ ...values, id: old.id });
          result.updated += 1;
          result.changedRefs.push(ref);
        } else {
          result.unchanged += 1;
        }
        const included = (decisions[index] as { included: boolean }).included;
        if (!included && !(old?.review === 0 && old.review_hash === contentHash)) recordReview.run(ref, contentHash, timestamp);
        if (included && old?.review === 0) deleteReview.run(ref);
      });
      for (const old of stored.values()) {
        if (old.ordinal > input.chunks.length) {
          result.removedRefs.push(old.ref);
          deleteReview.run(old.ref);
        }
      }
      if (result.removedRefs.length > 0) {
        removeVectorRows(result.removedRefs);
        deleteChunksAfter.run(documentId, input.chunks.length);
        result.removed = result.removedRefs.length;
      }
      return result;
    });
  }

  return {
    syncDocument,

    deleteDocument(folderId, relativePath) {
      return writeTransaction(db, () => {
        const existing = byPath.get(folderId, relativePath);
        if (!existing) return false;
        const refs = documentRefs.all(existing.id);
        removeVectorRows(refs);
        for (const ref of refs) deleteReview.run(ref);
        deleteDocumentRow.run(existing.id);
        return true;
      });
    },

    renameDocument(folderId, from, to) {
      checkRelativePath(to);
      return writeTransaction(db, () => {
        const existing = byPath.get(folderId, from);
        if (!existing) return false;
        if (from === to) return true;
        if (byPath.get(folderId, to)) {
          throw new ChunkpadError("INVALID_ARGUMENT", `Cannot rename "${from}" to "${to}": a document is already indexed at "${to}".`);
        }
        // The id is a hash of the path: a new file at the old path must not find this document.
        const documentId = documentIdFor(folderId, to);
        // Rows point at each other by id and ref; checked once at commit, when all have moved.
        db.pragma("defer_foreign_keys = ON");
        moveDocumentRow.run(documentId, to, path.posix.basename(to), existing.id);
        const renames = documentChunks.all(existing.id).map((chunk) => ({ id: chunk.id, from: chunk.ref, to: chunkRef(folderId, to, chunk.ordinal) }));
        for (const rename of renames) {
          moveChunk.run(rename.to, documentId, rename.id);
          moveReview.run(rename.to, rename.from);
          moveEmbedRecord.run(rename.to, rename.from);
        }
        renameVectorRows(renames, documentId);
        moveSource.run(to, folderId, from);
        return true;
      });
    },

    getDocument(id) {
      const row = byId.get(id);
      return row ? toDocument(row) : null;
    },

    getDocumentByPath(folderId, relativePath) {
      const row = byPath.get(folderId, relativePath);
      return row ? toDocument(row) : null;
    },

    listDocuments(folderId) {
      const rows = folderId === undefined
        ? db.prepare<[], DocumentRow>("SELECT * FROM documents ORDER BY folder_id, relative_path").all()
        : db.prepare<[string], DocumentRow>("SELECT * FROM documents WHERE folder_id = ? ORDER BY relative_path").all(folderId);
      return rows.map(toDocument);
    },

    findDocuments(query, options = {}) {
      const scope = options.folderId === undefined ? "" : " AND folder_id = @folderId";
      const parameters = { query, folderId: options.folderId ?? null, pattern: `%${escapeLike(query.toLowerCase())}%` };
      const tiers = [
        "id = @query",
        "relative_path = @query",
        "lower(file_name) = lower(@query)",
        "(lower(relative_path) LIKE @pattern ESCAPE '\\' OR lower(title) LIKE @pattern ESCAPE '\\')",
      ];
      if (query.trim() === "") return [];
      for (const condition of tiers) {
        const rows = db
          .prepare<[typeof parameters], DocumentRow>(`SELECT * FROM documents WHERE ${condition}${scope} ORDER BY folder_id, relative_path`)
          .all(parameters);
        if (rows.length > 0) return rows.map(toDocument);
      }
      return [];
    },
  };
}

export function documentIdFor(folderId: string, relativePath: string): string {
  return sha256Hex(`${folderId}\n${relativePath}`).slice(0, DOCUMENT_ID_LENGTH_CHARS);
}

function checkRelativePath(relativePath: string): void {
  if (relativePath === "" || relativePath.startsWith("/") || relativePath.includes("\\")) {
    throw new ChunkpadError(
      "INVALID_ARGUMENT",
      `"${relativePath}" is not a relative source path: use the path inside the folder, with forward slashes (for example "notes/report.pdf").`,
    );
  }
}

function escapeLike(text: string): string {
  return text.replace(/[\\%_]/g, (character) => `\\${character}`);
}

