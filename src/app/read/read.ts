import fs from "node:fs/promises";
import path from "node:path";
import { ChunkpadError } from "../../core/errors.js";
import { parseChunkRef } from "../../core/chunk-ref.js";
import type { ChunkRecord, DocumentRecord } from "../../core/types.js";
import type { MainStore } from "../../store/index.js";
import { locationOf } from "../search/search.js";
import { MAX_NEIGHBOURS } from "./neighbours.js";

/**
 * Reading what search found, for the faces that hand text to someone else (an agent over MCP,
 * the web app's citation panel): one chunk with its neighbours, or a document's text by page.
 */

export interface ChunkView {
  ref: string;
  documentId: string;
  documentTitle: string;
  /** The source file inside its folder, and the folder's path on disk. */
  relativePath: string;
  folderPath: string | null;
  ordinal: number;
  /** "p. 3", "pp. 3–4", "slide 2", "sheet Budget"; null for formats without pages. */
  location: string | null;
  page: number | null;
  section: string | null;
  included: boolean;
  text: string;
  /** Hash of the text, for an editor to say which version it changes (editChunk). */
  contentHash: string;
}

export interface ChunkWithNeighbours {
  chunk: ChunkView;
  /** The chunks just before and after it in the same document, nearest last / first. */
  before: ChunkView[];
  after: ChunkView[];
}

export interface DocumentText {
  documentId: string;
  title: string;
  relativePath: string;
  folderPath: string | null;
  pageCount: number | null;
  /** The page range asked for (null: the whole document). */
  fromPage: number | null;
  toPage: number | null;
  chunks: ChunkView[];
  /** The chunks' text in order; neighbouring chunks share a few sentences (the chunk overlap). */
  text: string;
  /** Chunks in the range asked for (before `fromChunk` and the size limit cut it). */
  totalChunks: number;
  /** The chunk number to ask for next (`fromChunk`) when the size limit cut the reply short; null when nothing is left. */
  nextChunk: number | null;
}

export { MAX_NEIGHBOURS };

function view(chunk: ChunkRecord, folderPath: string | null): ChunkView {
  return {
    ref: chunk.ref,
    documentId: chunk.documentId,
    documentTitle: chunk.title,
    relativePath: chunk.relativePath,
    folderPath,
    ordinal: chunk.ordinal,
    location: locationOf(chunk),
    page: chunk.page ?? null,
    section: chunk.section ?? null,
    included: chunk.included,
    text: chunk.content,
    contentHash: chunk.contentHash,
  };
}

export async function readChunk(store: MainStore, ref: string, neighbours = 1): Promise<ChunkWithNeighbours> {
  if (!Number.isInteger(neighbours) || neighbours < 0 || neighbours > MAX_NEIGHBOURS) {
    throw new ChunkpadError("INVALID_ARGUMENT", `Neighbours is a whole number from 0 to ${MAX_NEIGHBOURS}, not ${neighbours}.`);
  }
  if (parseChunkRef(ref) === null) {
    throw new ChunkpadError("INVALID_ARGUMENT", `"${ref}" is not a chunk reference. References look like 3f2a9c1b:reports/q3.pdf#4 (folder id, path, chunk number); search results carry them.`);
  }
  const chunk = await store.getChunk(ref);
  if (!chunk) throw new ChunkpadError("NOT_FOUND", `There is no chunk ${ref}. The document may have been re-chunked or removed since; search again for fresh references.`);
  const folderPath = (await store.getFolder(chunk.folderId))?.rootPath ?? null;
  const siblings = neighbours === 0 ? [] : await store.listChunks({ documentId: chunk.documentId });
  const index = siblings.findIndex((sibling) => sibling.ref === ref);
  return {
    chunk: view(chunk, folderPath),
    before: index < 0 ? [] : siblings.slice(Math.max(0, index - neighbours), index).map((sibling) => view(sibling, folderPath)),
    after: index < 0 ? [] : siblings.slice(index + 1, index + 1 + neighbours).map((sibling) => view(sibling, folderPath)),
  };
}

export interface DocumentRequest {
  /** A document id, its path inside its folder, its file name, or part of its path or title. */
  document: string;
  fromPage?: number;
  toPage?: number;
  /** Start at this chunk number (1-based; a previous reply's nextChunk). */
  fromChunk?: number;
  /** Most bytes of chunk text in one reply (at least one chunk is always returned); default no limit. */
  maxTextBytes?: number;
}

