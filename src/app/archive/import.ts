import fs from "node:fs/promises";
import path from "node:path";
import { strFromU8 } from "fflate";
import { chunksRootFor } from "../../chunkfiles/paths.js";
import { embedTextHash } from "../../core/chunk-ref.js";
import { ChunkpadError } from "../../core/errors.js";
import type { ChunkingOptions } from "../../core/types.js";
import { describeIdentity, databaseFingerprint, differingFields, readStoredFingerprint, sameIdentity, type ModelIdentity } from "../../embedding/vector-fingerprint.js";
import { recordedMtimeMs } from "../../ingest/walk.js";
import { openZip } from "../../ingest/zip.js";
import { META_KEYS, type MainStore, type StoredFolder } from "../../store/index.js";
import { hashFileIfPresent, isFolderWritable } from "../process/files.js";
import { chunkingMeta } from "../process/process-folder.js";
import { notAnArchive, parseManifest, type ArchivedFolder, type Manifest } from "./archive-format.js";

/** `chunkpad import`: an archive restored, every path inside checked (see archive-format.ts). */

export interface ImportOptions {
  /** The folder to restore into (an archive of one folder); default: where it was exported from. */
  into?: string;
  /** Import without the archive's vectors, so they can be made with the configured model. */
  reembed?: boolean;
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
}

/** Bytes an archive may expand to: generous (vectors of a million chunks), but not unbounded. */
const MAX_ARCHIVE_BYTES = 32 * 1024 * 1024 * 1024;

