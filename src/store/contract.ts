import type { KeywordQuery, TextConstraints } from "../core/keyword-query.js";
import type { ChunkDraft, ChunkRecord, ChunkRef, ChunkingOptions, DocumentRecord, IndexedFolder } from "../core/types.js";

/** Per-folder overrides of the chunking settings; absent keys fall back to the config file. */
export type FolderSettings = Partial<ChunkingOptions>;

export interface StoredFolder extends IndexedFolder {
  settings: FolderSettings | null;
  /** Review state given to text the folder has not had before (a decision follows its text). */
  newChunksIncluded: boolean;
}

/** A folder with live counts from the tables (not the stats recorded by the last run). */
export interface FolderSummary extends StoredFolder {
  documentCount: number;
  /** Chunks currently in the database (IndexedFolder.chunkCount is what the last run wrote). */
  storedChunkCount: number;
  includedChunkCount: number;
  /** Chunks whose vector was made from their current content. */
  embeddedChunkCount: number;
  /** Chunks with a vector made from older content (edited since embedding). */
  modifiedChunkCount: number;
  /** Sources whose last processing failed. */
  failedCount: number;
}

export interface FolderStats {
  lastProcessedAt?: string | null;
  fileCount?: number;
  chunkCount?: number;
}

export type SourceStatus = "processed" | "failed" | "skipped";

/** Writes grouped into fewer commits (MainStore.startCommitGroup). */
export interface CommitGroupOptions {
  /** A group's first write is committed at most this long after it was made. */
  maxDelayMs: number;
  /** Called after each commit: every write made before it is durable. */
  onCommit: () => void;
}

export interface CommitGroup {
  /** Commits what is pending and stops grouping. */
  end(): Promise<void>;
}

/** What the incremental run remembers about one source file. */
export interface SourceRecord {
  folderId: string;
  relativePath: string;
  size: number;
  mtimeMs: number;
  sourceHash: string | null;
  /** Hash of the chunk file as Chunkpad last wrote it (to tell a hand edit from its own output). */
  chunkFileHash: string | null;
  /** Hash of the chunk file text last taken into the database (a hand edit already synced). */
  syncedChunkFileHash: string | null;
  /**
   * The chunk file as last read or written, "size:mtimeMs:inode:hash" (hash of its text then), so a
   * run where nothing changed compares a stat instead of reading and hashing every chunk file.
   * Optional: a backend that does not keep it (or an older row) just means the file is read.
   */
  chunkFileStat?: string | null;
  status: SourceStatus;
  errorCode: string | null;
  errorMessage: string | null;
  processedAt: string;
}

export interface SyncDocumentInput {
  folderId: string;
  /** Source path relative to the folder root, with forward slashes. */
  relativePath: string;
  title: string;
  documentType: string;
  fileSize: number;
  pageCount: number | null;
  /** In chunk-file order; chunk n (1-based) gets the ref `{folderId}:{relativePath}#{n}`. */
  chunks: ChunkDraft[];
}

export interface SyncDocumentResult {
  documentId: string;
  added: number;
  updated: number;
  removed: number;
  unchanged: number;
  /** Refs that were new or whose text or metadata changed. */
  changedRefs: ChunkRef[];
  removedRefs: ChunkRef[];
}

export interface ChunkFilter {
  folderId?: string;
  documentId?: string;
  relativePath?: string;
}

/** Filters shared by keyword and vector search. Absent = no filter; an empty list matches nothing. */
export interface SearchScope {
  folderIds?: readonly string[];
  documentIds?: readonly string[];
}

export interface KeywordSearchOptions extends SearchScope {
  limit: number;
}

export interface KeywordHit {
  chunk: ChunkRecord;
  /** Keyword relevance (title counts double); higher is better, above 0 for any match. */
  score: number;
  /** The chunk has a vector (so the vector stage could have found it). */
  hasVector: boolean;
}

/** A keyword hit without its chunk's text: enough to rank and group it (its chunk is read once shown). */
export interface KeywordRefHit {
  ref: ChunkRef;
  documentId: string;
  score: number;
  hasVector: boolean;
}

export interface VectorSearchOptions extends SearchScope {
  k: number;
  /** Applied before k is counted, so k hits come back when that many qualify. */
  text?: TextConstraints;
}

