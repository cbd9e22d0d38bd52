import fs from "node:fs/promises";
import path from "node:path";
import { strFromU8 } from "fflate";
import { chunksRootFor } from "../../chunkfiles/paths.js";
import { hashFileIfPresent, isFolderWritable } from "../process/files.js";
import { ChunkpadError, isChunkpadError } from "../../core/errors.js";
import type { ModelIdentity } from "../../embedding/vector-fingerprint.js";
import { recordedMtimeMs } from "../../ingest/walk.js";
import { openZip, type ZipArchive } from "../../ingest/zip.js";
import type { MainStore, StoredFolder } from "../../store/index.js";
import { chunkingMeta } from "../process/process-folder.js";
import { badArchive, notAnArchive, parseManifest, type ArchiveProgress, type Manifest } from "./archive-format.js";
import { checkArchive, MANIFEST_ENTRY, type CheckedFolder } from "./archive-check.js";
import { createImportFiles, removeLeftoverStaging, removePlaced, type ImportFiles } from "./import-files.js";
import { checkVectors, recordEmbedding, restoreVectors } from "./import-vectors.js";

/**
 * `chunkpad import`: an archive restored where the user says (never where the archive says),
 * all or nothing: the whole archive is checked first (archive-check.ts), its files are staged
 * and its rows written under a pending mark, then the files are moved into place and the mark
 * cleared. A refused import changes nothing; a failed one is undone; an interrupted one (the
 * process killed) is undone by the next import into the same folder.
 */

export interface ImportOptions {
  /**
   * Where to restore: the folder for an archive of one folder, or the folder to hold one
   * subfolder per archived folder. Required: an archive never chooses where its files go.
   */
  into?: string;
  /** What a relative `into` or archive path is resolved against (default: this process's working folder). */
  cwd?: string;
  /** Import without the archive's vectors, so they can be made with the configured model. */
  reembed?: boolean;
  /** How far the import is: reading the archive, documents restored, files placed. */
  onArchiveProgress?: (progress: ArchiveProgress) => void;
}

export interface ImportedFolder {
  rootPath: string;
  folderId: string;
  documents: number;
  chunks: number;
  excluded: number;
  vectors: number;
  chunkFilesWritten: number;
  sourcesWritten: number;
  /** Documents whose source file is here with the same bytes (so later runs see them unchanged). */
  sourcesFound: number;
  /** Documents whose source file is not here: their chunks are searchable; the original cannot be opened. */
  sourcesMissing: string[];
}

export interface ImportReport {
  file: string;
  embeddingModel: string | null;
  /** Why the archive's vectors were not imported, when they were not. */
  vectorsSkipped: string | null;
  /** Settings changed to the archive's embedding model (only where the config had not chosen one). */
  configChanged: Array<{ key: string; value: string }>;
  folders: ImportedFolder[];
}

export interface ImportDependencies {
  store: MainStore;
  /** The configured embedding model, when it can be told from the config; vectors of another model are refused. */
  configuredIdentity: ModelIdentity | null;
  /** Where a read-only folder's chunk files go. */
  fallbackChunksRoot: (folderId: string) => string;
  /**
   * Makes the archive's model the configured one when the user has not chosen a model (the
   * setting is at its default); returns the settings it changed, or null when it would not.
   */
  adoptModel?: (embedder: Record<string, unknown>) => Array<{ key: string; value: string }> | null;
  /** Refuses (FOLDER_ELSEWHERE) a destination already added by another machine sharing the database. */
  checkOwner?: (folder: { id: string; rootPath: string }) => Promise<void>;
}

/**
 * Absolute limits, not a compression ratio alone: a repetitive log that export wrote compresses
 * a thousand times, and must import again. The whole archive is read into memory, so the file
 * itself stays under what one read can hold.
 */
export const MAX_ARCHIVE_FILE_BYTES = 2 * 1024 * 1024 * 1024 - 1;
export const MAX_ARCHIVE_ENTRY_BYTES = 1024 * 1024 * 1024;
export const MAX_ARCHIVE_TOTAL_BYTES = 8 * 1024 * 1024 * 1024;
const MAX_ARCHIVE_ENTRIES = 2_000_000;

/** The meta entry marking a folder whose import has not finished: its rows and files go if it never does. */
const PENDING_PREFIX = "import-pending:";

interface Pending {
  createdFolder: boolean;
  targets: string[];
}

interface Plan {
  checked: CheckedFolder;
  root: string;
  /** Documents whose source is already in the destination, with its hash. */
  existingSources: Map<string, string | undefined>;
}

