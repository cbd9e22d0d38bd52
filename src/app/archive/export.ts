import fs from "node:fs/promises";
import path from "node:path";
import { zipSync, strToU8, type Zippable } from "fflate";
import { readChunkFileText } from "../../chunkfiles/format.js";
import { hashBytes } from "../../chunkfiles/hash.js";
import { checkChunkSizes } from "../process/process-file.js";
import { ChunkpadError } from "../../core/errors.js";
import type { ChunkingOptions, ChunkMeta } from "../../core/types.js";
import { describeIdentity, readStoredFingerprint } from "../../embedding/vector-fingerprint.js";
import { META_KEYS, type MainStore } from "../../store/index.js";
import { ARCHIVE_FORMAT, type ArchiveProgress, type ArchivedChunk, type ArchivedDocument, type ArchivedVector, type Manifest } from "./archive-format.js";

/** `chunkpad export`: added folders' index as one archive (see archive-format.ts). */

export interface ExportOptions {
  /** Added folders to export (ids); default all. */
  folderIds?: readonly string[];
  withSources?: boolean;
  onProgress?: (progress: ArchiveProgress) => void;
}

export interface ExportReport {
  file: string;
  bytes: number;
  folders: Array<{ rootPath: string; documents: number; chunks: number; vectors: number; chunkFiles: number; sources: number }>;
  embeddingModel: string | null;
}

export interface ExportDependencies {
  store: MainStore;
  chunkingFor: (folderId: string) => Promise<ChunkingOptions>;
}