export async function importArchive({ store, configuredIdentity, fallbackChunksRoot, adoptModel }: ImportDependencies, file: string, options: ImportOptions = {}): Promise<ImportReport> {
  const absolute = path.resolve(file);
  const bytes = await fs.readFile(absolute).catch((error: NodeJS.ErrnoException) => {
    throw new ChunkpadError("NOT_FOUND", `Cannot read ${absolute} (${error.code ?? error.message}). Give the path of a file "chunkpad export" wrote.`);
  });
  let zip;
  try {
    zip = openZip(new Uint8Array(bytes), { limits: { maxDecompressedBytes: MAX_ARCHIVE_BYTES, maxArchiveEntries: 10_000_000 } });
  } catch {
    throw notAnArchive(absolute);
  }
  const manifestBytes = zip.read("manifest.json");
  if (!manifestBytes) throw notAnArchive(absolute);
  const manifest = parseManifest(strFromU8(manifestBytes), absolute);
  if (options.into !== undefined && manifest.folders.length !== 1) {
    throw new ChunkpadError("INVALID_ARGUMENT", `${absolute} holds ${manifest.folders.length} folders; --into works for an archive of one folder. Import without --into to restore each where it was, or export one folder with --folder.`);
  }
  const report: ImportReport = { file: absolute, embeddingModel: manifest.embedding?.model ?? null, vectorsSkipped: null, configChanged: [], folders: [] };
  const importVectors = await checkVectors({ store, configuredIdentity, fallbackChunksRoot, ...(adoptModel ? { adoptModel } : {}) }, manifest, options, report);

  // Checked for every folder before anything is written: an import either starts clean or not at all.
  const plans: Array<{ archived: ArchivedFolder; root: string }> = [];
  for (const archived of manifest.folders) {
    const root = path.resolve(options.into ?? archived.rootPath);
    const stat = await fs.stat(root).catch(() => undefined);
    if (stat && !stat.isDirectory()) throw new ChunkpadError("INVALID_ARGUMENT", `${root} is a file, not a folder. Give --into a folder to restore into.`);
    const real = stat ? await fs.realpath(root) : root;
    const known = await store.getFolderByPath(real);
    if (known && (await store.listDocuments(known.id)).length > 0) {
      throw new ChunkpadError("INVALID_ARGUMENT", `${real} is already added with documents; importing would mix two indexes. Import into another folder with --into, or remove it first ("chunkpad remove ${real}").`);
    }
    for (const relative of [...archived.chunkFiles, ...archived.sources, ...archived.documents.map((document) => document.relativePath), ...(archived.unindexed ?? []).map((file) => file.relativePath)]) checkEntryPath(relative, absolute);
    for (const relative of archived.sources) {
      const target = path.join(real, ...relative.split("/"));
      const existing = await fs.readFile(target).catch(() => undefined);
      const archivedBytes = zip.read(`${archived.prefix}sources/${relative}`);
      if (existing !== undefined && archivedBytes !== undefined && !Buffer.from(archivedBytes).equals(existing)) {
        throw new ChunkpadError("INVALID_ARGUMENT", `${target} exists with other content than the archive's copy; nothing was imported. Import into an empty folder with --into, or move the file away.`);
      }
    }
    plans.push({ archived, root: real });
  }

  for (const { archived, root } of plans) {
    await fs.mkdir(root, { recursive: true });
    let folder: StoredFolder = await store.upsertFolder(root, chunksRootFor(root));
    if (!(await isFolderWritable(folder.chunksRootPath))) folder = await store.upsertFolder(root, fallbackChunksRoot(folder.id));
    await store.setFolderSettings(folder.id, { chunkSizeTokens: archived.chunking.chunkSizeTokens, chunkOverlapTokens: archived.chunking.chunkOverlapTokens });
    await store.setNewChunksIncluded(folder.id, archived.newChunksIncluded);
    // The chunks were made with these settings: the next run must not re-chunk them all.
    const recorded = chunkingMeta(folder.id, archived.chunking);
    await store.setMeta(recorded.key, recorded.value);
    const imported: ImportedFolder = { rootPath: root, folderId: folder.id, documents: 0, chunks: 0, excluded: 0, vectors: 0, chunkFilesWritten: 0, sourcesWritten: 0, sourcesFound: 0, sourcesMissing: [] };

    for (const relative of archived.sources) {
      const data = zip.read(`${archived.prefix}sources/${relative}`);
      if (data === undefined) continue;
      const target = path.join(root, ...relative.split("/"));
      if (await fs.stat(target).catch(() => undefined)) continue;
      await fs.mkdir(path.dirname(target), { recursive: true });
      await fs.writeFile(target, data);
      const document = archived.documents.find((candidate) => candidate.relativePath === relative);
      if (document?.source) await fs.utimes(target, new Date(document.source.mtimeMs), new Date(document.source.mtimeMs));
      imported.sourcesWritten += 1;
    }
    for (const relative of archived.chunkFiles) {
      const data = zip.read(`${archived.prefix}chunks/${relative}`);
      if (data === undefined) continue;
      const target = path.join(folder.chunksRootPath, ...relative.split("/"));
      const existing = await fs.readFile(target).catch(() => undefined);
      // A chunk file already here is the user's: it is never overwritten; the next run takes it in.
      if (existing !== undefined) continue;
      await fs.mkdir(path.dirname(target), { recursive: true });
      await fs.writeFile(target, data);
      imported.chunkFilesWritten += 1;
    }

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
      const hash = document.source ? await hashFileIfPresent(sourcePath) : undefined;
      if (document.source && hash !== undefined && hash === document.source.sourceHash) {
        const stat = await fs.stat(sourcePath);
        await store.upsertSource({
          folderId: folder.id, relativePath: document.relativePath, size: stat.size, mtimeMs: recordedMtimeMs(stat),
          sourceHash: hash, chunkFileHash: document.source.chunkFileHash, syncedChunkFileHash: document.source.syncedChunkFileHash,
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
      if ((await hashFileIfPresent(sourcePath)) !== file.sourceHash) continue;
      const stat = await fs.stat(sourcePath);
      await store.upsertSource({
        folderId: folder.id, relativePath: file.relativePath, size: stat.size, mtimeMs: recordedMtimeMs(stat),
        sourceHash: file.sourceHash, chunkFileHash: null, syncedChunkFileHash: null,
        status: file.status, errorCode: file.errorCode, errorMessage: file.errorMessage, processedAt: new Date().toISOString(),
      });
    }

    if (importVectors && manifest.embedding && archived.vectors.length > 0) imported.vectors = await restoreVectors(store, zip.read(`${archived.prefix}vectors.f32`), archived, folder, manifest.embedding.dimensions);
    const documents = await store.listDocuments(folder.id);
    await store.updateFolderStats(folder.id, { fileCount: documents.length, chunkCount: imported.chunks, lastProcessedAt: new Date().toISOString() });
    if (importVectors && manifest.embedding && imported.vectors > 0) await recordEmbedding(store, manifest.embedding, folder.id, archived.chunking);
    report.folders.push(imported);
  }
  return report;
}

/** Whether the archive's vectors can go in: same model as the configured one and as the vectors already stored. */
async function checkVectors({ store, configuredIdentity: configured, adoptModel }: ImportDependencies, manifest: Manifest, options: ImportOptions, report: ImportReport): Promise<boolean> {
  const embedding = manifest.embedding;
  if (!embedding) return false;
  if (options.reembed) {
    report.vectorsSkipped = "--reembed: the chunks are embedded again with the configured model";
    return false;
  }
  const archivedBy = describeIdentity(embedding.embedder);
  if (configured && !sameIdentity(embedding.embedder, configured)) {
    const changed = (await store.vectorCount()) === 0 ? adoptModel?.(embedding.embedder) : null;
    if (changed) report.configChanged = changed;
  }
  if (configured && report.configChanged.length === 0 && !sameIdentity(embedding.embedder, configured)) {
    throw new ChunkpadError(
      "EMBEDDING_MISMATCH",
      `The archive's vectors were made by ${archivedBy}, but the configured embedding model is ${describeIdentity(configured)}; vectors of different models cannot be searched together. ` +
        `Import with --reembed to embed the chunks again with your model, or switch to the archive's model first ("chunkpad config set embedding.model ${String(embedding.embedder.model)}").`,
    );
  }
  if (!store.vectorAvailable) {
    report.vectorsSkipped = store.vectorUnavailableReason ?? "vector search is not available here";
    return false;
  }
  const stored = readStoredFingerprint(await store.getMeta(META_KEYS.embeddingFingerprint));
  const storedDimensions = await store.vectorDimensions();
  const differs = stored.embedder !== null && (await store.vectorCount()) > 0 && differingFields(stored.embedder, JSON.stringify(embedding.embedder)).length > 0;
  if (differs || (storedDimensions !== null && (await store.vectorCount()) > 0 && storedDimensions !== embedding.dimensions)) {
    throw new ChunkpadError(
      "EMBEDDING_MISMATCH",
      `The archive's vectors were made by ${archivedBy}, but the vectors already in the database by ${describeIdentity(stored.embedder ?? {})}. Import with --reembed to embed the archive's chunks with the model in use here.`,
    );
  }
  return true;
}

async function restoreVectors(store: MainStore, data: Uint8Array | undefined, archived: ArchivedFolder, folder: StoredFolder, dimensions: number): Promise<number> {
  if (!data || data.byteLength !== archived.vectors.length * dimensions * 4) return 0;
  const values = new Float32Array(data.buffer.slice(data.byteOffset, data.byteOffset + data.byteLength));
  await store.ensureVectorTable(dimensions);
  const chunks = new Map((await store.listChunks({ folderId: folder.id })).map((chunk) => [`${chunk.relativePath}#${chunk.ordinal}`, chunk]));
  // Grouped by stamp: upsertVectors writes one stamp per call.
  const byStamp = new Map<string, Array<{ ref: string; embedHash: string; embedding: Float32Array }>>();
  archived.vectors.forEach((vector, row) => {
    const chunk = chunks.get(`${vector.relativePath}#${vector.ordinal}`);
    // A vector is only as good as the text it was made from: a hash that differs is left to embed.
    if (!chunk || embedTextHash(chunk) !== vector.embedHash) return;
    // The stamp names the embedder and the folder's chunk settings, which came along with it.
    const stamp = vector.stamp;
    byStamp.set(stamp, [...(byStamp.get(stamp) ?? []), { ref: chunk.ref, embedHash: vector.embedHash, embedding: values.slice(row * dimensions, (row + 1) * dimensions) }]);
  });
  let written = 0;
  for (const [stamp, vectors] of byStamp) written += (await store.upsertVectors(vectors, stamp)).written;
  return written;
}

async function recordEmbedding(store: MainStore, embedding: NonNullable<Manifest["embedding"]>, folderId: string, chunking: ChunkingOptions): Promise<void> {
  const stored = readStoredFingerprint(await store.getMeta(META_KEYS.embeddingFingerprint));
  const chunkingByFolder = stored.embedder === null ? {} : stored.chunking;
  await store.setMeta(META_KEYS.embeddingFingerprint, databaseFingerprint(JSON.stringify(embedding.embedder), { ...chunkingByFolder, [folderId]: chunking }));
  await store.setMeta(META_KEYS.embeddingModel, embedding.model);
  await store.setMeta(META_KEYS.embeddingDimensions, String(embedding.dimensions));
}

/** A path from the archive: relative, forward slashes, never leaving the folder. */
function checkEntryPath(relative: string, archive: string): void {
  const parts = relative.split("/");
  if (relative === "" || relative.startsWith("/") || relative.includes("\\") || /^[A-Za-z]:/.test(relative) || parts.some((part) => part === ".." || part === "." || part === "")) {
    throw new ChunkpadError("INVALID_ARGUMENT", `${archive} names a file outside its folder ("${relative}"); nothing was imported. Use an archive written by "chunkpad export".`);
  }
}