/** The search caches a process keeps in memory (a server), and whether they are ready. */
export interface SearchIndexStatus {
  /** The keyword index in memory: ready once every word's list is read; null when none is kept. */
  keyword: { ready: boolean; wordsRead: number } | null;
}

/** How many included chunks in a scope have a vector. */
export interface EmbedCoverage {
  chunks: number;
  embedded: number;
}

export interface VectorHit {
  chunk: ChunkRecord;
  /** Cosine similarity to the query, 1 (same direction) .. -1 (opposite); higher is better. */
  score: number;
  /** True when the chunk's text changed after its vector was made. */
  stale: boolean;
}

export interface VectorInput {
  ref: ChunkRef;
  /** Hash of the exact text embedded: context prefix and content (see embedTextHash). */
  embedHash: string;
  embedding: Float32Array;
}

/** A stored vector with its embed record. */
export interface StoredVector extends VectorInput {
  /** The stamp it was written with (upsertVectors' fingerprint): model and chunk settings. */
  fingerprint: string;
}

export interface UpsertVectorsResult {
  written: number;
  /** Refs with no chunk any more (deleted while embedding ran); nothing was written for them. */
  missingRefs: ChunkRef[];
}

/** What the embed step needs to decide, per chunk, whether to embed, keep or delete a vector. */
export interface EmbedStateRow {
  ref: ChunkRef;
  /** Hash of the text a vector of this chunk would be made from now (context prefix and content). */
  embedHash: string;
  included: boolean;
  /** Hash of the text its vector was made from; null without a vector. */
  embeddedHash: string | null;
  embeddedFingerprint: string | null;
}

export interface SetIncludedResult {
  /** Chunks whose included state actually changed. */
  changed: number;
  /** Refs with no chunk; nothing was recorded for them. */
  missingRefs: ChunkRef[];
}

export interface IntegrityReport {
  ok: boolean;
  /** Human-readable problems; empty when ok. */
  problems: string[];
}

export type { ChunkRecord, DocumentRecord, ChunkRef, KeywordQuery, TextConstraints };
export type * from "./chat-contract.js";

/** A machine sharing the store: the id kept in its data folder, and its name (folder ownership names machines so too). */
export interface StoreMachine {
  id: string;
  name: string;
}

/** Who opens a store (every backend's open options): named to whoever waits for a folder it leases. */
export interface StoreOpener {
  /** What this process is (the CLI, a server…). */
  command?: string;
  /** This machine (the app's machine id and name). */
  machine?: StoreMachine;
}

/** Who holds a folder's lease, as a waiter is told. */
export interface LeaseHolder {
  pid: number;
  hostname: string;
  /** The machine holding it (null: a store opened without one, or a lock written before machines were named). */
  machine: StoreMachine | null;
  command: string;
  folder: string;
  startedAt: string;
  /** Unique per acquisition. */
  token: string;
}

export interface LeaseOptions {
  /** false: fail at once with FOLDER_BUSY instead of waiting for the other holder (default true). */
  wait?: boolean;
  /** Called once when another process (on any machine sharing the store) holds a lease and this call starts waiting. */
  onWaiting?: (holder: LeaseHolder) => void;
  signal?: AbortSignal;
  /** What the lease is for ("processing"), shown to whoever waits. */
  purpose?: string;
}

/** Names of the values kept in the store's meta table. */
export const META_KEYS = {
  /** Everything that changes vectors: provider, model, dtype, prefixes, chunk settings. */
  embeddingFingerprint: "embedding.fingerprint",
  embeddingModel: "embedding.model",
  embeddingDimensions: "embedding.dimensions",
} as const;

/**
 * The main store: folders, sources, documents, chunks, review state, keyword index, vectors.
 * Backend-neutral and async, so an embedded engine (SQLite) and a server (PostgreSQL +
 * pgvector) can both implement it; every backend passes runStoreSuite (store/conformance.ts).
 * Scores are higher-is-better; queries are neutral (core/keyword-query.ts).
 */
export interface MainStore {
  /** Where the store lives (a file path, or a connection description without secrets). */
  readonly path: string;

