import path from "node:path";
import { ChunkpadError, describeError, isChunkpadError } from "../../core/errors.js";
import type { ChunkDraft } from "../../core/types.js";
import { chunkDocument } from "../../chunking/chunker.js";
import { parseChunkFile, readChunkFileText, renderChunkFile } from "../../chunkfiles/format.js";
import { chunkFilePathIn } from "../../chunkfiles/paths.js";
import { lstatChunkFileSafely, narrowChunkFileMode, readChunkFileSafely, writeChunkFileSafely } from "../../chunkfiles/safe-files.js";
import { hashText } from "../../chunkfiles/hash.js";
import { formatFor, mayTakeSeconds } from "../../ingest/registry.js";
import type { WalkedFile } from "../../ingest/walk.js";
import type { SourceRecord } from "../../store/index.js";
import { hashFile, hashFileIfPresent, snapshotSource } from "./files.js";
import { forgetSource, type ChunkFileConflict, type ProcessContext, type ProcessFolderOptions, type ProcessReport } from "./process-folder.js";
import { shownChunkFile, type FolderPlace } from "./place.js";
import { NOTHING_TO_INDEX, RETRIED_FAILURES } from "./file-problems.js";
import { chunkFileStatOf, chunkFileUnchanged } from "./chunk-file-stat.js";

/** Step 1 for one source file: parse, chunk, write its chunk file (never over a hand edit), sync the database. */

/**
 * The largest chunk a hand edit may hold. The chunker makes chunks of a few hundred tokens; a
 * megabyte of text in one chunk is a paste gone wrong, and would make every search slow.
 */
export const MAX_CHUNK_TEXT_BYTES = 1024 * 1024;

export interface OneFileOptions extends ProcessFolderOptions {
  settingsChanged: boolean;
}

