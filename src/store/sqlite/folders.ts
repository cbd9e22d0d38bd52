import type { SqliteDatabase } from "./database.js";
import { writeTransaction } from "./database.js";
import { createVersionedCache, createWriteVersion } from "./write-version.js";
import { sha256Hex } from "../../core/chunk-ref.js";
import type { FolderSettings, FolderStats, FolderSummary, StoredFolder } from "../contract.js";
import { toFolder, type FolderRow as SharedFolderRow } from "../rows.js";

/** Hex characters of the root path's hash used as a folder id: short enough to read in a ref. */
const FOLDER_ID_LENGTH_CHARS = 8;

/** Settings as JSON text, the review default as 0/1. */
interface FolderRow extends SharedFolderRow<number> {
  settings_json: string | null;
}

interface FolderSummaryRow extends FolderRow {
  document_count: number;
  stored_chunk_count: number;
  included_chunk_count: number;
  embedded_chunk_count: number;
  modified_chunk_count: number;
  failed_count: number;
}

export interface FolderDependencies {
  db: SqliteDatabase;
  now: () => Date;
  /** Deletes vectors for these refs when the vector table is there (a no-op otherwise). */
  removeVectorRows: (refs: readonly string[]) => void;
}

export interface FolderStore {
  /** Adds the folder, or returns it (updating chunksRootPath) when its root is known. */
  upsertFolder(rootPath: string, chunksRootPath: string): StoredFolder;
  getFolder(id: string): StoredFolder | null;
  getFolderByPath(rootPath: string): StoredFolder | null;
  listFolders(): FolderSummary[];
  listFolderPlaces(): StoredFolder[];
  updateFolderStats(id: string, stats: FolderStats): boolean;
  /** Per-folder chunking overrides, or null when the folder uses the config file's. */
  getFolderSettings(id: string): FolderSettings | null;
  setFolderSettings(id: string, settings: FolderSettings | null): boolean;
  /** Whether new text in this folder starts included (the default) or excluded. False when absent. */
  setNewChunksIncluded(id: string, included: boolean): boolean;
  /** Removes the folder with its sources, documents, chunks, review state and vectors. */
  removeFolder(id: string): boolean;
}

const SUMMARY_SQL = `
  SELECT f.*,
    (SELECT COUNT(*) FROM documents d WHERE d.folder_id = f.id) AS document_count,
    (SELECT COUNT(*) FROM chunks c WHERE c.folder_id = f.id) AS stored_chunk_count,
    (SELECT COUNT(*) FROM chunks c LEFT JOIN chunk_reviews r ON r.ref = c.ref
      WHERE c.folder_id = f.id AND COALESCE(r.included, 1) = 1) AS included_chunk_count,
    (SELECT COUNT(*) FROM chunks c JOIN embedded_chunk_refs e ON e.chunk_ref = c.ref
      WHERE c.folder_id = f.id AND e.content_hash = c.embed_hash) AS embedded_chunk_count,
    (SELECT COUNT(*) FROM chunks c JOIN embedded_chunk_refs e ON e.chunk_ref = c.ref
      WHERE c.folder_id = f.id AND e.content_hash <> c.embed_hash) AS modified_chunk_count,
    (SELECT COUNT(*) FROM sources s WHERE s.folder_id = f.id AND s.status = 'failed') AS failed_count
  FROM indexed_folders f
  ORDER BY f.root_path`;

