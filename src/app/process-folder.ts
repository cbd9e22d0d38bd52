import fs from "node:fs/promises";
import path from "node:path";
import { ChunkpadError, describeError, isChunkpadError } from "../core/errors.js";
import type { ChunkDraft, ChunkingOptions, ParseLimits } from "../core/types.js";
import { chunkDocument } from "../chunking/chunker.js";
import { parseChunkFile, readChunkFileText, renderChunkFile } from "../chunkfiles/format.js";
import { chunkFilePathFor, chunksRootFor } from "../chunkfiles/paths.js";
import { removeChunkFile, writeTextAtomic } from "../chunkfiles/discover.js";
import { hashText } from "../chunkfiles/hash.js";
import { formatFor, supportedExtensions } from "../ingest/registry.js";
import type { ParseRunner } from "../ingest/parse-runner.js";
import { walkFolder, type WalkedFile, type WalkSkip } from "./walk.js";
import type { MainStore } from "../store/main-store.js";
import type { SourceRecord } from "../store/store-types.js";
import { hashFile } from "./files.js";

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
  onProgress?: (progress: ProcessProgress) => void;
  signal?: AbortSignal;
}

export interface ProcessedFile {
  path: string;
  format: string;
  chunks: number;
  pages?: number;
  warnings: string[];
}

export interface FailedFile {
  path: string;
  code: string;
  message: string;
  /** True when the file has not changed since it last failed, so it was not parsed again. */
  unchangedSinceFailure: boolean;
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
}

const CHUNKING_META_PREFIX = "chunking:";

/**
 * Step 1: parse every document in a folder into `_chunks/` markdown files and the keyword
 * index. Incremental: unchanged sources are skipped, changed ones re-chunked, vanished ones
 * cleaned up. A chunk file the user edited is never overwritten without `force`.
 */