/** One document's text, or the pages asked for: the chunks that touch any page in the range. */
export async function readDocument(store: MainStore, { document, fromPage, toPage, fromChunk, maxTextBytes }: DocumentRequest): Promise<DocumentText> {
  if (fromChunk !== undefined && (!Number.isInteger(fromChunk) || fromChunk < 1)) throw new ChunkpadError("INVALID_ARGUMENT", `fromChunk is a chunk number (1 or more), not ${fromChunk}.`);
  for (const [name, page] of [["fromPage", fromPage], ["toPage", toPage]] as const) {
    if (page !== undefined && (!Number.isInteger(page) || page < 1)) throw new ChunkpadError("INVALID_ARGUMENT", `${name} is a page number (1 or more), not ${page}.`);
  }
  if (fromPage !== undefined && toPage !== undefined && toPage < fromPage) {
    throw new ChunkpadError("INVALID_ARGUMENT", `The page range ${fromPage}–${toPage} is empty: toPage must not be before fromPage.`);
  }
  const found = await findOne(store, document);
  const folderPath = (await store.getFolder(found.folderId))?.rootPath ?? null;
  const all = await store.listChunks({ documentId: found.id });
  const ranged = fromPage === undefined && toPage === undefined;
  if (!ranged && !all.some((chunk) => chunk.page !== undefined)) {
    throw new ChunkpadError("INVALID_ARGUMENT", `${found.relativePath} has no pages (a ${found.documentType} file); ask for the whole document, without a page range.`);
  }
  const first = fromPage ?? 1;
  const last = toPage ?? Number.POSITIVE_INFINITY;
  const inRange = all.filter((chunk) => ranged || (chunk.page !== undefined && chunk.page <= last && (chunk.pageEnd ?? chunk.page) >= first));
  const { page, next } = pageOf(inRange.filter((chunk) => chunk.ordinal >= (fromChunk ?? 1)), maxTextBytes);
  const chunks = page.map((chunk) => view(chunk, folderPath));
  return {
    documentId: found.id,
    title: found.title,
    relativePath: found.relativePath,
    folderPath,
    pageCount: found.pageCount,
    fromPage: fromPage ?? null,
    toPage: toPage ?? null,
    chunks,
    text: chunks.map((chunk) => chunk.text).join("\n\n"),
    totalChunks: inRange.length,
    nextChunk: next?.ordinal ?? null,
  };
}

/** The chunks that fit in `maxTextBytes` (at least one), and the first one left out. */
function pageOf(chunks: readonly ChunkRecord[], maxTextBytes: number | undefined): { page: ChunkRecord[]; next: ChunkRecord | undefined } {
  if (maxTextBytes === undefined) return { page: [...chunks], next: undefined };
  let bytes = 0;
  for (const [index, chunk] of chunks.entries()) {
    bytes += Buffer.byteLength(chunk.content, "utf8");
    if (index > 0 && bytes > maxTextBytes) return { page: chunks.slice(0, index), next: chunk };
  }
  return { page: [...chunks], next: undefined };
}

async function findOne(store: MainStore, spec: string): Promise<DocumentRecord> {
  const byId = await store.getDocument(spec);
  if (byId) return byId;
  const candidates = await store.findDocuments(spec);
  if (candidates.length === 1 && candidates[0]) return candidates[0];
  if (candidates.length === 0) throw new ChunkpadError("NOT_FOUND", `No added document matches "${spec}". Give its path inside its folder, its file name or its id (search results carry documentId).`);
  const listed = candidates.slice(0, 5).map((candidate) => `${candidate.relativePath} (${candidate.id})`).join(", ");
  throw new ChunkpadError("INVALID_ARGUMENT", `"${spec}" matches ${candidates.length} documents: ${listed}${candidates.length > 5 ? ", …" : ""}. Give the document id or its full path.`);
}

export interface SourceFile {
  documentId: string;
  relativePath: string;
  /** The file on disk, links resolved; always inside the document's added folder. */
  path: string;
  size: number;
  /** What to label it when sending it (never text/html: a document must not run as a page). */
  contentType: string;
}

const CONTENT_TYPES: Readonly<Record<string, string>> = {
  ".pdf": "application/pdf",
  ".png": "image/png",
  ".jpg": "image/jpeg",
  ".jpeg": "image/jpeg",
  ".gif": "image/gif",
  ".webp": "image/webp",
  ".txt": "text/plain; charset=utf-8",
  ".md": "text/plain; charset=utf-8",
  ".markdown": "text/plain; charset=utf-8",
  ".csv": "text/plain; charset=utf-8",
};

/**
 * The original file of an indexed document, for a citation to open (the PDF page). Only
 * documents Chunkpad indexed can be named, by id or path, so no request path reaches the disk;
 * and a source that has since become a link leading out of its folder is refused.
 */
export async function sourceFile(store: MainStore, document: string): Promise<SourceFile> {
  const found = await findOne(store, document);
  const folder = await store.getFolder(found.folderId);
  if (!folder) throw new ChunkpadError("NOT_FOUND", `The folder of ${found.relativePath} is no longer added.`);
  const realRoot = await fs.realpath(folder.rootPath).catch(() => undefined);
  const realFile = await fs.realpath(path.join(folder.rootPath, ...found.relativePath.split("/"))).catch(() => undefined);
  if (realRoot === undefined || realFile === undefined) {
    throw new ChunkpadError("NOT_FOUND", `${found.relativePath} is no longer on disk in ${folder.rootPath}.`, { nextSteps: [{ action: "sync" }] });
  }
  if (!realFile.startsWith(realRoot + path.sep)) {
    throw new ChunkpadError("NOT_FOUND", `${found.relativePath} is now a link that leads out of ${folder.rootPath}; Chunkpad serves only files inside the folders you added.`);
  }
  const stats = await fs.stat(realFile);
  if (!stats.isFile()) throw new ChunkpadError("NOT_FOUND", `${found.relativePath} is not a file any more.`);
  return { documentId: found.id, relativePath: found.relativePath, path: realFile, size: stats.size, contentType: CONTENT_TYPES[path.extname(realFile).toLowerCase()] ?? "application/octet-stream" };
}
