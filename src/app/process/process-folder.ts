import fs from "node:fs/promises";
import path from "node:path";
import { ChunkpadError, describeError, isChunkpadError } from "../../core/errors.js";
import type { ChunkDraft, ChunkingOptions, ParseLimits } from "../../core/types.js";
import { chunkDocument } from "../../chunking/chunker.js";
import { parseChunkFile, readChunkFileText, renderChunkFile } from "../../chunkfiles/format.js";
import { chunkFilePathIn, chunksRootFor } from "../../chunkfiles/paths.js";
import { readChunkFileSafely, removeChunkFileSafely, writeChunkFileSafely } from "../../chunkfiles/safe-files.js";
import { hashText } from "../../chunkfiles/hash.js";
import { formatFor, isTextFile, supportedExtensions } from "../../ingest/registry.js";
import type { ParseRunner } from "../../ingest/parse-runner.js";
import { walkFolder, type WalkedFile, type WalkSkip } from "../../ingest/walk.js";
import type { MainStore } from "../../store/index.js";
import type { SourceRecord } from "../../store/index.js";
import { hashFile, hashFileIfPresent, isFolderWritable } from "./files.js";

export interface ProcessProgress {
  phase: "scan" | "process" | "cleanup" | "done";
  done: number;
  total: number;
  file?: string;
}

export interface ProcessFolderOptions {
  /** Overwrite chunk files the user edited, and re-chunk unchanged sources. */
  force?: boolean;
  /** Password for encrypted documents in this run. */
  password?: string;
  /** Per-file parse time limit for this run, overriding ingest.perFileTimeoutSeconds. */
  timeoutSeconds?: number;
  /** Settles one file's conflict: keep the hand-edited chunk file, or replace it with fresh chunks. */
  resolve?: { relativePath: string; choice: ConflictChoice };
  onProgress?: (progress: ProcessProgress) => void;
  signal?: AbortSignal;
  /** Review state for text this folder has not had before; remembered for the folder. */
  newChunksIncluded?: boolean;
}

export type ConflictChoice = "keep-mine" | "take-fresh";

export interface ProcessedFile {
  path: string;
  format: string;
  chunks: number;
  pages?: number;
  warnings: string[];
  /** Pages read with OCR (no text layer), when any. */
  ocrPages?: number[];
}

export interface FailedFile {
  path: string;
  code: string;
  message: string;
  /** True when the file has not changed since it last failed, so it was not parsed again. */
  unchangedSinceFailure: boolean;
  /** True when the next run tries the file again even if it does not change (a timeout, a permission problem, a file changing while read). */
  retried: boolean;
}

export interface ChunkFileConflict {
  path: string;
  chunkFile: string;
  message: string;
}

export interface ProcessReport {
  folder: { id: string; rootPath: string; chunksRootPath: string };
  processed: ProcessedFile[];
  unchanged: string[];
  /** Chunk files edited by hand whose text was taken into the database. */
  editsSynced: Array<{ path: string; chunks: number; warnings: string[] }>;
  skipped: WalkSkip[];
  failed: FailedFile[];
  conflicts: ChunkFileConflict[];
  removed: string[];
  /** Of the removed sources, those whose chunk file was edited by hand: the file is kept (path relative to the folder). */
  keptEdits: Array<{ path: string; chunkFile: string }>;
  /** The conflict settled by `resolve`, when there was one. */
  resolved: Array<{ path: string; choice: ConflictChoice }>;
  /** True when the folder cannot be written, so the chunk files live in Chunkpad's data dir (folder.chunksRootPath). */
  chunksInDataDir: boolean;
  chunksWritten: number;
  durationMs: number;
}

export interface ProcessContext {
  store: MainStore;
  runner: ParseRunner;
  chunking: ChunkingOptions;
  limits: ParseLimits;
  maxFileSizeBytes: number;
  concurrency: number;
  /** Where a read-only folder's chunk files go: a per-folder directory in the data dir. */
  fallbackChunksRoot(folderId: string): string;
}

const CHUNKING_META_PREFIX = "chunking:";

