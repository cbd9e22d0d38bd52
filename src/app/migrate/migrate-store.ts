import { ChunkpadError } from "../../core/errors.js";
import type { ChunkMeta } from "../../core/types.js";
import { claimFolder, ownerKey, type Machine } from "../folder-owner.js";
import { META_KEYS, type ChatStore, type MainStore } from "../../store/index.js";

/**
 * `chunkpad migrate --to postgres://…`: copies a store into an empty one of another backend —
 * folders with their settings, sources, documents and chunks, review decisions, vectors with
 * their embed records, meta, and conversations — through the store contract alone, then counts
 * both sides. Ids and refs are kept (both backends derive them from paths the same way).
 */

export interface MigrateProgress {
  stage: "folders" | "documents" | "vectors" | "conversations" | "verify";
  done: number;
  total: number;
  folder?: string;
}

export interface MigrateCounts {
  folders: number;
  documents: number;
  chunks: number;
  excludedChunks: number;
  vectors: number;
  conversations: number;
  messages: number;
}

export interface MigrateReport {
  /** Where the copy went (a URL without its password). */
  target: string;
  source: MigrateCounts;
  copied: MigrateCounts;
  /** Counts that differ between the two sides; empty when the copy is whole. */
  mismatches: string[];
  elapsedMs: number;
}

export interface MigrateStores {
  source: MainStore;
  sourceChats: ChatStore;
  target: MainStore;
  targetChats: ChatStore;
  onProgress?: (progress: MigrateProgress) => void;
  now?: () => number;
  /** The machine migrating: it owns the folders that have no owner recorded yet (their files are here). */
  machine?: Machine;
}

const VECTOR_BATCH = 500;