export async function importArchive(dependencies: ImportDependencies, file: string, options: ImportOptions = {}): Promise<ImportReport> {
  const { store } = dependencies;
  const cwd = options.cwd ?? process.cwd();
  const absolute = path.resolve(cwd, file);
  const stat = await fs.stat(absolute).catch((error: NodeJS.ErrnoException) => {
    throw new ChunkpadError("NOT_FOUND", `Cannot read ${absolute} (${error.code ?? error.message}).`, { nextSteps: [{ action: "use-export-archive" }] });
  });
  if (!stat.isFile()) throw notAnArchive(absolute);
  if (stat.size > MAX_ARCHIVE_FILE_BYTES) throw badArchive(absolute, `it is ${(stat.size / 1024 ** 3).toFixed(1)} GB, more than the 2 GB an archive may be; export fewer folders at a time`);
  options.onArchiveProgress?.({ stage: "reading", done: 0, total: 1, folder: null });
  const { manifest, checked } = readArchive(new Uint8Array(await fs.readFile(absolute)), absolute);

  if (options.into === undefined || options.into.trim() === "") {
    throw new ChunkpadError(
      "INVALID_ARGUMENT",
      `Say where to restore ${absolute}: an archive never chooses where its files go (it was exported from ${manifest.folders.map((folder) => folder.rootPath).join(", ")}).`,
      { nextSteps: [{ action: "choose-import-folder", archive: file }] },
    );
  }
  const into = path.resolve(cwd, options.into);
  const report: ImportReport = { file: absolute, embeddingModel: manifest.embedding?.model ?? null, vectorsSkipped: null, configChanged: [], folders: [] };

  // Every destination checked before anything is written: an import either starts clean or not at all.
  const plans: Plan[] = [];
  for (const [index, folder] of checked.entries()) {
    const root = await destination(into, manifest.folders.length === 1 ? null : subfolderName(folder.archived.rootPath, index, plans.map((plan) => plan.root)));
    const known = await store.getFolderByPath(root);
    // Another machine's folder is refused before anything else: not even a pending import of it is undone from here.
    if (known) await dependencies.checkOwner?.(known);
    if (known) await undoPendingImport(store, known);
    if (known && (await store.listDocuments(known.id)).length > 0) {
      throw new ChunkpadError("INVALID_ARGUMENT", `${root} is already added with documents; importing would mix two indexes.`, { nextSteps: [{ action: "import-elsewhere" }, { action: "remove-folder", folder: root }] });
    }
    await removeLeftoverStaging(root);
    await removeLeftoverStaging(chunksRootFor(root));
    const existingSources = new Map<string, string | undefined>();
    for (const document of folder.archived.documents) {
      const sourcePath = path.join(root, ...document.relativePath.split("/"));
      if (await fs.lstat(sourcePath).catch(() => undefined)) existingSources.set(document.relativePath, await hashFileIfPresent(sourcePath).catch(() => undefined));
    }
    plans.push({ checked: folder, root, existingSources });
  }
  const importVectors = await checkVectors(dependencies, manifest, options, report);

  const files = createImportFiles(stat.mode);
  const written: Array<{ folder: StoredFolder; createdFolder: boolean }> = [];
  try {
    const total = plans.reduce((sum, plan) => sum + plan.checked.archived.documents.length, 0);
    let done = 0;
    for (const plan of plans) {
      const restored = () => options.onArchiveProgress?.({ stage: "restoring", done: ++done, total, folder: plan.root });
      report.folders.push(await importFolder(dependencies, plan, files, importVectors ? manifest.embedding : null, written, restored));
    }
    options.onArchiveProgress?.({ stage: "placing", done: 0, total: 1, folder: null });
    await files.place();
    for (const [index, { folder }] of written.entries()) {
      const archived = plans[index]?.checked.archived;
      if (importVectors && manifest.embedding && archived && (report.folders[index]?.vectors ?? 0) > 0) await recordEmbedding(store, manifest.embedding, folder.id, archived.chunking);
    }
    for (const { folder } of written) await store.deleteMeta(PENDING_PREFIX + folder.id);
    await files.finish(false);
  } catch (error) {
    await files.finish(true).catch(() => undefined);
    for (const { folder, createdFolder } of written.reverse()) await undoRows(store, folder, createdFolder).catch(() => undefined);
    if (isChunkpadError(error, "CHUNK_FILE_LINK")) throw new ChunkpadError("CHUNK_FILE_LINK", `${error.message.replace("in its chunk folder", "where it writes")} Nothing was imported.`);
    throw error;
  }
  return report;
}