/** Failures that may not recur, so an unchanged file is tried again on the next run. */
const RETRIED_FAILURES: ReadonlySet<string> = new Set(["PARSE_TIMEOUT", "CANCELLED", "SOURCE_UNREADABLE", "SOURCE_CHANGED"]);

/**
 * The largest chunk a hand edit may hold. The chunker makes chunks of a few hundred tokens; a
 * megabyte of text in one chunk is a paste gone wrong, and would make every search slow.
 */
export const MAX_CHUNK_TEXT_BYTES = 1024 * 1024;

/**
 * Step 1: parse every document in a folder into `_chunks/` markdown files and the keyword
 * index. Incremental: unchanged sources are skipped, changed ones re-chunked, vanished ones
 * cleaned up. A chunk file the user edited is never overwritten without `force`; links inside
 * the chunk folder are never followed; a read-only folder keeps its chunk files in the data dir.
 */
export async function processFolder(context: ProcessContext, folderPath: string, options: ProcessFolderOptions = {}): Promise<ProcessReport> {
  const started = Date.now();
  const root = await resolveFolder(folderPath);
  const { store } = context;
  let folder = await store.upsertFolder(root, chunksRootFor(root));
  const chunksInDataDir = !(await isFolderWritable(chunksRootFor(root)));
  if (chunksInDataDir) folder = await store.upsertFolder(root, context.fallbackChunksRoot(folder.id));
  const chunksRoot = folder.chunksRootPath;
  // Before any chunk is stored, so a first add with new text excluded never includes anything.
  if (options.newChunksIncluded !== undefined) await store.setNewChunksIncluded(folder.id, options.newChunksIncluded);
  const report: ProcessReport = {
    folder: { id: folder.id, rootPath: folder.rootPath, chunksRootPath: chunksRoot },
    processed: [], unchanged: [], editsSynced: [], skipped: [], failed: [], conflicts: [], removed: [], keptEdits: [], resolved: [],
    chunksInDataDir, chunksWritten: 0, durationMs: 0,
  };

  options.onProgress?.({ phase: "scan", done: 0, total: 0 });
  const walk = await walkFolder(root, {
    supportedExtensions: supportedExtensions(),
    isText: isTextFile,
    maxFileSizeBytes: context.maxFileSizeBytes,
    skipDirectories: await nestedChunkRoots(store, folder.id, root),
  });
  report.skipped = walk.skipped;

  const chunkingKey = JSON.stringify([context.chunking.chunkSizeTokens, context.chunking.chunkOverlapTokens]);
  const chunkingMetaKey = CHUNKING_META_PREFIX + folder.id;
  const previous = new Map((await store.listSources(folder.id)).map((source) => [source.relativePath, source]));
  // A folder with nothing recorded yet is chunked with today's settings from its first file on,
  // so a first run that is interrupted does not make the next one re-chunk everything.
  if (previous.size === 0) await store.setMeta(chunkingMetaKey, chunkingKey);
  const settingsChanged = await store.getMeta(chunkingMetaKey) !== chunkingKey;
  const place: FolderPlace = { folderId: folder.id, root, chunksRoot };

  let done = 0;
  const total = walk.files.length;
  const queue = [...walk.files];
  const work = async () => {
    for (let file = queue.shift(); file; file = queue.shift()) {
      if (options.signal?.aborted) throw new ChunkpadError("CANCELLED", "Processing was cancelled; run the same command again to finish.");
      options.onProgress?.({ phase: "process", done, total, file: file.relativePath });
      try {
        await processOne(context, place, file, previous.get(file.relativePath), { ...options, settingsChanged }, report);
      } catch (error) {
        // One file that cannot be read, written or recorded fails that file only, never the run.
        const problem = fileProblem(error, place, file.relativePath);
        if (!problem) throw error;
        report.failed.push({ path: file.relativePath, ...problem, unchangedSinceFailure: false });
      }
      done += 1;
      options.onProgress?.({ phase: "process", done, total, file: file.relativePath });
    }
  };
  await Promise.all(Array.from({ length: Math.max(1, context.concurrency) }, work));

  // Sources that are gone from disk: their chunk files and rows go too. A file that is still
  // there but skipped this time (too large, say) keeps what it had.
  options.onProgress?.({ phase: "cleanup", done, total });
  const present = new Set([...walk.files.map((file) => file.relativePath), ...walk.skipped.map((skip) => skip.relativePath)]);
  for (const [relativePath, source] of previous) {
    if (present.has(relativePath)) continue;
    try {
      await forgetSource(context, place, relativePath, source, report);
    } catch (error) {
      const problem = fileProblem(error, place, relativePath);
      if (!problem) throw error;
      report.failed.push({ path: relativePath, ...problem, unchangedSinceFailure: false });
    }
  }

  // The run finished, so every file was chunked with these settings or failed (failures that
  // may not recur are retried anyway): later runs need not re-chunk the folder.
  await store.setMeta(chunkingMetaKey, chunkingKey);
  const documents = await store.listDocuments(folder.id);
  await store.updateFolderStats(folder.id, {
    fileCount: documents.length,
    chunkCount: documents.reduce((sum, document) => sum + document.chunkCount, 0),
    lastProcessedAt: new Date().toISOString(),
  });
  // Files finish in any order when parsed in parallel; report them in path order.
  const byPath = (a: { path: string }, b: { path: string }) => (a.path < b.path ? -1 : a.path > b.path ? 1 : 0);
  report.processed.sort(byPath);
  report.failed.sort(byPath);
  report.conflicts.sort(byPath);
  report.editsSynced.sort(byPath);
  report.keptEdits.sort(byPath);
  report.unchanged.sort();
  report.removed.sort();
  report.durationMs = Date.now() - started;
  options.onProgress?.({ phase: "done", done, total });
  return report;
}