/** Refuses a hand-edited chunk file with a chunk too large to index sensibly. */
export function checkChunkSizes(chunks: readonly ChunkDraft[], chunkFile: string): void {
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

export function formatMegabytes(bytes: number): string {
  return `${(bytes / 1024 / 1024).toFixed(1)} MB`;
}

/** A conflict's message (what happened; the edits are kept) and its next step, settling it. */
export function conflictOf(place: FolderPlace, relativePath: string, chunkFile: string, reason: string): ChunkFileConflict {
  return { path: relativePath, chunkFile, message: `${reason}; kept your edits.`, nextSteps: [{ action: "resolve-conflict", source: path.join(place.root, relativePath) }] };
}

export async function processOne(context: ProcessContext, place: FolderPlace, file: WalkedFile, previous: SourceRecord | undefined, options: OneFileOptions, report: ProcessReport): Promise<void> {
  const { store } = context;
  const { folderId, chunksRoot } = place;
  const chunkFile = chunkFilePathIn(chunksRoot, file.relativePath);
  const shownChunk = shownChunkFile(place, chunkFile);
  const resolution = options.resolve?.relativePath === file.relativePath ? options.resolve.choice : undefined;
  const force = Boolean(options.force) || resolution === "take-fresh";
  const chunkStats = await lstatChunkFileSafely(chunksRoot, chunkFile, place.checkedFolders);
  const statUnchanged = previous !== undefined && previous.size === file.size && previous.mtimeMs === file.mtimeMs;
  // Nothing changed, by the stats of the source and of its chunk file: nothing is read or hashed.
  if (previous?.status === "processed" && statUnchanged && !force && !options.settingsChanged && chunkFileUnchanged(previous, chunkStats, file.mode)) {
    report.unchanged.push(file.relativePath);
    return;
  }
  const existingText = chunkStats === undefined ? undefined : await readChunkFileSafely(chunksRoot, chunkFile);
  const existingHash = existingText === undefined ? undefined : hashText(existingText);
  /** The chunk file as it was just read, to be recorded beside the hash of what was read. */
  const readStat = chunkStats && existingHash !== undefined ? chunkFileStatOf(chunkStats, existingHash) : null;

  // A file that failed before and has not changed is not parsed again, unless the failure may
  // not recur (a timeout, a permission problem) or a password or --force says otherwise.
  if (previous?.status === "failed" && statUnchanged && !force && options.password === undefined && !RETRIED_FAILURES.has(previous.errorCode ?? "")) {
    report.failed.push({ path: file.relativePath, code: previous.errorCode ?? "PARSE_FAILED", message: previous.errorMessage ?? "failed", unchangedSinceFailure: true, retried: false });
    return;
  }

  // A file with nothing to index (empty, pictures only) stays a skip until it changes.
  if (previous?.status === "skipped" && statUnchanged && !force && options.password === undefined) {
    report.skipped.push({ relativePath: file.relativePath, reason: previous.errorMessage ?? "nothing to index" });
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
    // A chunk file written before the document was made private (or by an older Chunkpad) is narrowed too.
    await narrowChunkFileMode(chunksRoot, chunkFile, { sourcePath: file.absolutePath });
    if (existingHash !== previous.syncedChunkFileHash) {
      // The user edited the chunk file: its text is the truth for this source's chunks.
      const { chunks, warnings } = readChunkFileText(existingText);
      checkChunkSizes(chunks, shownChunk);
      const document = await store.getDocumentByPath(folderId, file.relativePath);
      await syncDocument(context, folderId, file, document?.title ?? path.basename(file.relativePath), document?.pageCount ?? null, chunks);
      await store.upsertSource({ ...previous, size: file.size, mtimeMs: file.mtimeMs, syncedChunkFileHash: existingHash ?? null, chunkFileStat: readStat });
      report.editsSynced.push({ path: file.relativePath, chunks: chunks.length, warnings });
    } else {
      if (!statUnchanged || previous.chunkFileStat !== readStat) await store.upsertSource({ ...previous, size: file.size, mtimeMs: file.mtimeMs, chunkFileStat: readStat });
      report.unchanged.push(file.relativePath);
    }
    return;
  }

  // The hash of the bytes about to be parsed; compared again after parsing, so a source that
  // changes meanwhile is never recorded as the version that was read.
  let hashBefore = sourceHash ?? (await hashFileIfPresent(file.absolutePath));
  const format = formatFor(file.relativePath) ?? "unknown";
  let { parsed, failure } = hashBefore === undefined ? { parsed: undefined, failure: undefined } : await parseSource(context, file, file.absolutePath, options);
  /** What is recorded as the version read: the walk's size and time, or the snapshot's. */
  let recorded = { size: file.size, mtimeMs: file.mtimeMs };

  const hashAfter = hashBefore === undefined ? undefined : await hashFileIfPresent(file.absolutePath);
  if (hashAfter === undefined) {
    // Deleted while it was read: nothing of it stays searchable.
    await forgetSource(context, place, file.relativePath, previous, report);
    return;
  }
  if (hashAfter !== hashBefore) {
    // A file that changes faster than it is parsed (a log appended to every moment) would never be
    // read whole: a private copy taken at one moment is parsed instead, and recorded as that version.
    const snapshot = await snapshotSource(file.absolutePath);
    const fromSnapshot = snapshot && (await parseSource(context, file, snapshot.path, options).finally(snapshot.remove));
    if (!snapshot || !fromSnapshot?.parsed) {
      // Not recorded: the next run sees the new version and parses it.
      report.failed.push({ path: file.relativePath, code: "SOURCE_CHANGED", message: "changed while it was being read; it is read again on the next run", unchangedSinceFailure: false, retried: true });
      return;
    }
    ({ parsed, failure } = fromSnapshot);
    hashBefore = snapshot.hash;
    recorded = { size: snapshot.size, mtimeMs: snapshot.mtimeMs };
  }

  if (!parsed) {
    const { code, message } = failure ?? { code: "PARSE_FAILED", message: "failed" };
    const nothingToIndex = NOTHING_TO_INDEX.has(code);
    if (nothingToIndex) report.skipped.push({ relativePath: file.relativePath, reason: message });
    else report.failed.push({ path: file.relativePath, code, message, unchangedSinceFailure: false, retried: RETRIED_FAILURES.has(code) });
    await store.upsertSource({
      folderId, relativePath: file.relativePath, size: file.size, mtimeMs: file.mtimeMs,
      sourceHash: hashBefore, chunkFileHash: previous?.chunkFileHash ?? null, syncedChunkFileHash: previous?.syncedChunkFileHash ?? null,
      status: nothingToIndex ? "skipped" : "failed", errorCode: code, errorMessage: message, processedAt: new Date().toISOString(),
    });
    return;
  }

  const { drafts, title, pageCount, warnings, ocrPages } = parsed;
  const rendered = renderChunkFile(drafts, { source: file.relativePath });
  const processedSource = (chunkFileHash: string | null, syncedChunkFileHash: string | null, chunkFileStat: string | null = null): SourceRecord => ({
    folderId, relativePath: file.relativePath, size: recorded.size, mtimeMs: recorded.mtimeMs,
    sourceHash: hashBefore, chunkFileHash, syncedChunkFileHash, chunkFileStat,
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
      await store.upsertSource(processedSource(previous?.chunkFileHash ?? null, existingHash ?? null, readStat));
      report.editsSynced.push({ path: file.relativePath, chunks: chunks.length, warnings: [] });
      report.resolved.push({ path: file.relativePath, choice: "keep-mine" });
      return;
    }
    // The source state stays as it was, so the conflict is reported again until it is resolved.
    if (previous) await store.upsertSource({ ...previous, syncedChunkFileHash: existingHash ?? null });
    report.conflicts.push(conflictOf(place, file.relativePath, shownChunk, "the source changed and its chunk file was edited by hand"));
    return;
  }

  const renderedHash = hashText(rendered);
  let writtenStat = readStat;
  if (existingText !== rendered) {
    // The user may have saved the chunk file while the source was parsed: look again just before writing.
    const textNow = await readChunkFileSafely(chunksRoot, chunkFile);
    if (textNow !== existingText && textNow !== undefined) {
      report.conflicts.push(conflictOf(place, file.relativePath, shownChunk, "its chunk file was saved while Chunkpad re-chunked the source; nothing was overwritten"));
      return;
    }
    writtenStat = chunkFileStatOf(await writeChunkFileSafely(chunksRoot, chunkFile, rendered, { sourcePath: file.absolutePath }), renderedHash);
  }
  await syncDocument(context, folderId, file, title, pageCount, drafts);
  await store.upsertSource(processedSource(renderedHash, renderedHash, writtenStat));
  if (resolution === "take-fresh") report.resolved.push({ path: file.relativePath, choice: "take-fresh" });
  report.processed.push({ path: file.relativePath, format, chunks: drafts.length, ...(pageCount ? { pages: pageCount } : {}), warnings, ...(ocrPages ? { ocrPages } : {}) });
  report.chunksWritten += drafts.length;
}

interface ParsedSource {
  drafts: ChunkDraft[];
  title: string;
  pageCount: number | null;
  warnings: string[];
  ocrPages: number[] | undefined;
}

/** Parses and chunks one source (or its snapshot at `filePath`); a failure comes back as data. */
async function parseSource(context: ProcessContext, file: WalkedFile, filePath: string, options: OneFileOptions): Promise<{ parsed?: ParsedSource | undefined; failure?: { code: string; message: string } | undefined }> {
  try {
    const document = await context.runner.parse({
      path: filePath,
      password: options.password,
      limits: context.limits,
      chunking: context.chunking,
      mayTakeSeconds: mayTakeSeconds(file.relativePath),
      ...(options.timeoutSeconds === undefined ? {} : { timeoutMs: options.timeoutSeconds * 1000 }),
    });
    // Chunked in the parse worker, where the text is; a runner that does not chunk leaves it to this thread.
    const drafts = document.drafts ?? chunkDocument(document, context.chunking);
    if (drafts.length === 0) throw new ChunkpadError("PARSE_EMPTY", "no text found in the document");
    return { parsed: { drafts, title: document.title?.trim() || path.basename(file.relativePath), pageCount: document.pageCount ?? null, warnings: document.warnings, ocrPages: document.ocrPages } };
  } catch (error) {
    return { failure: { code: isChunkpadError(error) ? error.code : "PARSE_FAILED", message: describeError(error) } };
  }
}

export async function syncDocument(context: ProcessContext, folderId: string, file: WalkedFile, title: string, pageCount: number | null, chunks: ChunkDraft[]): Promise<void> {
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
