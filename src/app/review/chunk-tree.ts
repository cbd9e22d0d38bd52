import fs from "node:fs/promises";
import path from "node:path";
import type { IndexedFolder } from "../../core/types.js";
import type { MainStore, SourceRecord } from "../../store/index.js";
import { hashFileIfPresent } from "../process/files.js";

export type ChunkTreeNode =
  | { type: "folder"; name: string; path: string; fileCount: number; chunkCount: number; children: ChunkTreeNode[] }
  | {
      type: "file";
      name: string;
      /** Source path relative to the folder root. */
      path: string;
      chunkFile: string;
      chunkCount: number;
      includedCount: number;
      embeddedCount: number;
      modifiedCount: number;
      /** Included chunks never embedded (an excluded chunk is not waiting for anything). */
      newCount: number;
      /** A short state note for the text view ("3 excluded, 2 modified since embedding"). */
      detail?: string;
      /** The last processing of this file failed (it has no chunks, or the ones of an earlier version). */
      failed?: { code: string; message: string };
      /**
       * The source changed since its chunk file was edited by hand: the edit is what the index
       * holds until the user keeps it or takes fresh chunks (`chunkpad resolve`).
       */
      conflict?: true;
    };

export interface ChunkTreeReport {
  folderId: string;
  rootPath: string;
  chunksRootPath: string;
  /** Chunk files (documents); files that failed before they had one are in the tree, not counted. */
  fileCount: number;
  chunkCount: number;
  /** Review state text new to this folder starts with (`add --new-chunks`). */
  newChunks: "included" | "excluded";
  tree: Extract<ChunkTreeNode, { type: "folder" }>;
}

