import fs from "node:fs";
import path from "node:path";
import type { ChunkRecord, ChunkRef, DocumentRecord, IndexedFolder } from "../../core/types.js";
import type { MainStore } from "../../store/index.js";
import { chunkRef } from "../../core/chunk-ref.js";
import { isGlobPattern, matchesGlob } from "./review-glob.js";
import { resolveFolders } from "../search/search-scope.js";

/**
 * Review: include or exclude chunks by ref, by source file (or a folder of them) or by glob.
 * Excluded chunks are never returned by any search and are not embedded.
 */

export interface ReviewOptions {
  /** Added folders (paths or ids) to look in; default all. */
  folders?: readonly string[];
  /** Resolves relative paths; default process.cwd(). */
  cwd?: string;
}

export type ReviewTargetKind = "ref" | "file" | "directory" | "glob";

export interface ReviewTarget {
  target: string;
  /** How the target was understood; null when it matched nothing. */
  kind: ReviewTargetKind | null;
  /** Chunks it named. */
  chunkCount: number;
  /** Source files it named (relative paths; refs within their files). */
  files: string[];
}

export interface ReviewReport {
  included: boolean;
  /** Distinct chunks the targets named. */
  matchedChunks: number;
  /** Of those, chunks whose state changed (the others already were included/excluded). */
  changed: number;
  targets: ReviewTarget[];
  /** Targets that matched no chunk. */
  unmatched: string[];
}

export async function setReviewState(store: MainStore, targets: readonly string[], included: boolean, options: ReviewOptions = {}): Promise<ReviewReport> {
  const cwd = options.cwd ?? process.cwd();
  const folders: IndexedFolder[] = options.folders && options.folders.length > 0 ? await resolveFolders(store, options.folders, cwd) : await store.listFolders();
  const refs = new Set<ChunkRef>();
  const report: ReviewReport = { included, matchedChunks: 0, changed: 0, targets: [], unmatched: [] };
  for (const target of targets) {
    const resolved = await resolveTarget(store, target, folders, cwd);
    for (const ref of resolved.refs) refs.add(ref);
    report.targets.push({ target, kind: resolved.kind, chunkCount: resolved.refs.length, files: resolved.files });
    if (resolved.refs.length === 0) report.unmatched.push(target);
  }
  report.matchedChunks = refs.size;
  if (refs.size > 0) report.changed = (await store.setIncluded([...refs], included)).changed;
  return report;
}

interface Resolved {
  kind: ReviewTargetKind | null;
  refs: ChunkRef[];
  files: string[];
}

const NOTHING: Resolved = { kind: null, refs: [], files: [] };

async function resolveTarget(store: MainStore, target: string, folders: readonly IndexedFolder[], cwd: string): Promise<Resolved> {
  const trimmed = target.trim();
  if (trimmed === "") return NOTHING;
  const folderIds = new Set(folders.map((folder) => folder.id));

  // A full ref: "{folderId}:{path}#{n}".
  const chunk = await store.getChunk(trimmed);
  if (chunk && folderIds.has(chunk.folderId)) return { kind: "ref", refs: [chunk.ref], files: [chunk.relativePath] };

  // "{path}#{n}" without the folder id, in any of the folders.
  const numbered = /^(.+)#([1-9][0-9]*)$/.exec(trimmed);
  if (numbered) {
    const [, filePath = "", ordinal = ""] = numbered;
    const found: ChunkRecord[] = [];
    for (const folder of folders) {
      const relative = relativeSourcePath(folder, filePath, cwd);
      const candidate = relative === null ? null : await store.getChunk(chunkRef(folder.id, relative, Number(ordinal)));
      if (candidate) found.push(candidate);
    }
    if (found.length > 0) return { kind: "ref", refs: found.map((item) => item.ref), files: found.map((item) => item.relativePath) };
  }

  // A source file (relative to a folder, relative to cwd, or absolute), its chunk file, or a folder of sources.
  const documents: DocumentRecord[] = [];
  let kind: ReviewTargetKind = "file";
  for (const folder of folders) {
    const relative = relativeSourcePath(folder, trimmed, cwd);
    if (relative === null) continue;
    const document = await store.getDocumentByPath(folder.id, relative);
    if (document) {
      documents.push(document);
      continue;
    }
    const prefix = relative === "" ? "" : `${relative.replace(/\/+$/, "")}/`;
    const inside = (await store.listDocuments(folder.id)).filter((candidate) => candidate.relativePath.startsWith(prefix));
    if (inside.length > 0) {
      kind = "directory";
      documents.push(...inside);
    }
  }
  if (documents.length === 0 && isGlobPattern(trimmed)) {
    kind = "glob";
    for (const folder of folders) documents.push(...(await store.listDocuments(folder.id)).filter((document) => matchesGlob(document.relativePath, trimmed)));
  }
  if (documents.length === 0) return NOTHING;
  const refs: string[] = [];
  for (const document of documents) refs.push(...(await store.listChunks({ documentId: document.id })).map((item) => item.ref));
  return { kind, refs, files: documents.map((document) => document.relativePath) };
}

/**
 * The source path inside `folder` that `target` names, or null when it points elsewhere.
 * An absolute path (or one that exists relative to cwd) must lie in the folder or its chunk
 * folder (a chunk file "_chunks/a.pdf.md" names "a.pdf"); anything else is taken as a path
 * inside the folder. "" means the folder itself.
 */
function relativeSourcePath(folder: IndexedFolder, target: string, cwd: string): string | null {
  const cleaned = target.replace(/\\/g, "/");
  const absolute = path.resolve(cwd, cleaned);
  if (path.isAbsolute(cleaned) || fs.existsSync(absolute)) {
    const real = realPath(absolute);
    const fromChunks = inside(folder.chunksRootPath, real) ?? inside(folder.chunksRootPath, absolute);
    if (fromChunks !== null) return fromChunks.replace(/\.md$/, "");
    const fromRoot = inside(folder.rootPath, real) ?? inside(folder.rootPath, absolute);
    if (fromRoot !== null || path.isAbsolute(cleaned)) return fromRoot;
  }
  const relative = path.posix.normalize(cleaned.replace(/^\.\//, ""));
  return relative.startsWith("../") || relative === ".." ? null : relative === "." ? "" : relative;
}

function inside(root: string, candidate: string): string | null {
  const relative = path.relative(root, candidate);
  if (relative.startsWith("..") || path.isAbsolute(relative)) return null;
  return relative.split(path.sep).join("/");
}

function realPath(candidate: string): string {
  try {
    return fs.realpathSync(candidate);
  } catch {
    return candidate;
  }
}