  // folders
  /** Adds the folder, or returns it (updating chunksRootPath) when its root is known. */
  upsertFolder(rootPath: string, chunksRootPath: string): Promise<StoredFolder>;
  getFolder(id: string): Promise<StoredFolder | null>;
  getFolderByPath(rootPath: string): Promise<StoredFolder | null>;
  /** Every folder with live counts. */
  listFolders(): Promise<FolderSummary[]>;
  /** Every folder, by root path, without counts: for callers that need only where folders are. */
  listFolderPlaces(): Promise<StoredFolder[]>;
  updateFolderStats(id: string, stats: FolderStats): Promise<boolean>;
  /** Per-folder chunking overrides, or null when the folder uses the config file's. */
  getFolderSettings(id: string): Promise<FolderSettings | null>;
  setFolderSettings(id: string, settings: FolderSettings | null): Promise<boolean>;
  /** Whether new text in this folder starts included (the default) or excluded. False when absent. */
  setNewChunksIncluded(id: string, included: boolean): Promise<boolean>;
  /** Removes the folder with its sources, documents, chunks, review state and vectors; nothing of them stays readable. */
  removeFolder(id: string): Promise<boolean>;

  // sources (what the incremental run remembers per file)
  listSources(folderId: string): Promise<SourceRecord[]>;
  getSource(folderId: string, relativePath: string): Promise<SourceRecord | null>;
  upsertSource(source: SourceRecord): Promise<void>;
  deleteSource(folderId: string, relativePath: string): Promise<boolean>;
  /**
   * Optional: until `end()`, the writes of documents and sources are committed together, at most
   * `maxDelayMs` after the first one, instead of one commit each; `onCommit` says when they are
   * durable. A backend without it commits each write as it comes.
   */
  startCommitGroup?(options: CommitGroupOptions): CommitGroup;

  // documents and chunks
  /**
   * Makes the stored chunks of one document equal to `chunks`, atomically. Review decisions
   * follow the text, not the place (same text, then overlap; text derived from excluded text
   * stays excluded; new text gets the folder's default); decisions of text that is gone go.
   */
  syncDocument(input: SyncDocumentInput): Promise<SyncDocumentResult>;
  /** Deletes the document, its chunks, their vectors and review state. False when absent. */
  deleteDocument(folderId: string, relativePath: string): Promise<boolean>;
  /**
   * Gives a document a new path (a renamed or moved file), atomically: its id, chunk refs,
   * review decisions, vectors and source record follow; text and embed records stay. False when
   * no document is at `from`; INVALID_ARGUMENT when one is at `to`.
   */
  renameDocument(folderId: string, from: string, to: string): Promise<boolean>;
  getDocument(id: string): Promise<DocumentRecord | null>;
  getDocumentByPath(folderId: string, relativePath: string): Promise<DocumentRecord | null>;
  listDocuments(folderId?: string): Promise<DocumentRecord[]>;
  /** Documents a user means by `query`: an exact id, path or file name (any case), else paths or titles containing it. */
  findDocuments(query: string, options?: { folderId?: string }): Promise<DocumentRecord[]>;
  /** Chunks in folder, path and chunk order, each with its review state. */
  listChunks(filter?: ChunkFilter): Promise<ChunkRecord[]>;
  getChunk(ref: ChunkRef): Promise<ChunkRecord | null>;
  /** The chunks for these refs, in the order asked; unknown refs are left out. */
  getChunks(refs: readonly ChunkRef[]): Promise<ChunkRecord[]>;

  // review
  /** Includes or excludes chunks. Excluded chunks are never returned by any search. */
  setIncluded(refs: readonly ChunkRef[], included: boolean): Promise<SetIncludedResult>;
  /** Refs the user excluded, optionally within one folder. */
  listExcludedRefs(folderId?: string): Promise<ChunkRef[]>;

  // keyword search
  /** Included chunks matching the query, best first (title counts double). */
  keywordSearch(query: KeywordQuery, options: KeywordSearchOptions): Promise<KeywordHit[]>;
  /**
   * keywordSearch's hits by reference: the same chunks, order, scores and vector flags, with each
   * chunk's document instead of the chunk. A search shows a few of its candidates and reads only
   * those whole (getChunks); reading every candidate's text, document and review state was the
   * larger part of a keyword search through `serve` (issue 22).
   */
  keywordSearchRefs(query: KeywordQuery, options: KeywordSearchOptions): Promise<KeywordRefHit[]>;
  /**
   * The query as this store runs it: a backend may drop a prefix `*` where it buys nothing (the
   * SQLite store searches a whole word found in many chunks exactly). Searching the plan finds
   * what searching the query finds; search reports the plan (`keyword query:`), not the request.
   */
  planKeywordQuery(query: KeywordQuery): Promise<KeywordQuery>;
  /** How many included chunks match. */
  countKeywordMatches(query: KeywordQuery, scope?: SearchScope): Promise<number>;
  /**
   * These chunks' keyword scores for the query, as keywordSearch gives them (the same numbers):
   * hybrid search scores a chunk only the vector stage found. Chunks that do not match are left out.
   */
  keywordScores(query: KeywordQuery, refs: readonly ChunkRef[]): Promise<Map<ChunkRef, number>>;