/** The `_chunks/` tree of an added folder as the database knows it, with per-file chunk states. */
export async function chunkTree(store: MainStore, folder: IndexedFolder): Promise<ChunkTreeReport> {
  const documents = await store.listDocuments(folder.id);
  const sources = new Map((await store.listSources(folder.id)).map((source) => [source.relativePath, source]));
  const states = new Map<string, { total: number; included: number; embedded: number; modified: number; fresh: number }>();
  for (const row of await store.embedState(folder.id)) {
    const relativePath = row.ref.slice(row.ref.indexOf(":") + 1, row.ref.lastIndexOf("#"));
    const state = states.get(relativePath) ?? { total: 0, included: 0, embedded: 0, modified: 0, fresh: 0 };
    state.total += 1;
    if (row.included && row.embeddedHash === null) state.fresh += 1;
    if (row.included) state.included += 1;
    if (row.embeddedHash !== null && row.embeddedHash === row.embedHash) state.embedded += 1;
    if (row.embeddedHash !== null && row.embeddedHash !== row.embedHash) state.modified += 1;
    states.set(relativePath, state);
  }

  // "new" is worth saying only once the folder has vectors; before that every chunk is new.
  const anyEmbedded = [...states.values()].some((state) => state.embedded + state.modified > 0);
  const root: Extract<ChunkTreeNode, { type: "folder" }> = { type: "folder", name: path.basename(folder.chunksRootPath), path: "", fileCount: 0, chunkCount: 0, children: [] };
  const documentPaths = new Set(documents.map((document) => document.relativePath));
  const files = [
    ...documents.map((document) => ({ relativePath: document.relativePath, chunkCount: document.chunkCount, hasChunkFile: true })),
    // A file that never parsed has no document and no chunk file: shown with its failure, not counted.
    ...[...sources.values()].filter((source) => source.status === "failed" && !documentPaths.has(source.relativePath)).map((source) => ({ relativePath: source.relativePath, chunkCount: 0, hasChunkFile: false })),
  ];
  for (const document of files) {
    const source = sources.get(document.relativePath);
    const failed = source?.status === "failed" ? { code: source.errorCode ?? "PARSE_FAILED", message: source.errorMessage ?? "could not be read" } : undefined;
    const conflict = source !== undefined && (await inConflict(folder, source));
    const parts = document.relativePath.split("/");
    const fileName = parts.pop() ?? document.relativePath;
    let node = root;
    const trail = [root];
    for (const part of parts) {
      let child = node.children.find((candidate): candidate is Extract<ChunkTreeNode, { type: "folder" }> => candidate.type === "folder" && candidate.name === part);
      if (!child) {
        child = { type: "folder", name: part, path: node.path ? `${node.path}/${part}` : part, fileCount: 0, chunkCount: 0, children: [] };
        node.children.push(child);
      }
      node = child;
      trail.push(child);
    }
    const state = states.get(document.relativePath) ?? { total: document.chunkCount, included: document.chunkCount, embedded: 0, modified: 0, fresh: document.chunkCount };
    const notes = [
      state.total - state.included > 0 ? `${state.total - state.included} excluded` : "",
      state.embedded > 0 ? `${state.embedded} embedded` : "",
      state.modified > 0 ? `${state.modified} modified since embedding` : "",
      anyEmbedded && state.fresh > 0 ? `${state.fresh} new` : "",
      failed ? `failed: ${failed.message}` : "",
      conflict ? "conflict: the source changed and the chunk file was edited; keep your edit or take fresh chunks" : "",
    ].filter(Boolean);
    node.children.push({
      type: "file",
      name: document.hasChunkFile ? `${fileName}.md` : fileName,
      path: document.relativePath,
      chunkFile: path.join(folder.chunksRootPath, `${document.relativePath}.md`),
      chunkCount: state.total,
      includedCount: state.included,
      embeddedCount: state.embedded,
      modifiedCount: state.modified,
      newCount: state.fresh,
      ...(notes.length ? { detail: `(${notes.join(", ")})` } : {}),
      ...(failed ? { failed } : {}),
      ...(conflict ? { conflict: true as const } : {}),
    });
    for (const ancestor of trail) {
      if (!document.hasChunkFile) continue;
      ancestor.fileCount += 1;
      ancestor.chunkCount += state.total;
    }
  }
  sortTree(root);
  return { folderId: folder.id, rootPath: folder.rootPath, chunksRootPath: folder.chunksRootPath, fileCount: root.fileCount, chunkCount: root.chunkCount, newChunks: (await store.getFolder(folder.id))?.newChunksIncluded === false ? "excluded" : "included", tree: root };
}

/**
 * A conflict, as the next processing run will report it: the source on disk is no longer the
 * version read last, and the chunk file differs from what Chunkpad wrote for that version (a hand
 * edit, taken in already or not). Only files whose source changed are hashed.
 */
async function inConflict(folder: IndexedFolder, source: SourceRecord): Promise<boolean> {
  if (source.status !== "processed" || source.chunkFileHash === null) return false;
  const absolute = path.join(folder.rootPath, ...source.relativePath.split("/"));
  const stat = await fs.stat(absolute).catch(() => undefined);
  if (!stat || (stat.size === source.size && stat.mtimeMs === source.mtimeMs)) return false;
  const hash = await hashFileIfPresent(absolute).catch(() => undefined);
  if (hash === undefined || hash === source.sourceHash) return false;
  if (source.syncedChunkFileHash !== null && source.syncedChunkFileHash !== source.chunkFileHash) return true;
  const chunkFileHash = await hashFileIfPresent(path.join(folder.chunksRootPath, ...`${source.relativePath}.md`.split("/"))).catch(() => undefined);
  return chunkFileHash !== undefined && chunkFileHash !== source.chunkFileHash;
}

function sortTree(node: Extract<ChunkTreeNode, { type: "folder" }>): void {
  node.children.sort((a, b) => (a.type !== b.type ? (a.type === "folder" ? -1 : 1) : a.name.localeCompare(b.name)));
  for (const child of node.children) if (child.type === "folder") sortTree(child);
}
