import type { ChunkpadError } from "./errors.js";

/**
 * Types shared by every room. Kept free of behaviour: rooms import these, never each other's
 * internals.
 */

// ---------------------------------------------------------------------------------------------
// Parsing (src/ingest)

/** One structural unit of extracted text, in reading order. */
export interface ParsedBlock {
  kind: "heading" | "paragraph" | "list" | "table" | "code" | "quote";
  /** Plain text; a table is rendered as markdown-ish rows ("a | b | c"), a list as "- item" lines. */
  text: string;
  /** Heading level 1..6 (kind "heading" only). */
  level?: number;
  /** 1-based page number (PDF) the block starts on. */
  page?: number;
  /** 1-based slide number (PPTX, ODP). */
  slide?: number;
  /** Sheet name (XLSX, ODS). */
  sheet?: string;
  /**
   * Table header line(s) (kind "table" only): repeated at the top of every chunk that starts
   * inside the table, so a chunk of a long table reads on its own.
   */
  header?: string;
}

export interface ParsedDocument {
  /** Document title from metadata or the first heading; the file name when nothing better. */
  title?: string;
  blocks: ParsedBlock[];
  /** Pages in a PDF, slides in a presentation, sheets in a workbook. */
  pageCount?: number;
  /** Non-fatal problems worth telling the user (a page that failed, an image-only page). */
  warnings: string[];
  /** Pages whose text came from OCR (1 for a single image). */
  ocrPages?: number[];
}

export interface ParseLimits {
  /** Largest total number of bytes an archive may expand to. */
  maxDecompressedBytes: number;
  /** Largest number of entries an archive may hold. */
  maxArchiveEntries: number;
  /** OCR for scanned pages and images ("auto"); absent or "off" reports them instead. */
  ocr?: "auto" | "off";
}

export const DEFAULT_PARSE_LIMITS: ParseLimits = {
  maxDecompressedBytes: 256 * 1024 * 1024,
  maxArchiveEntries: 5_000,
};

export interface ParseInput {
  /** Absolute path of the source, for messages and for parsers that need the file name. */
  path: string;
  data: Uint8Array;
  /** Password for an encrypted document, when the user gave one. */
  password?: string;
  limits: ParseLimits;
  /** Aborted when the per-file time limit passes; long parsers check it between pages. */
  signal?: AbortSignal;
  /** When the signal will abort (Date.now() milliseconds), for parsers that budget slow pages. */
  deadlineMs?: number;
}

/**
 * One file format. Parsers throw ChunkpadError with a PARSE_* code for a document they
 * cannot read (encrypted, malformed, zip bomb, no text); anything else they throw is
 * reported as PARSE_FAILED.
 */
export interface Parser {
  /** Short name shown to users ("pdf", "docx"). */
  readonly name: string;
  /** Lower-case extensions with the dot (".pdf"). */
  readonly extensions: readonly string[];
  parse(input: ParseInput): Promise<ParsedDocument>;
}

// ---------------------------------------------------------------------------------------------
// Chunking (src/chunking) and chunk files (src/chunkfiles)

/** Where a chunk came from in its source; written as the chunk's metadata comment. */
export interface ChunkMeta {
  /** First page (PDF) of the chunk. */
  page?: number;
  /** Last page when the chunk spans pages. */
  pageEnd?: number;
  slide?: number;
  sheet?: string;
  /** Character offsets [start, end) in the extracted text of the source. */
  charStart?: number;
  charEnd?: number;
  /** The nearest heading above the chunk's start. */
  section?: string;
}

/** One chunk as the chunker makes it and a chunk file holds it. */
export interface ChunkDraft {
  content: string;
  meta: ChunkMeta;
}

export interface ChunkingOptions {
  /** Target chunk size in cl100k_base tokens. */
  chunkSizeTokens: number;
  /** Tokens of the previous chunk repeated at the start of the next. */
  chunkOverlapTokens: number;
}

export const DEFAULT_CHUNKING: ChunkingOptions = { chunkSizeTokens: 400, chunkOverlapTokens: 60 };

// ---------------------------------------------------------------------------------------------
// Stored data (src/store) and search results (src/search)

/** `{folderId}:{relative source path}#{n}`, n 1-based: stable across runs. */
export type ChunkRef = string;