export function createFolderStore({ db, now, removeVectorRows }: FolderDependencies): FolderStore {
  const byId = db.prepare<[string], FolderRow>("SELECT * FROM indexed_folders WHERE id = ?");
  const byPath = db.prepare<[string], FolderRow>("SELECT * FROM indexed_folders WHERE root_path = ?");
  const insert = db.prepare(
    "INSERT INTO indexed_folders (id, root_path, chunks_root_path, created_at) VALUES (?, ?, ?, ?)",
  );
  const setChunksRoot = db.prepare("UPDATE indexed_folders SET chunks_root_path = ? WHERE id = ?");
  const folderRefs = db.prepare<[string], string>("SELECT ref FROM chunks WHERE folder_id = ?").pluck();
  const deleteReviews = db.prepare<[string, string]>("DELETE FROM chunk_reviews WHERE substr(ref, 1, length(?) + 1) = ? || ':'");
  const deleteFolder = db.prepare("DELETE FROM indexed_folders WHERE id = ?");
  const summary = db.prepare<[], FolderSummaryRow>(SUMMARY_SQL);
  const places = db.prepare<[], FolderRow>("SELECT * FROM indexed_folders ORDER BY root_path");
  const summaries = createVersionedCache<FolderSummary[]>(createWriteVersion(db), 1);

  function newFolderId(rootPath: string): string {
    // Derived from the path, so a folder removed and added again gets its old refs back.
    const hash = sha256Hex(rootPath);
    for (let length = FOLDER_ID_LENGTH_CHARS; length < hash.length; length += 4) {
      const candidate = hash.slice(0, length);
      if (!byId.get(candidate)) return candidate;
    }
    return hash;
  }

  return {
    upsertFolder(rootPath, chunksRootPath) {
      return writeTransaction(db, () => {
        const existing = byPath.get(rootPath);
        if (existing) {
          if (existing.chunks_root_path !== chunksRootPath) setChunksRoot.run(chunksRootPath, existing.id);
          return toFolderWithSettings({ ...existing, chunks_root_path: chunksRootPath });
        }
        const id = newFolderId(rootPath);
        insert.run(id, rootPath, chunksRootPath, now().toISOString());
        return toFolderWithSettings(byId.get(id) as FolderRow);
      });
    },

    getFolder(id) {
      const row = byId.get(id);
      return row ? toFolderWithSettings(row) : null;
    },

    getFolderByPath(rootPath) {
      const row = byPath.get(rootPath);
      return row ? toFolderWithSettings(row) : null;
    },

    listFolders() {
      // Kept until the next write: the counts read every chunk (150–450 ms at 100k chunks), and a
      // server's status (the web app, `chunkpad status`) asks for them while users search (issue 22).
      // Each caller gets its own copy, so none can change what the next one reads.
      return structuredClone(summaries.get("all", () => summary.all().map((row) => ({
        ...toFolderWithSettings(row),
        documentCount: row.document_count,
        storedChunkCount: row.stored_chunk_count,
        includedChunkCount: row.included_chunk_count,
        embeddedChunkCount: row.embedded_chunk_count,
        modifiedChunkCount: row.modified_chunk_count,
        failedCount: row.failed_count,
      }))));
    },

    listFolderPlaces() {
      return places.all().map(toFolderWithSettings);
    },

    updateFolderStats(id, stats) {
      const assignments: string[] = [];
      const values: (string | number | null)[] = [];
      if (stats.lastProcessedAt !== undefined) {
        assignments.push("last_processed_at = ?");
        values.push(stats.lastProcessedAt);
      }
      if (stats.fileCount !== undefined) {
        assignments.push("file_count = ?");
        values.push(stats.fileCount);
      }
      if (stats.chunkCount !== undefined) {
        assignments.push("chunk_count = ?");
        values.push(stats.chunkCount);
      }
      if (assignments.length === 0) return byId.get(id) !== undefined;
      const result = db.prepare(`UPDATE indexed_folders SET ${assignments.join(", ")} WHERE id = ?`).run(...values, id);
      return result.changes > 0;
    },

    getFolderSettings(id) {
      const row = byId.get(id);
      return row ? parseSettings(row.settings_json) : null;
    },

    setFolderSettings(id, settings) {
      const json = settings === null ? null : JSON.stringify(settings);
      return db.prepare("UPDATE indexed_folders SET settings_json = ? WHERE id = ?").run(json, id).changes > 0;
    },

    setNewChunksIncluded(id, included) {
      return db.prepare("UPDATE indexed_folders SET new_chunks_included = ? WHERE id = ?").run(included ? 1 : 0, id).changes > 0;
    },

    removeFolder(id) {
      return writeTransaction(db, () => {
        if (!byId.get(id)) return false;
        removeVectorRows(folderRefs.all(id));
        deleteReviews.run(id, id);
        // Cascades: sources, documents -> chunks (FTS delete trigger) -> embedded_chunk_refs.
        deleteFolder.run(id);
        return true;
      });
    },
  };
}

function toFolderWithSettings(row: FolderRow): StoredFolder {
  return toFolder(row, parseSettings(row.settings_json));
}

function parseSettings(json: string | null): FolderSettings | null {
  if (json === null) return null;
  try {
    const value: unknown = JSON.parse(json);
    if (value === null || typeof value !== "object" || Array.isArray(value)) return null;
    const settings: FolderSettings = {};
    const record = value as Record<string, unknown>;
    if (typeof record.chunkSizeTokens === "number") settings.chunkSizeTokens = record.chunkSizeTokens;
    if (typeof record.chunkOverlapTokens === "number") settings.chunkOverlapTokens = record.chunkOverlapTokens;
    return settings;
  } catch {
    // A hand-edited, unreadable value falls back to the config file's settings.
    return null;
  }
}