/** Opens and checks the whole archive; any problem is one clean error, never a stack trace. */
function readArchive(bytes: Uint8Array, file: string): { manifest: Manifest; checked: CheckedFolder[] } {
  let zip: ZipArchive;
  try {
    zip = openZip(bytes, { limits: { maxDecompressedBytes: MAX_ARCHIVE_TOTAL_BYTES, maxArchiveEntries: MAX_ARCHIVE_ENTRIES }, strict: { maxEntryBytes: MAX_ARCHIVE_ENTRY_BYTES } });
  } catch {
    throw notAnArchive(file);
  }
  let manifestBytes: Uint8Array | undefined;
  try {
    manifestBytes = zip.read(MANIFEST_ENTRY);
  } catch (error) {
    throw badArchive(file, isChunkpadError(error) ? error.message.replace(/ if you trust the file.*$/, "") : "its manifest cannot be read");
  }
  if (!manifestBytes) throw notAnArchive(file);
  const manifest = parseManifest(strFromU8(manifestBytes), file);
  return { manifest, checked: checkArchive(zip, manifest, file) };
}

/** The folder to restore into: `into` itself, or a subfolder of it; a file there is refused. */
async function destination(into: string, subfolder: string | null): Promise<string> {
  const wanted = subfolder === null ? into : path.join(into, subfolder);
  const stat = await fs.stat(wanted).catch(() => undefined);
  if (stat && !stat.isDirectory()) throw new ChunkpadError("INVALID_ARGUMENT", `${wanted} is a file, not a folder.`, { nextSteps: [{ action: "import-elsewhere" }] });
  if (stat) return fs.realpath(wanted);
  // Not there yet: made under the real path of its nearest existing parent.
  let parent = path.dirname(wanted);
  const missing = [path.basename(wanted)];
  while (!(await fs.stat(parent).catch(() => undefined))?.isDirectory() && path.dirname(parent) !== parent) {
    missing.unshift(path.basename(parent));
    parent = path.dirname(parent);
  }
  return path.join(await fs.realpath(parent), ...missing);
}

/** An archived folder's subfolder name under --into: its old name (a plain one), made unique. */
function subfolderName(rootPath: string, index: number, taken: readonly string[]): string {
  const base = path.basename(rootPath.replace(/[\\/]+$/, "")).replace(/[^\p{L}\p{N} ._-]/gu, "_").replace(/^\.+/, "") || `folder-${index + 1}`;
  let name = base;
  for (let suffix = 2; taken.some((root) => path.basename(root) === name); suffix++) name = `${base}-${suffix}`;
  return name;
}

