import type { FolderLockOptions } from "../folder-lock.js";
import type { EmbedOptions, EmbedReport } from "../embed/embed-selected.js";
import type { ProcessFolderOptions, ProcessReport } from "../process/process-folder.js";
import { isChunkpadError } from "../../core/errors.js";
import { findAddedFolder, folderNotAdded } from "../folder-lookup.js";
import type { MainStore } from "../../store/index.js";
import type { FolderSummary } from "../../store/index.js";

/**
 * `sync`: bring added folders up to date in one step. A folder that has vectors is embedded
 * (embed runs Step 1 first, so changed documents are re-chunked and only the chunks that
 * changed are embedded again); a folder without vectors is only processed, unless `embed` asks
 * for vectors everywhere.
 */

export interface SyncOptions extends FolderLockOptions, Pick<EmbedOptions, "consent" | "batchSize">, Pick<ProcessFolderOptions, "password" | "timeoutSeconds"> {
  onProcessProgress?: ProcessFolderOptions["onProgress"];
  onEmbedProgress?: EmbedOptions["onProgress"];
  /** Embed folders that have no vectors yet too. */
  embed?: boolean;
  cwd?: string;
  onFolder?: (folder: { rootPath: string; step: "process" | "embed" }) => void;
}

export interface SyncFolderReport {
  rootPath: string;
  /** What Step 1 did (a folder that was only processed). */
  processed: ProcessReport | null;
  /** What embedding did (its Step 1 counts included), for a folder that has or wants vectors. */
  embedded: EmbedReport | null;
  /**
   * Set when the folder's files are not on this machine (it was added on another machine sharing
   * the database, or moved): nothing was done, and its chunks stay searchable. Only when syncing all.
   */
  notHere?: string;
}

export interface SyncReport {
  folders: SyncFolderReport[];
}

export interface SyncDependencies {
  store: MainStore;
  processFolder: (folderPath: string, options: ProcessFolderOptions & FolderLockOptions) => Promise<ProcessReport>;
  embed: (options: EmbedOptions & FolderLockOptions) => Promise<EmbedReport>;
}

export async function syncFolders(dependencies: SyncDependencies, folder: string | undefined, options: SyncOptions = {}): Promise<SyncReport> {
  const { embed = false, onFolder, cwd, consent, batchSize, password, timeoutSeconds, onProcessProgress, onEmbedProgress, wait, onWaiting, signal } = options;
  const targets = await foldersToSync(dependencies.store, folder, cwd);
  const lock = { ...(wait === undefined ? {} : { wait }), ...(onWaiting === undefined ? {} : { onWaiting }), ...(signal === undefined ? {} : { signal }) };
  const report: SyncReport = { folders: [] };
  for (const target of targets) {
    try {
      report.folders.push(await syncOne(dependencies, target, { embed, onFolder, consent, batchSize, password, timeoutSeconds, onProcessProgress, onEmbedProgress, lock }));
    } catch (error) {
      // A folder belongs to the machine that has its files (and added it); the others search and chat over it.
      if (folder !== undefined || !(isChunkpadError(error, "FOLDER_NOT_FOUND") || isChunkpadError(error, "FOLDER_ELSEWHERE"))) throw error;
      const notHere = isChunkpadError(error, "FOLDER_ELSEWHERE")
        ? error.message
        : `${target.rootPath} is not on this machine (added on another machine that shares the database, or moved): its chunks stay searchable; sync it where its files are.`;
      report.folders.push({ rootPath: target.rootPath, processed: null, embedded: null, notHere });
    }
  }
  return report;
}

type SyncOneOptions = Pick<SyncOptions, "embed" | "onFolder" | "consent" | "batchSize" | "password" | "timeoutSeconds" | "onProcessProgress" | "onEmbedProgress"> & { lock: FolderLockOptions };

async function syncOne(dependencies: SyncDependencies, target: FolderSummary, options: SyncOneOptions): Promise<SyncFolderReport> {
  const { embed, onFolder, consent, batchSize, password, timeoutSeconds, onProcessProgress, onEmbedProgress, lock } = options;
  if (embed || target.embeddedChunkCount + target.modifiedChunkCount > 0) {
    onFolder?.({ rootPath: target.rootPath, step: "embed" });
    const embedded = await dependencies.embed({ folder: target.id, ...lock, ...(consent ? { consent } : {}), ...(batchSize ? { batchSize } : {}), ...(onEmbedProgress ? { onProgress: onEmbedProgress } : {}) });
    return { rootPath: target.rootPath, processed: null, embedded };
  }
  onFolder?.({ rootPath: target.rootPath, step: "process" });
  const processed: ProcessReport = await dependencies.processFolder(target.rootPath, {
    ...lock,
    ...(password === undefined ? {} : { password }),
    ...(timeoutSeconds === undefined ? {} : { timeoutSeconds }),
    ...(onProcessProgress ? { onProgress: onProcessProgress } : {}),
  });
  return { rootPath: target.rootPath, processed, embedded: null };
}

async function foldersToSync(store: MainStore, folder: string | undefined, cwd: string | undefined): Promise<FolderSummary[]> {
  const all = await store.listFolders();
  if (folder === undefined) return all;
  const found = await findAddedFolder(store, folder, cwd === undefined ? {} : { cwd });
  if (!found) throw folderNotAdded(folder, "sync");
  return all.filter((summary) => summary.id === found.id);
}