export async function exportArchive({ store, chunkingFor }: ExportDependencies, file: string, options: ExportOptions = {}): Promise<ExportReport> {
  const all = await store.listFolders();
  const folders = options.folderIds === undefined ? all : all.filter((folder) => options.folderIds?.includes(folder.id));
  if (folders.length === 0) throw new ChunkpadError("NOT_FOUND", "There is nothing to export: no folder is added.", { nextSteps: [{ action: "add-folder" }] });
  const stored = readStoredFingerprint(await store.getMeta(META_KEYS.embeddingFingerprint));
  const dimensions = await store.vectorDimensions();
  const withVectors = store.vectorAvailable && stored.embedder !== null && dimensions !== null;
  const manifest: Manifest = {
    format: ARCHIVE_FORMAT,
    createdAt: new Date().toISOString(),
    embedding: withVectors ? { embedder: stored.embedder as Record<string, unknown>, model: await store.getMeta(META_KEYS.embeddingModel) ?? describeIdentity(stored.embedder as Record<string, unknown>), dimensions: dimensions as number } : null,
    folders: [],
  };
  const entries: Zippable = {};
  const report: ExportReport = { file: path.resolve(file), bytes: 0, folders: [], embeddingModel: manifest.embedding?.model ?? null };

  for (const [index, folder] of folders.entries()) {
    const prefix = `folders/${index}/`;
    const chunks = await store.listChunks({ folderId: folder.id });
    const byDocument = new Map<string, ArchivedChunk[]>();
    for (const chunk of chunks) {
      const { page, pageEnd, slide, sheet, charStart, charEnd, section } = chunk;
      const meta = Object.fromEntries(Object.entries({ page, pageEnd, slide, sheet, charStart, charEnd, section }).filter(([, value]) => value !== undefined && value !== null)) as ChunkMeta;
      byDocument.set(chunk.documentId, [...(byDocument.get(chunk.documentId) ?? []), { content: chunk.content, meta, included: chunk.included }]);
    }
    const sources = new Map((await store.listSources(folder.id)).map((source) => [source.relativePath, source]));
    const documents: ArchivedDocument[] = (await store.listDocuments(folder.id)).map((document) => {
      const source = sources.get(document.relativePath);
      return {
        relativePath: document.relativePath,
        title: document.title,
        documentType: document.documentType,
        fileSize: document.fileSize,
        pageCount: document.pageCount,
        source: source && source.status === "processed" ? { size: source.size, mtimeMs: source.mtimeMs, sourceHash: source.sourceHash, chunkFileHash: source.chunkFileHash, syncedChunkFileHash: source.syncedChunkFileHash } : null,
        chunks: byDocument.get(document.id) ?? [],
      };
    });

    const vectors: ArchivedVector[] = [];
    if (withVectors) {
      const listed = await store.listVectors(folder.id);
      const places = new Map(chunks.map((chunk) => [chunk.ref, chunk]));
      const buffer = new Float32Array(listed.length * (dimensions as number));
      let row = 0;
      for (const vector of listed) {
        const chunk = places.get(vector.ref);
        if (!chunk) continue;
        buffer.set(vector.embedding, row * (dimensions as number));
        vectors.push({ relativePath: chunk.relativePath, ordinal: chunk.ordinal, embedHash: vector.embedHash, stamp: vector.fingerprint });
        row += 1;
      }
      entries[`${prefix}vectors.f32`] = [new Uint8Array(buffer.buffer, 0, row * (dimensions as number) * 4), { level: 0 }];
    }

    const chunkFiles: string[] = [];
    const listed = await filesUnder(folder.chunksRootPath);
    const total = listed.length + (options.withSources ? documents.length : 0);
    let done = 0;
    const tick = () => options.onProgress?.({ stage: "collecting", done: ++done, total, folder: folder.rootPath });
    options.onProgress?.({ stage: "collecting", done, total, folder: folder.rootPath });
    for (const relative of listed) {
      tick();
      const data = new Uint8Array(await fs.readFile(path.join(folder.chunksRootPath, ...relative.split("/"))));
      // A chunk file processing refused (a chunk over the cap, not UTF-8) is not in the index, and
      // import would refuse the whole archive for it: it stays behind, the index travels.
      if (!importableChunkFile(data, relative)) continue;
      entries[`${prefix}chunks/${relative}`] = data;
      chunkFiles.push(relative);
    }
    const sourceFiles: string[] = [];
    if (options.withSources) {
      for (const document of documents) {
        tick();
        const bytes = await fs.readFile(path.join(folder.rootPath, ...document.relativePath.split("/"))).catch(() => undefined);
        if (bytes === undefined) continue;
        // Changed since it was processed: the record describes other bytes, so it is left out
        // (the source travels; the next run there reads it again) and import's checksum check holds.
        if (document.source && document.source.sourceHash !== hashBytes(bytes)) document.source = null;
        entries[`${prefix}sources/${document.relativePath}`] = new Uint8Array(bytes);
        sourceFiles.push(document.relativePath);
      }
    }
    manifest.folders.push({
      prefix,
      rootPath: folder.rootPath,
      chunking: await chunkingFor(folder.id),
      newChunksIncluded: folder.newChunksIncluded,
      documents,
      chunkFiles,
      sources: sourceFiles,
      vectors,
      unindexed: [...sources.values()].flatMap((source) =>
        (source.status === "failed" || source.status === "skipped") && source.sourceHash !== null
          ? [{ relativePath: source.relativePath, sourceHash: source.sourceHash, status: source.status, errorCode: source.errorCode, errorMessage: source.errorMessage }]
          : [],
      ),
    });
    report.folders.push({ rootPath: folder.rootPath, documents: documents.length, chunks: chunks.length, vectors: vectors.length, chunkFiles: chunkFiles.length, sources: sourceFiles.length });
  }
  entries["manifest.json"] = strToU8(JSON.stringify(manifest));
  options.onProgress?.({ stage: "compressing", done: 0, total: 1, folder: null });
  const zipped = zipSync(entries, { level: 6 });
  options.onProgress?.({ stage: "writing", done: 0, total: 1, folder: null });
  // Written beside the target and renamed, so a stopped export never leaves half an archive.
  const temporary = `${report.file}.partial-${process.pid}`;
  await fs.writeFile(temporary, zipped, { mode: 0o600 });
  await fs.rename(temporary, report.file);
  report.bytes = zipped.byteLength;
  return report;
}

function importableChunkFile(data: Uint8Array, relative: string): boolean {
  try {
    checkChunkSizes(readChunkFileText(new TextDecoder("utf-8", { fatal: true }).decode(data)).chunks, relative);
    return true;
  } catch {
    return false;
  }
}

/** Files under a folder, relative with forward slashes, skipping hidden ones; none for a missing folder. */
async function filesUnder(root: string): Promise<string[]> {
  const found: string[] = [];
  const visit = async (directory: string, relative: string): Promise<void> => {
    const entries = await fs.readdir(directory, { withFileTypes: true }).catch(() => []);
    for (const entry of entries) {
      if (entry.name.startsWith(".")) continue;
      const child = relative ? `${relative}/${entry.name}` : entry.name;
      if (entry.isDirectory()) await visit(path.join(directory, entry.name), child);
      else if (entry.isFile()) found.push(child);
    }
  };
  await visit(root, "");
  return found.sort();
}