export async function migrateStore({ source, sourceChats, target, targetChats, onProgress, now = () => performance.now(), machine }: MigrateStores): Promise<MigrateReport> {
  const started = now();
  if ((await target.listFolders()).length > 0 || (await target.vectorCount()) > 0) {
    throw new ChunkpadError("INVALID_ARGUMENT", `The store at ${target.path} already holds folders. migrate copies into an empty store: point --to at a new database, or empty this one first (CHUNKPAD_DATABASE_URL=… chunkpad reset).`);
  }
  const folders = await source.listFolders();
  const dimensions = await source.vectorDimensions();
  if (dimensions !== null && (await source.vectorCount()) > 0 && !target.vectorAvailable) {
    // The copy would lose the vectors: say so before anything is written.
    await target.ensureVectorTable(dimensions);
  }
  for (const key of Object.values(META_KEYS)) {
    const value = await source.getMeta(key);
    if (value !== null) await target.setMeta(key, value);
  }

  let folderIndex = 0;
  for (const folder of folders) {
    onProgress?.({ stage: "folders", done: folderIndex++, total: folders.length, folder: folder.rootPath });
    const copy = await target.upsertFolder(folder.rootPath, folder.chunksRootPath);
    if (copy.id !== folder.id) {
      throw new ChunkpadError("INTERNAL", `The folder ${folder.rootPath} got the id ${copy.id} in the new store but has ${folder.id} here; its chunk refs would change. Report this.`);
    }
    await target.setFolderSettings(folder.id, folder.settings);
    const owner = await source.getMeta(ownerKey(folder.id));
    if (owner !== null) await target.setMeta(ownerKey(folder.id), owner);
    else if (machine !== undefined) await claimFolder(target, folder.id, machine);
    await target.setNewChunksIncluded(folder.id, folder.newChunksIncluded);
    await target.updateFolderStats(folder.id, { lastProcessedAt: folder.lastProcessedAt, fileCount: folder.fileCount, chunkCount: folder.chunkCount });
    for (const sourceRecord of await source.listSources(folder.id)) await target.upsertSource(sourceRecord);

    const documents = await source.listDocuments(folder.id);
    let documentIndex = 0;
    for (const document of documents) {
      onProgress?.({ stage: "documents", done: documentIndex++, total: documents.length, folder: folder.rootPath });
      const chunks = await source.listChunks({ documentId: document.id });
      await target.syncDocument({
        folderId: folder.id,
        relativePath: document.relativePath,
        title: document.title,
        documentType: document.documentType,
        fileSize: document.fileSize,
        pageCount: document.pageCount,
        chunks: chunks.map((chunk) => ({ content: chunk.content, meta: metaOf(chunk) })),
      });
      const excluded = chunks.filter((chunk) => !chunk.included).map((chunk) => chunk.ref);
      const included = chunks.filter((chunk) => chunk.included).map((chunk) => chunk.ref);
      if (excluded.length > 0) await target.setIncluded(excluded, false);
      if (!folder.newChunksIncluded && included.length > 0) await target.setIncluded(included, true);
    }
    onProgress?.({ stage: "documents", done: documents.length, total: documents.length, folder: folder.rootPath });

    if (dimensions !== null && source.vectorAvailable) {
      const vectors = await source.listVectors(folder.id);
      if (vectors.length > 0) await target.ensureVectorTable(dimensions);
      for (let start = 0; start < vectors.length; start += VECTOR_BATCH) {
        const batch = vectors.slice(start, start + VECTOR_BATCH);
        onProgress?.({ stage: "vectors", done: start, total: vectors.length, folder: folder.rootPath });
        // One fingerprint per write (a batch may mix vectors made before and after a settings change).
        for (const fingerprint of new Set(batch.map((vector) => vector.fingerprint))) {
          await target.upsertVectors(batch.filter((vector) => vector.fingerprint === fingerprint), fingerprint);
        }
      }
      onProgress?.({ stage: "vectors", done: vectors.length, total: vectors.length, folder: folder.rootPath });
    }
  }
  onProgress?.({ stage: "folders", done: folders.length, total: folders.length });

  const conversations = await sourceChats.listConversations();
  let conversationIndex = 0;
  for (const summary of conversations) {
    onProgress?.({ stage: "conversations", done: conversationIndex++, total: conversations.length });
    const conversation = await sourceChats.getConversation(summary.id);
    if (conversation) await targetChats.importConversation(conversation);
  }
  onProgress?.({ stage: "conversations", done: conversations.length, total: conversations.length });

  onProgress?.({ stage: "verify", done: 0, total: 1 });
  const [before, after] = await Promise.all([countsOf(source, sourceChats), countsOf(target, targetChats)]);
  const mismatches = (Object.keys(before) as (keyof MigrateCounts)[]).filter((key) => before[key] !== after[key]).map((key) => `${key}: ${before[key]} here, ${after[key]} in the copy`);
  onProgress?.({ stage: "verify", done: 1, total: 1 });
  return { target: target.path, source: before, copied: after, mismatches, elapsedMs: Math.round(now() - started) };
}

function metaOf(chunk: ChunkMeta): ChunkMeta {
  const meta: ChunkMeta = {};
  for (const key of ["page", "pageEnd", "slide", "sheet", "charStart", "charEnd", "section"] as const) {
    if (chunk[key] !== undefined) (meta as Record<string, unknown>)[key] = chunk[key];
  }
  return meta;
}

async function countsOf(store: MainStore, chats: ChatStore): Promise<MigrateCounts> {
  const folders = await store.listFolders();
  const conversations = await chats.listConversations();
  return {
    folders: folders.length,
    documents: folders.reduce((sum, folder) => sum + folder.documentCount, 0),
    chunks: folders.reduce((sum, folder) => sum + folder.storedChunkCount, 0),
    excludedChunks: folders.reduce((sum, folder) => sum + folder.storedChunkCount - folder.includedChunkCount, 0),
    vectors: await store.vectorCount(),
    conversations: conversations.length,
    messages: conversations.reduce((sum, conversation) => sum + conversation.messageCount, 0),
  };
}
