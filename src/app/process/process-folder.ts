import fs from "node:fs/promises";
import path from "node:path";
import { ChunkpadError } from "../../core/errors.js";
import type { ChunkingOptions, ParseLimits } from "../../core/types.js";
import { chunkFilePathIn, chunksRootFor } from "../../chunkfiles/paths.js";
import { readChunkFileSafely, removeChunkFileSafely } from "../../chunkfiles/safe-files.js";
import { hashText } from "../../chunkfiles/hash.js";
import { isTextFile, mayTakeSeconds, supportedExtensions } from "../../ingest/registry.js";
import type { ParseRunner } from "../../ingest/parse-runner.js";
import { walkFolder, type WalkSkip } from "../../ingest/walk.js";
import type { MainStore } from "../../store/index.js";
import type { SourceRecord } from "../../store/index.js";
import { isFolderWritable } from "./files.js";
import { processOne, MAX_CHUNK_TEXT_BYTES } from "./process-file.js";
import { shownChunkFile, type FolderPlace } from "./place.js";
import { applyRenames, recheckMovedDuringWalk, type Rename } from "./renames.js";
import { fileProblem } from "./file-problems.js";
import { checkFolderSpec } from "../folder-lookup.js";
import type { NextStep } from "../../core/next-step.js";

export { MAX_CHUNK_TEXT_BYTES };

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
  /** Settling it: keep the edits, or take fresh chunks. */
  nextSteps: NextStep[];
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
  /** Files renamed or moved inside the folder: same bytes, new path; chunks, review decisions and vectors went with them. */
  renamed: Rename[];
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
  /**
   * Chunkpad's own folders (data: the database and key file; config; cache: the models): never
   * processed, even inside an added folder, or the key file would become searchable text.
   */
  privateDirectories?: readonly string[];
}

const CHUNKING_META_PREFIX = "chunking:";

/**
 * How long a run's document writes may wait to be committed together. Long enough to take in
 * dozens of small files per commit, short enough that another writer (an embed run, the server)
 * waits little for the lock, which is free while files are parsed.
 */
const COMMIT_GROUP_MAX_DELAY_MS = 200;

/**
 * The order files are started in: those that may take seconds (PDFs, images) first, the largest
 * first, then the rest, the largest first. The long files then run beside many short ones
 * instead of one of them finishing alone at the end of the run with the other core idle.
 */
export function startOrder<File extends { relativePath: string; size: number }>(files: readonly File[]): File[] {
  const slow = new Map(files.map((file) => [file, mayTakeSeconds(file.relativePath)]));
  return [...files].sort((first, second) => Number(slow.get(second)) - Number(slow.get(first)) || second.size - first.size);
}

/** The meta entry that says which chunk settings a folder's chunks were made with (a change re-chunks it). */
export function chunkingMeta(folderId: string, chunking: ChunkingOptions): { key: string; value: string } {
  return { key: CHUNKING_META_PREFIX + folderId, value: JSON.stringify([chunking.chunkSizeTokens, chunking.chunkOverlapTokens]) };
}

/**
 * Step 1: parse every document in a folder into `_chunks/` markdown files and the keyword
 * index. Incremental: unchanged sources are skipped, changed ones re-chunked, vanished ones
 * cleaned up. A chunk file the user edited is never overwritten without `force`; links inside
 * the chunk folder are never followed; a read-only folder keeps its chunk files in the data dir.
 */
