import { z } from "zod";
import { ChunkpadError } from "../../core/errors.js";

/**
 * `export` and `import`: a folder's index as one portable file, for another machine or a backup.
 * The archive (a zip) holds per folder its documents' metadata and chunks with their review
 * state, the chunk files as they are on disk (hand edits included), the vectors with the text
 * hash and stamp they were made with, and optionally the source documents. An archive is
 * untrusted input: the manifest is read through one schema, and import checks everything
 * before it writes anything (archive-check.ts).
 */

export const ARCHIVE_FORMAT = "chunkpad.archive/1";

/** The largest chunk an archive may carry: the same cap as a hand-edited chunk file. */
export const MAX_ARCHIVED_CHUNK_BYTES = 1024 * 1024;

const count = z.number().int().min(0).max(Number.MAX_SAFE_INTEGER);
const hash = z.string().regex(/^[0-9a-f]{16,128}$/, "a hex hash");
const relativePath = z.string().min(1).max(4096);

const chunkMetaSchema = z.strictObject({
  page: count.optional(),
  pageEnd: count.optional(),
  slide: count.optional(),
  sheet: z.string().max(1024).optional(),
  charStart: count.optional(),
  charEnd: count.optional(),
  section: z.string().max(4096).optional(),
});

const archivedChunkSchema = z.object({
  content: z.string().refine((text) => Buffer.byteLength(text, "utf8") <= MAX_ARCHIVED_CHUNK_BYTES, `a chunk may hold at most ${MAX_ARCHIVED_CHUNK_BYTES / 1024 / 1024} MB of text`),
  meta: chunkMetaSchema,
  included: z.boolean(),
});

const archivedDocumentSchema = z.object({
  relativePath,
  title: z.string().max(4096),
  documentType: z.string().max(64),
  fileSize: count,
  pageCount: count.nullable(),
  source: z
    .object({
      size: count,
      mtimeMs: z.number().finite().min(0),
      sourceHash: hash.nullable(),
      chunkFileHash: hash.nullable(),
      syncedChunkFileHash: hash.nullable(),
    })
    .nullable(),
  chunks: z.array(archivedChunkSchema),
});

const archivedVectorSchema = z.object({
  relativePath,
  ordinal: z.number().int().min(1),
  embedHash: hash,
  stamp: z.string().max(4096),
});

/** A file that failed or had nothing to index, with why: an import does not parse it again while it is unchanged. */
const archivedUnindexedSchema = z.object({
  relativePath,
  sourceHash: hash,
  status: z.enum(["failed", "skipped"]),
  errorCode: z.string().max(256).nullable(),
  errorMessage: z.string().max(8192).nullable(),
});

const archivedFolderSchema = z.object({
  /** Entry prefix inside the zip ("folders/0/"). */
  prefix: z.string().regex(/^folders\/\d{1,6}\/$/, 'a prefix like "folders/0/"'),
  /** Where it was exported from: shown to the user, never used as a place to write. */
  rootPath: z.string().max(4096).refine((text) => ![...text].some((character) => character.charCodeAt(0) < 0x20), "no control characters in a path"),
  chunking: z.object({ chunkSizeTokens: z.number().int().min(32).max(8192), chunkOverlapTokens: z.number().int().min(0).max(4096) }),
  newChunksIncluded: z.boolean(),
  documents: z.array(archivedDocumentSchema),
  /** Chunk files, relative to the folder's `_chunks/`. */
  chunkFiles: z.array(relativePath),
  /** Source documents in the archive (with --with-sources), relative to the folder. */
  sources: z.array(relativePath),
  vectors: z.array(archivedVectorSchema),
  /** Absent in archives from before it was kept. */
  unindexed: z.array(archivedUnindexedSchema).optional(),
});

export const manifestSchema = z.object({
  format: z.literal(ARCHIVE_FORMAT),
  createdAt: z.string().max(64),
  /** The embedder part of the stored fingerprint, and the vector size; null without vectors. */
  embedding: z.object({ embedder: z.record(z.string(), z.unknown()), model: z.string().max(1024), dimensions: z.number().int().min(1).max(65_536) }).nullable(),
  folders: z.array(archivedFolderSchema).min(1).max(10_000),
});

export type Manifest = z.infer<typeof manifestSchema>;
export type ArchivedFolder = Manifest["folders"][number];
export type ArchivedDocument = ArchivedFolder["documents"][number];
export type ArchivedChunk = ArchivedDocument["chunks"][number];
export type ArchivedVector = ArchivedFolder["vectors"][number];
export type ArchivedUnindexed = NonNullable<ArchivedFolder["unindexed"]>[number];

/** A refused archive: one line with the reason, and that nothing was imported. */
export function badArchive(file: string, reason: string): ChunkpadError {
  return new ChunkpadError("INVALID_ARGUMENT", `${file} cannot be imported: ${reason}. Nothing was imported.`, { nextSteps: [{ action: "use-export-archive" }] });
}

export function notAnArchive(file: string): ChunkpadError {
  return new ChunkpadError("INVALID_ARGUMENT", `${file} is not a Chunkpad archive.`, { nextSteps: [{ action: "use-export-archive" }] });
}

export function parseManifest(text: string, file: string): Manifest {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    throw notAnArchive(file);
  }
  if (!value || typeof value !== "object" || Array.isArray(value)) throw notAnArchive(file);
  const format = (value as { format?: unknown }).format;
  if (format !== ARCHIVE_FORMAT) {
    throw new ChunkpadError("INVALID_ARGUMENT", `${file} is in the format "${String(format)}", which this Chunkpad cannot read (it reads ${ARCHIVE_FORMAT}). Update Chunkpad, or export again with this version.`);
  }
  const parsed = manifestSchema.safeParse(value);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    throw badArchive(file, `its manifest is invalid at ${issue?.path.join(".") || "the top"} (${issue?.message ?? "unexpected value"})`);
  }
  return parsed.data;
}

/**
 * How far an export or import is, for a progress bar: the files of one folder read into the
 * archive (export), the documents restored (import), then compressing or placing files.
 */
export interface ArchiveProgress {
  stage: "reading" | "collecting" | "compressing" | "writing" | "restoring" | "placing";
  /** Files (collecting) or documents (restoring) done so far, of `total`; 0 of 1 for a stage with no count. */
  done: number;
  total: number;
  /** The added folder (export) or the folder restored into (import), when the stage is about one. */
  folder: string | null;
}
