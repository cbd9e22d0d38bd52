import type { SqliteDatabase } from "./database.js";
import { checkpointDeletedContent, DEFAULT_BUSY_TIMEOUT_MS, openDatabase, toChunkpadError, withDatabaseErrors, writeTransaction } from "./database.js";
import { enableFtsSecureDelete, optimizeFtsIndex, withoutFtsSecureDelete } from "./secure-delete.js";
import type { MigrationResult } from "./migrations.js";
import { MAIN_MIGRATIONS, runMigrations } from "./migrations.js";
import type { VectorExtensionLoader } from "./vector-extension.js";
import { loadVectorSupport } from "./vector-extension.js";
import type { ChunkStore } from "./chunks.js";
import { createChunkStore } from "./chunks.js";
import type { DocumentStore } from "./documents.js";
import { createDocumentStore } from "./documents.js";
import type { FolderStore } from "./folders.js";
import { createFolderStore } from "./folders.js";
import type { IntegrityStore } from "./integrity.js";
import { createIntegrityStore } from "./integrity.js";
import type { KeywordStore } from "./keyword.js";
import { createKeywordStore } from "./keyword.js";
import type { MetaStore } from "./meta.js";
import { createMetaStore } from "./meta.js";
import type { ReviewStore } from "./reviews.js";
import { createReviewStore } from "./reviews.js";
import type { SourceStore } from "./sources.js";
import { createSourceStore } from "./sources.js";
import type { VectorStore } from "./vectors.js";
import { createVectorStore } from "./vectors.js";
import { createAnnIndex, type AnnIndex } from "./ann.js";
import { createCommitGrouping, type CommitGrouping } from "./commit-group.js";

export interface OpenSqliteMainStoreOptions {
  /** Path of chunkpad.db (or ":memory:"); parent folders are created. */
  path: string;
  /** Set false to open without sqlite-vec (keyword features only). */
  loadVectorExtension?: boolean;
  /** Replaces sqlite-vec's loader (tests use it to simulate a failed load). */
  vectorLoader?: VectorExtensionLoader;
  busyTimeoutMs?: number;
  /** Clock for timestamps. */
  now?: () => Date;
  /** Vectors from which vector search uses the approximate index (default 10,000; below it brute force is fast). */
  annThreshold?: number;
  /**
   * Keep the keyword index in memory (keyword-index.ts, decision 031): for a process that searches
   * many times (the server, the MCP server). A search reads the words it needs from FTS5's index;
   * the rest is read in the background; all of it is kept current from then on. Default false:
   * FTS5 alone.
   */
  keywordIndexInMemory?: boolean;
  /** With the index in memory: read all of it in the background from the start (default true), or only the words searched. */
  keywordIndexWarmup?: boolean;
}

/** Below this many vectors exact search takes about 10 ms on a laptop core: no index needed. */
export const DEFAULT_ANN_THRESHOLD = 10_000;

/** The main database: folders, sources, documents, chunks, keyword index, review state, vectors. */
export interface SqliteMainStore
  extends FolderStore, SourceStore, DocumentStore, ChunkStore, ReviewStore, KeywordStore, Omit<VectorStore, "removeVectorRows" | "renameVectorRows">, MetaStore, IntegrityStore {
  readonly path: string;
  /** Migrations applied when this store was opened. */
  readonly migration: MigrationResult;
  /** The approximate vector index: vectors loaded in this process (0: none loaded), and why it cannot be used at all. */
  vectorIndexInfo(): { loaded: number; threshold: number; unavailableReason: string | null; builds: number };
  close(): void;
  /** Adds the vectors written so far to the approximate index (ann.ts catchUp); null when none is kept. */
  updateVectorIndex(): { vectors: number; added: number } | null;
  /** Grouped commits (commit-group.ts): `start` from the contract, `beforeWrite` before each grouped write. */
  commitGrouping: CommitGrouping;
}

export function openSqliteMainStore({
  path,
  loadVectorExtension = true,
  vectorLoader,
  busyTimeoutMs = DEFAULT_BUSY_TIMEOUT_MS,
  now = () => new Date(),
  annThreshold = DEFAULT_ANN_THRESHOLD,
  keywordIndexInMemory = false,
  keywordIndexWarmup = true,
}: OpenSqliteMainStoreOptions): SqliteMainStore {
  const db = openDatabase({ path, busyTimeoutMs });
  try {
    const support = loadVectorSupport(db, loadVectorExtension, vectorLoader);
    const migration = runMigrations(db, MAIN_MIGRATIONS, "main");
    enableFtsSecureDelete(db, FTS_TABLE);
    const ann = support.available ? createAnnIndex({ db, databasePath: path === ":memory:" ? null : path, threshold: annThreshold }) : null;
    const keyword = createKeywordStore(db, { memoryIndex: keywordIndexInMemory, warmInBackground: keywordIndexWarmup });
    return composeMainStore(db, { path, migration, now, ann, keyword, vectors: createVectorStore(db, support, now, ann) });
  } catch (error) {
    db.close();
    throw toChunkpadError(error, path);
  }
}

const FTS_TABLE = "chunks_fts";

function composeMainStore(
  db: SqliteDatabase,
  { path, migration, now, vectors, ann, keyword }: { path: string; migration: MigrationResult; now: () => Date; vectors: VectorStore; ann: AnnIndex | null; keyword: KeywordStore },
): SqliteMainStore {
  const { removeVectorRows, renameVectorRows, ...vectorApi } = vectors;
  const dependencies = { db, now, removeVectorRows, renameVectorRows };
  const folders = createFolderStore(dependencies);
  const documents = createDocumentStore(dependencies);
  // Documents deleted since the last purge: their words leave the keyword index at close.
  let purgePending = false;
  const purge = () => {
    if (!db.open) return;
    writeTransaction(db, () => optimizeFtsIndex(db, FTS_TABLE));
    checkpointDeletedContent(db);
    purgePending = false;
  };
  const api: SqliteMainStore = {
    ...folders,
    ...createSourceStore(db),
    ...documents,
    ...createChunkStore(db),
    ...createReviewStore(db, now),
    ...keyword,
    ...vectorApi,
    ...createMetaStore(db),
    ...createIntegrityStore(db),
    // Bulk deletes purge the keyword index and the WAL once (see secure-delete.ts): a removed
    // folder at once, deleted sources when the store closes (the end of a process run).
    removeFolder(id) {
      const removed = withoutFtsSecureDelete(db, FTS_TABLE, () => folders.removeFolder(id));
      if (removed) purge();
      // The index file held the folder's vectors: it goes, and the next search rebuilds it from what is left.
      if (removed) ann?.discard();
      return removed;
    },
    deleteDocument(folderId, relativePath) {
      const deleted = withoutFtsSecureDelete(db, FTS_TABLE, () => documents.deleteDocument(folderId, relativePath));
      if (deleted) purgePending = true;
      return deleted;
    },
    path,
    migration,
    commitGrouping: createCommitGrouping(db),
    updateVectorIndex: () => ann?.catchUp() ?? null,
    vectorIndexInfo: () => ({ loaded: ann?.loadedSize() ?? 0, threshold: ann?.threshold ?? Infinity, unavailableReason: ann?.unavailableReason ?? null, builds: ann?.builds() ?? 0 }),
    close() {
      // A group left open by a run that stopped commits what it holds: those writes were complete.
      if (db.open && db.inTransaction) db.exec("COMMIT");
      if (purgePending) purge();
      ann?.persist();
      ann?.release();
      keyword.closeKeywordIndex();
      if (db.open) db.close();
    },
  };
  return withDatabaseErrors(api, path);
}