  // vectors
  /** False when this store cannot search vectors (keyword features still work); the reason says why. */
  readonly vectorAvailable: boolean;
  readonly vectorUnavailableReason: string | null;
  /** Prepares storage for vectors of this size; EMBEDDING_MISMATCH when it holds another size. */
  ensureVectorTable(dimensions: number): Promise<void>;
  /** Size of the stored vectors, or null before the first embed. */
  vectorDimensions(): Promise<number | null>;
  /** Writes vectors and their embed records together, atomically. */
  upsertVectors(vectors: readonly VectorInput[], fingerprint: string): Promise<UpsertVectorsResult>;
  /** Deletes vectors; returns how many chunks lost theirs. */
  deleteVectors(refs: readonly ChunkRef[]): Promise<number>;
  /** Nearest included chunks first. */
  vectorSearch(embedding: Float32Array, options: VectorSearchOptions): Promise<VectorHit[]>;
  /**
   * These chunks' similarity to the query vector, as vectorSearch scores them: hybrid search
   * scores a chunk only the keyword stage found. Chunks without a vector are left out.
   */
  vectorScores(embedding: Float32Array, refs: readonly ChunkRef[]): Promise<Map<ChunkRef, number>>;
  /** Included chunks in the scope, and how many of them have a vector. */
  embedCoverage(scope?: SearchScope): Promise<EmbedCoverage>;
  /** Per chunk: its embed hash, review state and what (if anything) was embedded for it. */
  embedState(folderId?: string): Promise<EmbedStateRow[]>;
  /** Drops every vector and embed record (for --reembed or a model change). */
  dropAllVectors(): Promise<void>;
  /** Chunks with a vector. */
  vectorCount(): Promise<number>;
  /**
   * Caches this process keeps beside the database to search faster, and whether they are ready:
   * the keyword index in memory (null when none is kept: a one-off command, or a backend without one).
   * `waitUntilReady`: resolves once they are (at once when nothing is kept).
   */
  searchIndexStatus(options?: { waitUntilReady?: boolean }): Promise<SearchIndexStatus>;
  /**
   * Optional: adds the vectors written so far to an approximate vector index kept beside the
   * store, so a run that writes vectors batch by batch leaves no build for its end. `added`: what
   * this call took in (0 when the index was up to date); null when no such index is kept.
   */
  updateVectorIndex?(): Promise<{ vectors: number; added: number } | null>;
  /** Whether any chunk has a vector: what a search asks before every vector query, so it must not count them all. */
  hasVectors(): Promise<boolean>;
  /** The stored vectors (of one folder), each with the hash of the text it was made from, in ref order (for export). */
  listVectors(folderId?: string): Promise<StoredVector[]>;

  // meta, integrity, lifetime
  getMeta(key: string): Promise<string | null>;
  setMeta(key: string, value: string): Promise<void>;
  deleteMeta(key: string): Promise<boolean>;
  /** Checks the storage and the keyword index against the chunks it mirrors. */
  integrityCheck(): Promise<IntegrityReport>;
  /** Rebuilds the keyword index from the chunks (the fix when integrityCheck flags it). */
  rebuildKeywordIndex(): Promise<void>;
  /**
   * Takes the write lease of every folder (by root path), in a stable order, across every process
   * sharing this store (SQLite: lock files beside the database; PostgreSQL: advisory locks);
   * resolves to a function that releases them. Reads never take it.
   */
  lease(folders: readonly string[], options?: LeaseOptions): Promise<() => Promise<void>>;
  close(): Promise<void>;
  /** Deletes everything this store holds, for reset (SQLite: the files; PostgreSQL: its tables), and closes it. */
  destroy(): Promise<void>;
}
