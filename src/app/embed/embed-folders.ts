import { isChunkpadError } from "../../core/errors.js";
import type { IndexedFolder } from "../../core/types.js";
import type { MainStore } from "../../store/index.js";
import type { ProcessReport } from "../process/process-folder.js";
import { ownedElsewhere, type FolderOwner } from "../folder-owner.js";
import { notice, type Notice } from "../../core/next-step.js";

/** Which folders an embed run covers, and taking hand edits of their chunk files in first. */

export interface SyncSummary {
  /** Chunk files edited by hand whose text was taken into the database. */
  editsTakenIn: number;
  /** Sources parsed again because they changed (or are new). */
  documentsProcessed: number;
  /** Sources gone from disk, whose chunks (and vectors) were removed. */
  sourcesRemoved: number;
  /** Sources renamed or moved: their chunks and vectors went with them. */
  sourcesRenamed: number;
  conflicts: number;
  failed: number;
}

import { findAddedFolder, folderNotAdded } from "../folder-lookup.js";

export type SyncFolder = (rootPath: string, options: { signal?: AbortSignal }) => Promise<ProcessReport>;

/** The named added folder (a path or a folder id), or every added folder. */
export async function foldersToEmbed(store: MainStore, folder: string | undefined, cwd: string): Promise<IndexedFolder[]> {
  if (folder === undefined) return await store.listFolders();
  const found = await findAddedFolder(store, folder, { cwd });
  if (found) return [found];
  throw folderNotAdded(folder, "embed");
}

/**
 * Runs Step 1 on each folder so the chunk files (the source of truth) and the database agree
 * before anything is embedded: hand edits are taken in, changed sources re-chunked, deleted
 * ones dropped. A folder that is gone from disk keeps its chunks and gets a notice.
 */
export async function syncFolders(folders: readonly IndexedFolder[], syncFolder: SyncFolder, signal: AbortSignal | undefined, notices: Notice[], moved?: (folderId: string, from: string, to: string) => void): Promise<SyncSummary> {
  const summary: SyncSummary = { editsTakenIn: 0, documentsProcessed: 0, sourcesRemoved: 0, sourcesRenamed: 0, conflicts: 0, failed: 0 };
  for (const folder of folders) {
    let report: ProcessReport;
    try {
      report = await syncFolder(folder.rootPath, signal === undefined ? {} : { signal });
    } catch (error) {
      if (!isChunkpadError(error, "FOLDER_NOT_FOUND")) throw error;
      notices.push(notice(`${folder.rootPath} is gone from disk; its chunks were embedded as they are in the database.`));
      continue;
    }
    summary.editsTakenIn += report.editsSynced.length;
    summary.documentsProcessed += report.processed.length;
    summary.sourcesRemoved += report.removed.length;
    summary.sourcesRenamed += report.renamed.length;
    for (const rename of report.renamed) moved?.(folder.id, rename.from, rename.to);
    summary.conflicts += report.conflicts.length;
    summary.failed += report.failed.length;
    for (const conflict of report.conflicts) notices.push(notice(`${conflict.path}: ${conflict.message}`, ...conflict.nextSteps));
  }
  return summary;
}

/** Refs of the folders' chunks that have a vector now. */
export async function embeddedRefs(store: MainStore, folders: readonly IndexedFolder[]): Promise<Set<string>> {
  const refs = new Set<string>();
  for (const folder of folders) for (const row of await store.embedState(folder.id)) if (row.embeddedHash !== null) refs.add(row.ref);
  return refs;
}

/**
 * The folders this machine may embed: a folder another machine owns is skipped with a notice
 * when embedding all, and refused (FOLDER_ELSEWHERE) when named or when re-embedding everything.
 */
export async function foldersOwnedHere(folders: readonly IndexedFolder[], otherOwner: ((folderId: string) => Promise<FolderOwner | null>) | undefined, refuse: string | null, notices: Notice[]): Promise<IndexedFolder[]> {
  if (otherOwner === undefined) return [...folders];
  const kept: IndexedFolder[] = [];
  for (const folder of folders) {
    const owner = await otherOwner(folder.id);
    if (owner === null) kept.push(folder);
    else if (refuse !== null) throw ownedElsewhere(folder.rootPath, owner, refuse);
    else notices.push(notice(`${folder.rootPath} belongs to the machine "${owner.name}", which embeds it; its chunks stay searchable here.`));
  }
  return kept;
}