export async function processFolder(context: ProcessContext, folderPath: string, options: ProcessFolderOptions = {}): Promise<ProcessReport> {
  const started = Date.now();
  const root = await resolveFolder(folderPath);
  const privateDirectories = await realPaths(context.privateDirectories ?? []);
  const inside = privateDirectories.find((directory) => root === directory || root.startsWith(directory + path.sep));
  if (inside !== undefined) {
    throw new ChunkpadError("INVALID_ARGUMENT", `${root} is inside Chunkpad's own data folder (${inside}), which holds its database and keys and is never indexed. Add a folder of your documents instead.`);
  }
  const { store } = context;
  let folder = await store.upsertFolder(root, chunksRootFor(root));
  const chunksInDataDir = !(await isFolderWritable(chunksRootFor(root)));
  if (chunksInDataDir) folder = await store.upsertFolder(root, context.fallbackChunksRoot(folder.id));
  const chunksRoot = folder.chunksRootPath;
  // Before any chunk is stored, so a first add with new text excluded never includes anything.
  if (options.newChunksIncluded !== undefined) await store.setNewChunksIncluded(folder.id, options.newChunksIncluded);
  const report: ProcessReport = {
    folder: { id: folder.id, rootPath: folder.rootPath, chunksRootPath: chunksRoot },
    processed: [], unchanged: [], editsSynced: [], skipped: [], failed: [], conflicts: [], removed: [], renamed: [], keptEdits: [], resolved: [],
    chunksInDataDir, chunksWritten: 0, durationMs: 0,
  };

  options.onProgress?.({ phase: "scan", done: 0, total: 0 });
  const walk = await walkFolder(root, {
    supportedExtensions: supportedExtensions(),
    isText: isTextFile,
    maxFileSizeBytes: context.maxFileSizeBytes,
    skipDirectories: new Map([
      ...(await nestedChunkRoots(store, folder.id, root)),
      ...privateDirectories.filter((directory) => directory.startsWith(root + path.sep)).map((directory) => [directory, "Chunkpad's own data (database, keys, models): never indexed"] as const),
    ]),
  });
  report.skipped = walk.skipped;
  const walkSkips = walk.skipped.length;

  const { key: chunkingMetaKey, value: chunkingKey } = chunkingMeta(folder.id, context.chunking);
  const previous = new Map((await store.listSources(folder.id)).map((source) => [source.relativePath, source]));
  // A folder with nothing recorded yet is chunked with today's settings from its first file on,
  // so a first run that is interrupted does not make the next one re-chunk everything.
  if (previous.size === 0) await store.setMeta(chunkingMetaKey, chunkingKey);
  const settingsChanged = await store.getMeta(chunkingMetaKey) !== chunkingKey;
  const place: FolderPlace = { folderId: folder.id, root, chunksRoot, checkedFolders: new Set() };
  const present = new Set([...walk.files.map((file) => file.relativePath), ...walk.skipped.map((skip) => skip.relativePath)]);
  options.onProgress?.({ phase: "scan", done: walk.files.length, total: walk.files.length });
  const files = await recheckMovedDuringWalk(walk.files, present, previous);
  report.renamed = await applyRenames(store, place, files, present, previous);

  /** Files finished; `done` of them are durable (their writes committed), the count progress reports. */
  let finished = 0;
  let done = 0;
  const total = files.length;
  const queue = startOrder(files);
  // Many documents per commit where the store can group them; a file counts as done once committed,
  // so a run killed at any moment loses nothing it reported done.
  const group = store.startCommitGroup?.({
    maxDelayMs: COMMIT_GROUP_MAX_DELAY_MS,
    onCommit: () => {
      if (done === finished) return;
      done = finished;
      options.onProgress?.({ phase: "process", done, total });
    },
  });
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
      finished += 1;
      if (!group) done = finished;
      options.onProgress?.({ phase: "process", done, total, file: file.relativePath });
    }
  };
  try {
    await Promise.all(Array.from({ length: Math.max(1, context.concurrency) }, work));

    // Sources that are gone from disk: their chunk files and rows go too. A file that is still
    // there but skipped this time (too large, say) keeps what it had.
    options.onProgress?.({ phase: "cleanup", done, total });
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
  } finally {
    // Commits what the files finished so far wrote, a cancelled or failed run's too (each file's writes are complete).
    await group?.end();
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
  // The walk's skips first, as found; then the files found empty when parsed, in path order (they are started largest first).
  report.skipped = [...report.skipped.slice(0, walkSkips), ...report.skipped.slice(walkSkips).sort((a, b) => byPath({ path: a.relativePath }, { path: b.relativePath }))];
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

/** A source that is gone: its rows go, and its chunk file unless the user edited it. */
export async function forgetSource(context: ProcessContext, place: FolderPlace, relativePath: string, source: SourceRecord | undefined, report: ProcessReport): Promise<void> {
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
  for (const other of await store.listFolderPlaces()) {
    if (other.id !== folderId && other.chunksRootPath.startsWith(root + path.sep)) {
      skip.set(other.chunksRootPath, `chunk files of the added folder ${other.rootPath}`);
    }
  }
  return skip;
}

/** Real paths of the folders that exist (a link to the data folder is the data folder). */
async function realPaths(directories: readonly string[]): Promise<string[]> {
  const found = await Promise.all(directories.map((directory) => fs.realpath(path.resolve(directory)).catch(() => undefined)));
  return [...new Set(found.filter((directory): directory is string => directory !== undefined))];
}

async function resolveFolder(folderPath: string): Promise<string> {
  checkFolderSpec(folderPath);
  try {
    const resolved = await fs.realpath(path.resolve(folderPath));
    if (!(await fs.stat(resolved)).isDirectory()) throw new Error("not a directory");
    return resolved;
  } catch {
    throw new ChunkpadError("FOLDER_NOT_FOUND", `${folderPath} is not a folder. Give the path of a folder of documents, e.g. ~/Documents/reports.`);
  }
}
