import { ChunkpadError } from "../../core/errors.js";
import type { ChunkingOptions, ChunkMeta } from "../../core/types.js";
import type { SourceRecord } from "../../store/index.js";

/**
 * `export` and `import`: a folder's index as one portable file, for another machine or a backup.
 * The archive (a zip) holds per folder its documents' metadata and chunks with their review
 * state, the chunk files as they are on disk (hand edits included), the vectors with the text
 * hash and stamp they were made with, and optionally the source documents. Paths inside are
 * checked on import like any untrusted input: nothing is written outside the target folder.
 */

export const ARCHIVE_FORMAT = "chunkpad.archive/1";

export interface ArchivedChunk {
  content: string;
  meta: ChunkMeta;
  included: boolean;
}

export interface ArchivedDocument {
  relativePath: string;
  title: string;
  documentType: string;
  fileSize: number;
  pageCount: number | null;
  source: Pick<SourceRecord, "size" | "mtimeMs" | "sourceHash" | "chunkFileHash" | "syncedChunkFileHash"> | null;
  chunks: ArchivedChunk[];
}

export interface ArchivedVector {
  relativePath: string;
  ordinal: number;
  embedHash: string;
  stamp: string;
}

export interface ArchivedFolder {
  /** Entry prefix inside the zip ("folders/0/"). */
  prefix: string;
  rootPath: string;
  chunking: ChunkingOptions;
  newChunksIncluded: boolean;
  documents: ArchivedDocument[];
  /** Chunk files, relative to the folder's `_chunks/`. */
  chunkFiles: string[];
  /** Source documents in the archive (with --with-sources), relative to the folder. */
  sources: string[];
  vectors: ArchivedVector[];
  /**
   * Files that failed or had nothing to index, with why, so an import does not parse them again
   * while they are unchanged. Absent in archives from before it was kept.
   */
  unindexed?: ArchivedUnindexed[];
}

export interface ArchivedUnindexed {
  relativePath: string;
  sourceHash: string;
  status: "failed" | "skipped";
  errorCode: string | null;
  errorMessage: string | null;
}

export interface Manifest {
  format: typeof ARCHIVE_FORMAT;
  createdAt: string;
  /** The embedder part of the stored fingerprint, and the vector size; null without vectors. */
  embedding: { embedder: Record<string, unknown>; model: string; dimensions: number } | null;
  folders: ArchivedFolder[];
}

export function notAnArchive(file: string): ChunkpadError {
  return new ChunkpadError("INVALID_ARGUMENT", `${file} is not a Chunkpad archive. Give a file written by "chunkpad export".`);
}

export function parseManifest(text: string, file: string): Manifest {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    throw notAnArchive(file);
  }
  const manifest = value as Partial<Manifest> | null;
  if (!manifest || typeof manifest !== "object") throw notAnArchive(file);
  if (manifest.format !== ARCHIVE_FORMAT) {
    throw new ChunkpadError("INVALID_ARGUMENT", `${file} is in the format "${String(manifest.format)}", which this Chunkpad cannot read (it reads ${ARCHIVE_FORMAT}). Update Chunkpad, or export again with this version.`);
  }
  if (!Array.isArray(manifest.folders)) throw notAnArchive(file);
  return manifest as Manifest;
}