interface FolderPlace {
  folderId: string;
  root: string;
  /** `{root}/_chunks`, or the data-dir directory of a read-only folder. */
  chunksRoot: string;
}

/** The chunk file's path as the user sees it: relative to the folder, or absolute when it lives in the data dir. */
function shownChunkFile(place: FolderPlace, chunkFile: string): string {
  const relative = path.relative(place.root, chunkFile);
  return relative.startsWith("..") || path.isAbsolute(relative) ? chunkFile : relative.split(path.sep).join("/");
}

/** A source that is gone: its rows go, and its chunk file unless the user edited it. */
async function forgetSource(context: ProcessContext, place: FolderPlace, relativePath: string, source: SourceRecord | undefined, report: ProcessReport): Promise<void> {
  const chunkFile = chunkFilePathIn(place.chunksRoot, relativePath);
  const chunkText = await readChunkFileSafely(place.chunksRoot, chunkFile);
  // A chunk file edited by hand is the user's work: the source going away does not delete it.
  if (chunkText !== undefined && hashText(chunkText) !== source?.chunkFileHash) {
    report.keptEdits.push({ path: relativePath, chunkFile: shownChunkFile(place, chunkFile) });
  } else {
    await removeChunkFileSafely(place.chunksRoot, chunkFile);
  }
  await context.store.deleteDocument(place.folderId, relativePath);
  await context.store.deleteSource(place.folderId, relativePath);
  report.removed.push(relativePath);
}

/** The other added folders' chunk folders inside this one: their chunk files are not documents of this folder. */
async function nestedChunkRoots(store: MainStore, folderId: string, root: string): Promise<Map<string, string>> {
  const skip = new Map<string, string>();
  for (const other of await store.listFolders()) {
    if (other.id !== folderId && other.chunksRootPath.startsWith(root + path.sep)) {
      skip.set(other.chunksRootPath, `chunk files of the added folder ${other.rootPath}`);
    }
  }
  return skip;
}

function isFileSystemError(error: unknown): error is NodeJS.ErrnoException {
  return error instanceof Error && typeof (error as NodeJS.ErrnoException).syscall === "string";
}

/** Why the file system refused, in words: the real cause, not the error code alone. */
function fileSystemCause(error: NodeJS.ErrnoException): string {
  switch (error.code) {
    case "EROFS": return "the disk is read-only";
    case "EACCES": case "EPERM": return "permission denied";
    case "ENOSPC": return "the disk is full";
    case "EDQUOT": return "the disk quota is used up";
    case "ENAMETOOLONG": return "the name is too long for the file system";
    default: return error.message;
  }
}