/** Stages one folder's files and writes its rows under the pending mark. */
async function importFolder(
  dependencies: ImportDependencies,
  { checked, root, existingSources }: Plan,
  files: ImportFiles,
  embedding: Manifest["embedding"],
  written: Array<{ folder: StoredFolder; createdFolder: boolean }>,
  onDocument: () => void,
): Promise<ImportedFolder> {
  const { store } = dependencies;
  const { archived } = checked;
  const createdFolder = !(await store.getFolderByPath(root));
  let folder: StoredFolder = await store.upsertFolder(root, chunksRootFor(root));
  written.push({ folder, createdFolder });
  const pending: Pending = { createdFolder, targets: [] };
  await store.setMeta(PENDING_PREFIX + folder.id, JSON.stringify(pending));
  await files.makeFolder(root);
  const chunksExisted = Boolean(await fs.lstat(folder.chunksRootPath).catch(() => undefined));
  const writable = await isFolderWritable(folder.chunksRootPath);
  if (!chunksExisted && (await fs.lstat(folder.chunksRootPath).catch(() => undefined))) files.track(folder.chunksRootPath);
  if (!writable) folder = await store.upsertFolder(root, dependencies.fallbackChunksRoot(folder.id));
  const imported: ImportedFolder = { rootPath: root, folderId: folder.id, documents: 0, chunks: 0, excluded: 0, vectors: 0, chunkFilesWritten: 0, sourcesWritten: 0, sourcesFound: 0, sourcesMissing: [] };

  const placedSources = new Map<string, { hash: string; size: number; mtimeMs: number }>();
  for (const [relative, data] of checked.sources) {
    if (existingSources.has(relative)) continue;
    const document = archived.documents.find((candidate) => candidate.relativePath === relative);
    const staged = await files.stage(root, path.join(root, ...relative.split("/")), data, document?.source?.mtimeMs);
    const stat = await fs.stat(staged.staged);
    if (document?.source?.sourceHash) placedSources.set(relative, { hash: document.source.sourceHash, size: stat.size, mtimeMs: recordedMtimeMs(stat) });
    imported.sourcesWritten += 1;
  }
  for (const [relative, data] of checked.chunkFiles) {
    const target = path.join(folder.chunksRootPath, ...relative.split("/"));
    // A chunk file already here is the user's: it is never overwritten; the next run takes it in.
    if (await fs.lstat(target).catch(() => undefined)) continue;
    await files.stage(folder.chunksRootPath, target, data);
    imported.chunkFilesWritten += 1;
  }
  pending.targets = [...files.targets];
  await store.setMeta(PENDING_PREFIX + folder.id, JSON.stringify(pending));

  await store.setFolderSettings(folder.id, { chunkSizeTokens: archived.chunking.chunkSizeTokens, chunkOverlapTokens: archived.chunking.chunkOverlapTokens });
  await store.setNewChunksIncluded(folder.id, archived.newChunksIncluded);
  // The chunks were made with these settings: the next run must not re-chunk them all.
  const recorded = chunkingMeta(folder.id, archived.chunking);
  await store.setMeta(recorded.key, recorded.value);

  for (const document of archived.documents) {
    await store.syncDocument({
      folderId: folder.id,
      relativePath: document.relativePath,
      title: document.title,
      documentType: document.documentType,
      fileSize: document.fileSize,
      pageCount: document.pageCount,
      chunks: document.chunks.map((chunk) => ({ content: chunk.content, meta: chunk.meta })),
    });
    onDocument();
    const refs = (await store.listChunks({ folderId: folder.id, relativePath: document.relativePath })).map((chunk) => chunk.ref);
    const excluded = document.chunks.flatMap((chunk, index) => (chunk.included ? [] : [refs[index] as string]));
    const included = document.chunks.flatMap((chunk, index) => (chunk.included ? [refs[index] as string] : []));
    if (excluded.length > 0) await store.setIncluded(excluded, false);
    if (included.length > 0) await store.setIncluded(included, true);
    imported.documents += 1;
    imported.chunks += document.chunks.length;
    imported.excluded += excluded.length;
    // The source record only when this machine has the same bytes: then later runs see it unchanged.
    const sourcePath = path.join(root, ...document.relativePath.split("/"));
    const placed = placedSources.get(document.relativePath);
    const existingHash = existingSources.get(document.relativePath);
    const found = placed ?? (document.source && existingHash !== undefined && existingHash === document.source.sourceHash ? await fs.stat(sourcePath).then((stat) => ({ hash: existingHash, size: stat.size, mtimeMs: recordedMtimeMs(stat) })) : undefined);
    if (document.source && found) {
      await store.upsertSource({
        folderId: folder.id, relativePath: document.relativePath, size: found.size, mtimeMs: found.mtimeMs,
        sourceHash: found.hash, chunkFileHash: document.source.chunkFileHash, syncedChunkFileHash: document.source.syncedChunkFileHash,
        status: "processed", errorCode: null, errorMessage: null, processedAt: new Date().toISOString(),
      });
      imported.sourcesFound += 1;
    } else {
      imported.sourcesMissing.push(document.relativePath);
    }
  }

  // What could not be indexed stays known while the file is unchanged: no parsing it again.
  for (const file of archived.unindexed ?? []) {
    const sourcePath = path.join(root, ...file.relativePath.split("/"));
    const placed = placedSources.get(file.relativePath);
    if (!placed && (await hashFileIfPresent(sourcePath)) !== file.sourceHash) continue;
    const stat = await fs.stat(sourcePath);
    await store.upsertSource({
      folderId: folder.id, relativePath: file.relativePath, size: stat.size, mtimeMs: recordedMtimeMs(stat),
      sourceHash: file.sourceHash, chunkFileHash: null, syncedChunkFileHash: null,
      status: file.status, errorCode: file.errorCode, errorMessage: file.errorMessage, processedAt: new Date().toISOString(),
    });
  }

  if (embedding && checked.vectors) imported.vectors = await restoreVectors(store, checked.vectors, archived, folder, embedding.dimensions);
  const documents = await store.listDocuments(folder.id);
  await store.updateFolderStats(folder.id, { fileCount: documents.length, chunkCount: imported.chunks, lastProcessedAt: new Date().toISOString() });
  return imported;
}

/** A folder whose import never finished (the process was killed): its rows and placed files go, so a new try starts clean. */
async function undoPendingImport(store: MainStore, folder: StoredFolder): Promise<void> {
  const mark = await store.getMeta(PENDING_PREFIX + folder.id);
  if (mark === null) return;
  let pending: Pending = { createdFolder: true, targets: [] };
  try {
    pending = { ...pending, ...(JSON.parse(mark) as Partial<Pending>) };
  } catch {
    // A damaged mark: the rows go all the same.
  }
  await removePlaced(pending.targets.filter((target) => typeof target === "string"));
  await undoRows(store, folder, pending.createdFolder);
}

/** Takes out what an import wrote to the database for one folder. */
async function undoRows(store: MainStore, folder: StoredFolder, createdFolder: boolean): Promise<void> {
  if (createdFolder) {
    await store.removeFolder(folder.id);
    await store.deleteMeta(chunkingMeta(folder.id, { chunkSizeTokens: 0, chunkOverlapTokens: 0 }).key);
  } else {
    for (const document of await store.listDocuments(folder.id)) {
      await store.deleteDocument(folder.id, document.relativePath);
      await store.deleteSource(folder.id, document.relativePath);
    }
  }
  await store.deleteMeta(PENDING_PREFIX + folder.id);
}