export async function processFolder(context: ProcessContext, folderPath: string, options: ProcessFolderOptions = {}): Promise<ProcessReport> {
  const started = Date.now();
  const root = await resolveFolder(folderPath);
  const { store } = context;
  const folder = store.upsertFolder(root, chunksRootFor(root));
  const report: ProcessReport = {
    folder: { id: folder.id, rootPath: folder.rootPath, chunksRootPath: folder.chunksRootPath },
    processed: [], unchanged: [], editsSynced: [], skipped: [], failed: [], conflicts: [], removed: [], keptEdits: [], chunksWritten: 0, durationMs: 0,
  };

  options.onProgress?.({ phase: "scan", done: 0, total: 0 });
  const walk = await walkFolder(root, {
    supportedExtensions: supportedExtensions(),
    maxFileSizeBytes: context.maxFileSizeBytes,
    skipDirectories: nestedChunkRoots(store, folder.id, root),
  });
  report.skipped = walk.skipped;

  const chunkingKey = JSON.stringify([context.chunking.chunkSizeTokens, context.chunking.chunkOverlapTokens]);
  const settingsChanged = store.getMeta(CHUNKING_META_PREFIX + folder.id) !== chunkingKey;
  const previous = new Map(store.listSources(folder.id).map((source) => [source.relativePath, source]));

  let done = 0;
  const total = walk.files.length;
  const queue = [...walk.files];
  const work = async () => {
    for (let file = queue.shift(); file; file = queue.shift()) {
      if (options.signal?.aborted) throw new ChunkpadError("CANCELLED", "Processing was cancelled; run the same command again to finish.");
      options.onProgress?.({ phase: "process", done, total, file: file.relativePath });
      try {
        await processOne(context, folder.id, root, file, previous.get(file.relativePath), { ...options, settingsChanged }, report);
      } catch (error) {
        // A file that cannot be read or written (name too long, no permission) fails that document only.
        if (!isFileSystemError(error)) throw error;
        report.failed.push({ path: file.relativePath, ...fileProblem(error, root, file.relativePath), unchangedSinceFailure: false });
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
    const chunkFile = chunkFilePathFor(root, relativePath);
    const chunkText = await readIfExists(chunkFile);
    // A chunk file edited by hand is the user's work: the source going away does not delete it.
    if (chunkText !== undefined && hashText(chunkText) !== source.chunkFileHash) {
      report.keptEdits.push({ path: relativePath, chunkFile: path.relative(root, chunkFile).split(path.sep).join("/") });
    } else {
      await removeChunkFile(chunkFile, root);
    }
    store.deleteDocument(folder.id, relativePath);
    store.deleteSource(folder.id, relativePath);
    report.removed.push(relativePath);
  }

  if (report.failed.every((failure) => failure.code !== "CANCELLED")) store.setMeta(CHUNKING_META_PREFIX + folder.id, chunkingKey);
  const documents = store.listDocuments(folder.id);
  store.updateFolderStats(folder.id, {
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
  report.durationMs = Date.now() - started;
  options.onProgress?.({ phase: "done", done, total });
  return report;
}

/** The `_chunks/` folders of other added folders inside this one: their chunk files are not documents of this folder. */
function nestedChunkRoots(store: MainStore, folderId: string, root: string): Map<string, string> {
  const skip = new Map<string, string>();
  for (const other of store.listFolders()) {
    if (other.id !== folderId && other.chunksRootPath.startsWith(root + path.sep)) {
      skip.set(other.chunksRootPath, `chunk files of the added folder ${other.rootPath}`);
    }
  }
  return skip;
}

function isFileSystemError(error: unknown): error is NodeJS.ErrnoException {
  return error instanceof Error && typeof (error as NodeJS.ErrnoException).syscall === "string";
}

function fileProblem(error: NodeJS.ErrnoException, root: string, relativePath: string): { code: string; message: string } {
  const chunksRoot = chunksRootFor(root);
  if (typeof error.path !== "string" || !error.path.startsWith(chunksRoot + path.sep)) {
    return { code: "PARSE_FAILED", message: `cannot be read (${error.code ?? "error"}): ${error.message}` };
  }
  const chunkFile = path.relative(root, chunkFilePathFor(root, relativePath)).split(path.sep).join("/");
  if (error.code === "ENAMETOOLONG") {
    return { code: "CHUNK_FILE_INVALID", message: `its chunk file ${chunkFile} cannot be written: the name is too long for the file system. Rename the document to a shorter name.` };
  }
  if (error.code === "EACCES" || error.code === "EPERM" || error.code === "EROFS") {
    return { code: "CHUNK_FILE_INVALID", message: `its chunk file ${chunkFile} cannot be written (${error.code}): check that you may write to the folder's _chunks/ directory.` };
  }
  return { code: "CHUNK_FILE_INVALID", message: `its chunk file ${chunkFile} cannot be read or written: ${error.message}` };
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

async function processOne(context: ProcessContext, folderId: string, root: string, file: WalkedFile, previous: SourceRecord | undefined, options: OneFileOptions, report: ProcessReport): Promise<void> {
  const { store } = context;
  const chunkFile = chunkFilePathFor(root, file.relativePath);
  const existingText = await readIfExists(chunkFile);
  const existingHash = existingText === undefined ? undefined : hashText(existingText);
  const statUnchanged = previous !== undefined && previous.size === file.size && previous.mtimeMs === file.mtimeMs;

  // A file that failed before and has not changed is not parsed again (unless a password or --force says otherwise).
  if (previous?.status === "failed" && statUnchanged && !options.force && options.password === undefined) {
    report.failed.push({ path: file.relativePath, code: previous.errorCode ?? "PARSE_FAILED", message: previous.errorMessage ?? "failed", unchangedSinceFailure: true });
    return;
  }

  let sourceHash: string | undefined;
  let sourceUnchanged = false;
  if (previous?.status === "processed" && !options.force && !options.settingsChanged) {
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
      const document = store.getDocumentByPath(folderId, file.relativePath);
      syncDocument(context, folderId, file, document?.title ?? path.basename(file.relativePath), document?.pageCount ?? null, chunks);
      store.upsertSource({ ...previous, size: file.size, mtimeMs: file.mtimeMs, syncedChunkFileHash: existingHash ?? null });
      report.editsSynced.push({ path: file.relativePath, chunks: chunks.length, warnings });
    } else {
      if (!statUnchanged) store.upsertSource({ ...previous, size: file.size, mtimeMs: file.mtimeMs });
      report.unchanged.push(file.relativePath);
    }
    return;
  }

  const format = formatFor(file.relativePath) ?? "unknown";
  let drafts: ChunkDraft[];
  let title: string;
  let pageCount: number | null;
  let warnings: string[];
  try {
    const document = await context.runner.parse({ path: file.absolutePath, password: options.password, limits: context.limits });
    drafts = chunkDocument(document, context.chunking);
    title = document.title?.trim() || path.basename(file.relativePath);
    pageCount = document.pageCount ?? null;
    warnings = document.warnings;
    if (drafts.length === 0) throw new ChunkpadError("PARSE_EMPTY", "no text found in the document");
  } catch (error) {
    const code = isChunkpadError(error) ? error.code : "PARSE_FAILED";
    const message = describeError(error);
    report.failed.push({ path: file.relativePath, code, message, unchangedSinceFailure: false });
    store.upsertSource({
      folderId, relativePath: file.relativePath, size: file.size, mtimeMs: file.mtimeMs,
      sourceHash: sourceHash ?? previous?.sourceHash ?? null, chunkFileHash: previous?.chunkFileHash ?? null, syncedChunkFileHash: previous?.syncedChunkFileHash ?? null,
      status: "failed", errorCode: code, errorMessage: message, processedAt: new Date().toISOString(),
    });
    return;
  }

  const rendered = renderChunkFile(drafts, { source: file.relativePath });
  // Edited by hand = differs from what Chunkpad last wrote there (or Chunkpad never wrote it).
  const userEdited = existingText !== undefined && existingText !== rendered && existingHash !== previous?.chunkFileHash;
  if (userEdited && !options.force) {
    // Never lose the user's work: keep their file, take its text into the index, say so. The
    // source state stays as it was, so the conflict is reported again until it is resolved.
    const chunks = parseChunkFile(existingText);
    syncDocument(context, folderId, file, title, pageCount, chunks);
    if (previous) store.upsertSource({ ...previous, syncedChunkFileHash: existingHash ?? null });
    report.conflicts.push({
      path: file.relativePath,
      chunkFile: path.relative(root, chunkFile),
      message: "the source changed and its chunk file was edited by hand; kept your edits (run again with --force to replace them with fresh chunks)",
    });
    return;
  }

  if (existingText !== rendered) await writeTextAtomic(chunkFile, rendered);
  syncDocument(context, folderId, file, title, pageCount, drafts);
  store.upsertSource({
    folderId, relativePath: file.relativePath, size: file.size, mtimeMs: file.mtimeMs,
    sourceHash: sourceHash ?? (await hashFile(file.absolutePath)), chunkFileHash: hashText(rendered), syncedChunkFileHash: hashText(rendered),
    status: "processed", errorCode: null, errorMessage: null, processedAt: new Date().toISOString(),
  });
  report.processed.push({ path: file.relativePath, format, chunks: drafts.length, ...(pageCount ? { pages: pageCount } : {}), warnings });
  report.chunksWritten += drafts.length;
}

function syncDocument(context: ProcessContext, folderId: string, file: WalkedFile, title: string, pageCount: number | null, chunks: ChunkDraft[]): void {
  context.store.syncDocument({
    folderId,
    relativePath: file.relativePath,
    title,
    documentType: formatFor(file.relativePath) ?? "unknown",
    fileSize: file.size,
    pageCount,
    chunks,
  });
}

async function readIfExists(filePath: string): Promise<string | undefined> {
  try {
    return await fs.readFile(filePath, "utf8");
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === "ENOENT") return undefined;
    throw error;
  }
}