/** What to report for an error while handling one file, or undefined for errors that must stop the run. */
function fileProblem(error: unknown, place: FolderPlace, relativePath: string): { code: string; message: string; retried: boolean } | undefined {
  if (isChunkpadError(error)) {
    if (error.code === "CANCELLED" || error.code === "DATABASE_ERROR" || error.code === "DATABASE_LOCKED" || error.code === "INTERNAL") return undefined;
    return { code: error.code, message: error.message, retried: RETRIED_FAILURES.has(error.code) };
  }
  if (!isFileSystemError(error)) return undefined;
  const cause = fileSystemCause(error);
  if (typeof error.path !== "string" || !error.path.startsWith(place.chunksRoot + path.sep)) {
    return { code: "SOURCE_UNREADABLE", message: `cannot be read: ${cause}; it is tried again on the next run`, retried: true };
  }
  const chunkFile = shownChunkFile(place, chunkFilePathIn(place.chunksRoot, relativePath));
  if (error.code === "ENAMETOOLONG") {
    return { code: "CHUNK_FILE_INVALID", message: `its chunk file ${chunkFile} cannot be written: ${cause}. Rename the document to a shorter name.`, retried: true };
  }
  const hint = error.code === "ENOSPC" || error.code === "EDQUOT" ? "free some space and run again" : "check that you may write there and run again";
  return { code: "CHUNK_FILE_INVALID", message: `its chunk file ${chunkFile} cannot be written: ${cause}; ${hint}.`, retried: true };
}

async function resolveFolder(folderPath: string): Promise<string> {
  try {
    const resolved = await fs.realpath(path.resolve(folderPath));
    if (!(await fs.stat(resolved)).isDirectory()) throw new Error("not a directory");
    return resolved;
  } catch {
    throw new ChunkpadError("FOLDER_NOT_FOUND", `${folderPath} is not a folder. Give the path of a folder of documents, e.g. "chunkpad add ~/Documents/reports".`);
  }
}

interface OneFileOptions extends ProcessFolderOptions {
  settingsChanged: boolean;
}

/** Refuses a hand-edited chunk file with a chunk too large to index sensibly. */
function checkChunkSizes(chunks: readonly ChunkDraft[], chunkFile: string): void {
  for (const [index, chunk] of chunks.entries()) {
    const bytes = Buffer.byteLength(chunk.content, "utf8");
    if (bytes > MAX_CHUNK_TEXT_BYTES) {
      throw new ChunkpadError(
        "CHUNK_FILE_INVALID",
        `chunk ${index + 1} of ${chunkFile} holds ${formatMegabytes(bytes)} of text, more than the ${formatMegabytes(MAX_CHUNK_TEXT_BYTES)} a chunk may hold; ` +
          `your edit was not taken in. Split it into "## Chunk" sections of a few paragraphs each (or delete the file for fresh chunks).`,
      );
    }
  }
}

function formatMegabytes(bytes: number): string {
  return `${(bytes / 1024 / 1024).toFixed(1)} MB`;
}

function conflictMessage(place: FolderPlace, relativePath: string, reason: string): string {
  const source = path.join(place.root, relativePath);
  return `${reason}; kept your edits. Run "chunkpad resolve ${quoteForShell(source)} --keep-mine" to keep them, or "--take-fresh" to replace them with fresh chunks.`;
}

