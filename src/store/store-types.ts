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
  /** FTS5 bm25 with column weights; lower (more negative) is better. */
  bm25: number;
  /** The chunk has a vector (so the vector stage could have found it). */
  hasVector: boolean;
}

/** FTS5 expressions a vector hit must satisfy (the user's quoted phrases and -words). */
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

/** How many included chunks in a scope have a vector. */
export interface EmbedCoverage {
  chunks: number;
  embedded: number;
}

export interface VectorHit {
  chunk: ChunkRecord;
  /** Cosine distance, 0 (same direction) .. 2 (opposite). */
  distance: number;
  /** True when the chunk's text changed after its vector was made. */
  stale: boolean;
}

export interface VectorInput {
  ref: ChunkRef;
  /** Hash of the exact text embedded: context prefix and content (see embedTextHash). */
  embedHash: string;
  embedding: Float32Array;
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

export type { ChunkRecord, DocumentRecord, ChunkRef };
