import type { DocumentRecord } from "../core/types.js";
import { decodeChunks } from "./chat-chunks.js";
import type { Conversation, StoredMessage, StoredMessageRole } from "./chat-contract.js";
import type { FolderSettings, SourceRecord, SourceStatus, StoredFolder } from "./contract.js";

/**
 * The rows both backends keep under the same column names, and how each becomes the contract's
 * record: one declaration for SQLite and PostgreSQL. Where the engines differ the type says so:
 * SQLite has no boolean (0 or 1) and keeps JSON as text; PostgreSQL gives booleans and parsed
 * jsonb; int8 columns arrive as numbers on both (connection.ts sets the parser).
 */

/** 0/1 from SQLite, a boolean from PostgreSQL. */
export type Flag = number | boolean;

export interface FolderRow<Included extends Flag = Flag> {
  id: string;
  root_path: string;
  chunks_root_path: string;
  created_at: string;
  last_processed_at: string | null;
  file_count: number;
  chunk_count: number;
  new_chunks_included: Included;
}

/** A folder row with its settings (SQLite reads them from text, PostgreSQL from jsonb). */
export function toFolder(row: FolderRow, settings: FolderSettings | null): StoredFolder {
  return {
    id: row.id,
    rootPath: row.root_path,
    chunksRootPath: row.chunks_root_path,
    createdAt: row.created_at,
    lastProcessedAt: row.last_processed_at,
    fileCount: row.file_count,
    chunkCount: row.chunk_count,
    settings,
    newChunksIncluded: Boolean(row.new_chunks_included),
  };
}

/** A chunk with its document's path, as search and listing read it (each backend adds how it keeps the metadata). */
export interface ChunkRowBase<Included extends Flag = Flag> {
  id: number;
  ref: string;
  document_id: string;
  folder_id: string;
  relative_path: string;
  ordinal: number;
  title: string;
  content: string;
  content_hash: string;
  included: Included;
}

export interface SourceRow {
  folder_id: string;
  relative_path: string;
  size: number;
  mtime_ms: number;
  source_hash: string | null;
  chunk_file_hash: string | null;
  synced_chunk_file_hash: string | null;
  /** SQLite's only (the stat a no-change run compares). */
  chunk_file_stat?: string | null;
  status: SourceStatus;
  error_code: string | null;
  error_message: string | null;
  processed_at: string;
}

export function toSource(row: SourceRow): SourceRecord {
  return {
    folderId: row.folder_id,
    relativePath: row.relative_path,
    size: row.size,
    mtimeMs: row.mtime_ms,
    sourceHash: row.source_hash,
    chunkFileHash: row.chunk_file_hash,
    syncedChunkFileHash: row.synced_chunk_file_hash,
    ...(row.chunk_file_stat === null || row.chunk_file_stat === undefined ? {} : { chunkFileStat: row.chunk_file_stat }),
    status: row.status,
    errorCode: row.error_code,
    errorMessage: row.error_message,
    processedAt: row.processed_at,
  };
}

export interface DocumentRow {
  id: string;
  folder_id: string;
  relative_path: string;
  title: string;
  document_type: string;
  file_size: number;
  page_count: number | null;
  chunk_count: number;
  indexed_at: string;
}

export function toDocument(row: DocumentRow): DocumentRecord {
  return {
    id: row.id,
    folderId: row.folder_id,
    relativePath: row.relative_path,
    title: row.title,
    documentType: row.document_type,
    fileSize: row.file_size,
    chunkCount: row.chunk_count,
    pageCount: row.page_count,
    indexedAt: row.indexed_at,
  };
}

export interface ConversationRow {
  id: string;
  title: string;
  created_at: string;
  updated_at: string;
  provider: string | null;
  model: string | null;
}

export function toConversation(row: ConversationRow): Conversation {
  return { id: row.id, title: row.title, createdAt: row.created_at, updatedAt: row.updated_at, provider: row.provider, model: row.model };
}

/** `chunk_refs`: JSON text (SQLite) or parsed jsonb (PostgreSQL); chat-chunks.ts reads both. */
export interface MessageRow<Chunks = unknown, Incomplete extends Flag = Flag> {
  id: string;
  conversation_id: string;
  role: StoredMessageRole;
  content: string;
  chunk_refs: Chunks;
  provider: string | null;
  model: string | null;
  created_at: string;
  incomplete: Incomplete;
}

export function toMessage(row: MessageRow): StoredMessage {
  return {
    id: row.id,
    conversationId: row.conversation_id,
    role: row.role,
    content: row.content,
    ...decodeChunks(row.chunk_refs),
    provider: row.provider,
    model: row.model,
    createdAt: row.created_at,
    incomplete: Boolean(row.incomplete),
  };
}