function quoteForShell(text: string): string {
  return /^[\w./~+-]+$/.test(text) ? text : `'${text.replace(/'/g, `'\\''`)}'`;
}

async function processOne(context: ProcessContext, place: FolderPlace, file: WalkedFile, previous: SourceRecord | undefined, options: OneFileOptions, report: ProcessReport): Promise<void> {
  const { store } = context;
  const { folderId, chunksRoot } = place;
  const chunkFile = chunkFilePathIn(chunksRoot, file.relativePath);
  const shownChunk = shownChunkFile(place, chunkFile);
  const resolution = options.resolve?.relativePath === file.relativePath ? options.resolve.choice : undefined;
  const force = Boolean(options.force) || resolution === "take-fresh";
  const existingText = await readChunkFileSafely(chunksRoot, chunkFile);
  const existingHash = existingText === undefined ? undefined : hashText(existingText);
  const statUnchanged = previous !== undefined && previous.size === file.size && previous.mtimeMs === file.mtimeMs;

  // A file that failed before and has not changed is not parsed again, unless the failure may
  // not recur (a timeout, a permission problem) or a password or --force says otherwise.
  if (previous?.status === "failed" && statUnchanged && !force && options.password === undefined && !RETRIED_FAILURES.has(previous.errorCode ?? "")) {
    report.failed.push({ path: file.relativePath, code: previous.errorCode ?? "PARSE_FAILED", message: previous.errorMessage ?? "failed", unchangedSinceFailure: true, retried: false });
    return;
  }

  let sourceHash: string | undefined;
  let sourceUnchanged = false;
  if (previous?.status === "processed" && !force && !options.settingsChanged) {
    if (statUnchanged) sourceUnchanged = true;
    else {
      sourceHash = await hashFile(file.absolutePath);
      sourceUnchanged = sourceHash === previous.sourceHash;
    }
  }

  if (sourceUnchanged && previous && existingText !== undefined) {
    if (existingHash !== previous.syncedChunkFileHash) {
      // The user edited the chunk file: its text is the truth for this source's chunks.
      const { chunks, warnings } = readChunkFileText(existingText);
      checkChunkSizes(chunks, shownChunk);
      const document = await store.getDocumentByPath(folderId, file.relativePath);
      await syncDocument(context, folderId, file, document?.title ?? path.basename(file.relativePath), document?.pageCount ?? null, chunks);
      await store.upsertSource({ ...previous, size: file.size, mtimeMs: file.mtimeMs, syncedChunkFileHash: existingHash ?? null });
      report.editsSynced.push({ path: file.relativePath, chunks: chunks.length, warnings });
    } else {
      if (!statUnchanged) await store.upsertSource({ ...previous, size: file.size, mtimeMs: file.mtimeMs });
      report.unchanged.push(file.relativePath);
    }
    return;
  }

  // The hash of the bytes about to be parsed; compared again after parsing, so a source that
  // changes meanwhile is never recorded as the version that was read.
  const hashBefore = sourceHash ?? (await hashFileIfPresent(file.absolutePath));
  const format = formatFor(file.relativePath) ?? "unknown";
  let parsed: { drafts: ChunkDraft[]; title: string; pageCount: number | null; warnings: string[]; ocrPages: number[] | undefined } | undefined;
  let failure: { code: string; message: string } | undefined;
  if (hashBefore !== undefined) {
    try {
      const document = await context.runner.parse({
        path: file.absolutePath,
        password: options.password,
        limits: context.limits,
        ...(options.timeoutSeconds === undefined ? {} : { timeoutMs: options.timeoutSeconds * 1000 }),
      });
      const drafts = chunkDocument(document, context.chunking);
      if (drafts.length === 0) throw new ChunkpadError("PARSE_EMPTY", "no text found in the document");
      parsed = { drafts, title: document.title?.trim() || path.basename(file.relativePath), pageCount: document.pageCount ?? null, warnings: document.warnings, ocrPages: document.ocrPages };
    } catch (error) {
      failure = { code: isChunkpadError(error) ? error.code : "PARSE_FAILED", message: describeError(error) };
    }
  }

  const hashAfter = hashBefore === undefined ? undefined : await hashFileIfPresent(file.absolutePath);
  if (hashAfter === undefined) {
    // Deleted while it was read: nothing of it stays searchable.
    await forgetSource(context, place, file.relativePath, previous, report);
    return;
  }
  if (hashAfter !== hashBefore) {
    // Not recorded: the next run sees the new version and parses it.
    report.failed.push({ path: file.relativePath, code: "SOURCE_CHANGED", message: "changed while it was being read; it is read again on the next run", unchangedSinceFailure: false, retried: true });
    return;
  }

  if (!parsed) {
    const { code, message } = failure ?? { code: "PARSE_FAILED", message: "failed" };
    report.failed.push({ path: file.relativePath, code, message, unchangedSinceFailure: false, retried: RETRIED_FAILURES.has(code) });
    await store.upsertSource({
      folderId, relativePath: file.relativePath, size: file.size, mtimeMs: file.mtimeMs,
      sourceHash: hashBefore, chunkFileHash: previous?.chunkFileHash ?? null, syncedChunkFileHash: previous?.syncedChunkFileHash ?? null,
      status: "failed", errorCode: code, errorMessage: message, processedAt: new Date().toISOString(),
    });
    return;
  }

  const { drafts, title, pageCount, warnings, ocrPages } = parsed;
  const rendered = renderChunkFile(drafts, { source: file.relativePath });
  const processedSource = (chunkFileHash: string | null, syncedChunkFileHash: string | null): SourceRecord => ({
    folderId, relativePath: file.relativePath, size: file.size, mtimeMs: file.mtimeMs,
    sourceHash: hashBefore, chunkFileHash, syncedChunkFileHash,
    status: "processed", errorCode: null, errorMessage: null, processedAt: new Date().toISOString(),
  });
  // Edited by hand = differs from what Chunkpad last wrote there (or Chunkpad never wrote it).
  const userEdited = existingText !== undefined && existingText !== rendered && existingHash !== previous?.chunkFileHash;
  if (userEdited && !force) {
    // Never lose the user's work: keep their file and take its text into the index.
    const chunks = parseChunkFile(existingText);
    checkChunkSizes(chunks, shownChunk);
    await syncDocument(context, folderId, file, title, pageCount, chunks);
    if (resolution === "keep-mine") {
      // The edit wins over this version of the source; a later change of the source is a new conflict,
      // since the file still differs from what Chunkpad wrote.
      await store.upsertSource(processedSource(previous?.chunkFileHash ?? null, existingHash ?? null));
      report.editsSynced.push({ path: file.relativePath, chunks: chunks.length, warnings: [] });
      report.resolved.push({ path: file.relativePath, choice: "keep-mine" });
      return;
    }
    // The source state stays as it was, so the conflict is reported again until it is resolved.
    if (previous) await store.upsertSource({ ...previous, syncedChunkFileHash: existingHash ?? null });
    report.conflicts.push({
      path: file.relativePath,
      chunkFile: shownChunk,
      message: conflictMessage(place, file.relativePath, "the source changed and its chunk file was edited by hand"),
    });
    return;
  }

  if (existingText !== rendered) {
    // The user may have saved the chunk file while the source was parsed: look again just before writing.
    const textNow = await readChunkFileSafely(chunksRoot, chunkFile);
    if (textNow !== existingText && textNow !== undefined) {
      report.conflicts.push({
        path: file.relativePath,
        chunkFile: shownChunk,
        message: conflictMessage(place, file.relativePath, "its chunk file was saved while Chunkpad re-chunked the source; nothing was overwritten"),
      });
      return;
    }
    await writeChunkFileSafely(chunksRoot, chunkFile, rendered);
  }
  await syncDocument(context, folderId, file, title, pageCount, drafts);
  await store.upsertSource(processedSource(hashText(rendered), hashText(rendered)));
  if (resolution === "take-fresh") report.resolved.push({ path: file.relativePath, choice: "take-fresh" });
  report.processed.push({ path: file.relativePath, format, chunks: drafts.length, ...(pageCount ? { pages: pageCount } : {}), warnings, ...(ocrPages ? { ocrPages } : {}) });
  report.chunksWritten += drafts.length;
}

async function syncDocument(context: ProcessContext, folderId: string, file: WalkedFile, title: string, pageCount: number | null, chunks: ChunkDraft[]): Promise<void> {
  await context.store.syncDocument({
    folderId,
    relativePath: file.relativePath,
    title,
    documentType: formatFor(file.relativePath) ?? "unknown",
    fileSize: file.size,
    pageCount,
    chunks,
  });
}