export interface IndexedFolder {
  id: string;
  rootPath: string;
  chunksRootPath: string;
  createdAt: string;
  lastProcessedAt: string | null;
  fileCount: number;
  chunkCount: number;
}

export interface DocumentRecord {
  id: string;
  folderId: string;
  /** Source path relative to the folder root, with forward slashes. */
  relativePath: string;
  title: string;
  documentType: string;
  fileSize: number;
  chunkCount: number;
  pageCount: number | null;
  indexedAt: string;
}

export interface ChunkRecord extends ChunkMeta {
  /** The stable reference `{folderId}:{relativePath}#{n}`: what the wire carries, never a backend's row id. */
  ref: ChunkRef;
  documentId: string;
  folderId: string;
  relativePath: string;
  /** 1-based position in the chunk file. */
  ordinal: number;
  title: string;
  content: string;
  contentHash: string;
  included: boolean;
}

/** What search knows about a chunk's match: the fused score and each stage's raw numbers. */
export interface ChunkScores {
  /** Fused score 0..1, shown as relevance %. */
  score: number;
  /** Cosine distance from the query vector, when the vector stage saw it. */
  distance?: number;
  /**
   * Keyword relevance (bm25, title counts double; higher is better, above 0 for any match of a
   * query word), when the chunk holds a query word. Replaces `bm25`, FTS5's raw number, whose sign
   * was the other way round.
   */
  keywordScore?: number;
  /** The vector stage did not return it: its stored vector was compared with the query afterwards, so fusion sees its real similarity. */
  distanceLookedUp?: boolean;
  /** 1-based rank in the vector list (by distance). */
  vectorRank?: number;
  /** 1-based rank in the keyword list (chunks holding every word first, then by keyword score). */
  keywordRank?: number;
  /** Merged in by --pin at score 1.0. */
  pinned?: boolean;
  /** The chunk has no vector yet: hybrid search scored its vector side from its keyword rank. */
  notEmbedded?: boolean;
  /** Re-scored by the cross-encoder: its relevance 0..1 (the logit's sigmoid). */
  rerankScore?: number;
  /** 1-based rank among the re-scored results, by the cross-encoder alone. */
  rerankRank?: number;
  /** The fused score before the cross-encoder's share was blended in. */
  fusedScore?: number;
}

export interface ScoredChunk extends ChunkScores {
  chunk: ChunkRecord;
  /** The user's toggle for this answer; starts true. */
  isIncluded: boolean;
}

// ---------------------------------------------------------------------------------------------
// Embedding (src/embedding)

export type ModelStatus =
  | { state: "notDownloaded" }
  | { state: "downloading"; percent: number; bytesDone: number; bytesTotal: number | null }
  | { state: "loading" }
  | { state: "ready" }
  | { state: "error"; message: string };

export interface Embedder {
  readonly dimensions: number;
  readonly maxTokens: number;
  /** Identifies everything that changes the vectors: provider, model, dtype, prefixes, pooling. */
  readonly fingerprint: string;
  embedDocuments(texts: string[]): Promise<Float32Array[]>;
  embedQuery(text: string): Promise<Float32Array>;
  close?(): Promise<void>;
}

// ---------------------------------------------------------------------------------------------
// LLM (src/llm)

export interface ChatMessage {
  role: "system" | "user" | "assistant";
  content: string;
}

export interface ChatOptions {
  model?: string;
  temperature?: number;
  maxTokens?: number;
  signal?: AbortSignal;
}

export interface TokenUsage {
  inputTokens?: number;
  outputTokens?: number;
}

export type FinishReason = "stop" | "length" | "error" | "cancelled" | "other";

export type ChatStreamPart =
  | { type: "text-delta"; text: string }
  | { type: "finish"; reason: FinishReason; usage?: TokenUsage }
  | { type: "error"; error: ChunkpadError };

export interface ChatResult {
  text: string;
  finishReason: FinishReason;
  usage?: TokenUsage;
}

export interface LlmClient {
  readonly provider: string;
  readonly model: string;
  chat(messages: ChatMessage[], options?: ChatOptions): Promise<ChatResult>;
  chatStream(messages: ChatMessage[], options?: ChatOptions): AsyncIterable<ChatStreamPart>;
}
