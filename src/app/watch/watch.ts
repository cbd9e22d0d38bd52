import fs from "node:fs";
import path from "node:path";
import type { FSWatcher } from "chokidar";
import { CHUNK_FILE_EXTENSION } from "../../chunkfiles/paths.js";
import { hashText } from "../../chunkfiles/hash.js";
import { isChunkpadError } from "../../core/errors.js";
import type { MainStore } from "../../store/index.js";
import { findAddedFolder, folderNotAdded } from "../folder-lookup.js";
import { ownedElsewhere, type FolderOwner } from "../folder-owner.js";
import type { SyncOptions, SyncReport } from "../sync/sync.js";

/**
 * `watch`: keep added folders in sync with the files on disk. Events only say *that* something
 * changed; what changed is found by `sync` (process, then embed where the folder has vectors),
 * which compares sizes, times and hashes with what the store remembers. So a burst of edits, an
 * editor's atomic save (write a temporary file, rename it over the original), a lost event or a
 * watcher that overflowed all end the same way: one sync that finds the truth on disk. A full
 * sync runs on start and after any watcher error; a folder that is moved away keeps its index
 * and is picked up again when it comes back.
 */

export type WatchEvent =
  | { type: "syncing"; rootPath: string; reason: "start" | "change" | "rescan" | "returned"; paths: string[] }
  | { type: "synced"; rootPath: string; report: SyncReport; durationMs: number }
  | { type: "ready"; folders: string[] }
  | { type: "missing"; rootPath: string }
  | { type: "error"; rootPath: string | null; message: string };

export interface WatchOptions extends Pick<SyncOptions, "embed" | "consent" | "cwd"> {
  /** Quiet time after the last event before a sync starts (default 300 ms). */
  debounceMs?: number;
  /**
   * Longest a change waits for its sync while changes keep coming (default 2000 ms, never less
   * than the debounce): a file appended to every 150 ms would otherwise restart the quiet time forever.
   */
  maxWaitMs?: number;
  onEvent?: (event: WatchEvent) => void;
  /** Stops watching; a sync under way is cancelled and resumes on the next start. */
  signal?: AbortSignal;
}

export interface WatchDependencies {
  store: MainStore;
  sync: (folder: string, options: SyncOptions) => Promise<SyncReport>;
  /** Chunkpad's own folders: never indexed, so their writes (the database's, during each sync) are no news. */
  privateDirectories?: readonly string[];
  /** The owner of a folder when it is another machine: that machine watches it, this one does not. */
  otherOwner?: (folderId: string) => Promise<FolderOwner | null>;
}

const DEFAULT_MAX_WAIT_MS = 2000;

/** What happened in a folder since its last sync, and the timer that will start the next one. */
interface PendingSync {
  paths: Set<string>;
  reason: "start" | "change" | "rescan" | "returned";
  timer?: NodeJS.Timeout | undefined;
  /** When the first change of this batch came: the sync starts no later than maxWaitMs after it. */
  firstAt: number;
  /** Its sync is in the queue: later changes join it rather than starting another wait. */
  queued: boolean;
}

/** Names editors and tools use for files that are not documents (swap files, backups, partial downloads). */
const SCRATCH_FILE = /(^\.|~$|^#.*#$|\.(swp|swx|tmp|part|crdownload)$)/i;

/** Watches the added folders (all, or those named) until `signal` aborts. */
export async function watchFolders(dependencies: WatchDependencies, folders: readonly string[], options: WatchOptions = {}): Promise<void> {
  const { store } = dependencies;
  const emit = (event: WatchEvent) => options.onEvent?.(event);
  const roots = await foldersToWatch(store, folders, options.cwd, dependencies.otherOwner, emit);
  const privateDirectories = (dependencies.privateDirectories ?? []).flatMap((directory) => {
    try {
      return [fs.realpathSync(directory)];
    } catch {
      return [];
    }
  });
  const debounceMs = options.debounceMs ?? 300;
  const maxWaitMs = Math.max(debounceMs, options.maxWaitMs ?? DEFAULT_MAX_WAIT_MS);
  const controller = new AbortController();
  const stop = () => controller.abort();
  options.signal?.addEventListener("abort", stop, { once: true });
  const { watch } = await import("chokidar");

  /** Per folder: what happened since its last sync, and the timer that will start the next one. */
  const pending = new Map<string, PendingSync>();
  const watchers = new Map<string, FSWatcher>();
  const sentinels = new Map<string, FSWatcher>();
  let queue = Promise.resolve();

  const runSync = async (rootPath: string) => {
    const state = pending.get(rootPath);
    pending.delete(rootPath);
    if (controller.signal.aborted || state === undefined) return;
    if (!isDirectory(rootPath)) {
      if (watchers.has(rootPath)) void lost(rootPath);
      return;
    }
    // Chunk files Chunkpad itself just wrote (the sync before this one) are no news.
    if (state.reason === "change" && (await onlyOwnChunkFiles(store, rootPath, state.paths))) return;
    emit({ type: "syncing", rootPath, reason: state.reason, paths: [...state.paths].sort() });
    const started = Date.now();
    try {
      const report = await dependencies.sync(rootPath, {
        signal: controller.signal,
        ...(options.embed === undefined ? {} : { embed: options.embed }),
        ...(options.consent === undefined ? {} : { consent: options.consent }),
      });
      emit({ type: "synced", rootPath, report, durationMs: Date.now() - started });
    } catch (error) {
      if (controller.signal.aborted && isChunkpadError(error, "CANCELLED")) return;
      emit({ type: "error", rootPath, message: error instanceof Error ? error.message : String(error) });
    }
  };

  /** Syncs run one at a time (they share the parse workers and the model), in the order asked. */
  const schedule = (rootPath: string, reason: "start" | "change" | "rescan" | "returned", changed?: string, delay = debounceMs) => {
    const state = pending.get(rootPath) ?? { paths: new Set<string>(), reason, firstAt: Date.now(), queued: false };
    if (reason !== "change") state.reason = reason;
    if (changed !== undefined) state.paths.add(changed);
    // A sync already queued and not yet started will read the disk after this change.
    if (state.queued) return;
    clearTimeout(state.timer);
    // The quiet time restarts with each change, but never past the first change's maximum wait.
    const left = Math.max(0, state.firstAt + maxWaitMs - Date.now());
    state.timer = setTimeout(() => {
      state.timer = undefined;
      state.queued = true;
      queue = queue.then(() => runSync(rootPath));
    }, Math.min(delay, left));
    pending.set(rootPath, state);
  };

  const watchRoot = async (rootPath: string) => {
    const watcher = watch(rootPath, {
      ignoreInitial: true,
      followSymlinks: false,
      ignored: (file) => {
        if (privateDirectories.some((directory) => file === directory || file.startsWith(directory + path.sep))) return true;
        const relative = path.relative(rootPath, file);
        return relative !== "" && relative.split(path.sep).some((part) => SCRATCH_FILE.test(part));
      },
    });
    watcher.on("all", (eventName, file) => {
      if (eventName === "unlinkDir" && file === rootPath) {
        void lost(rootPath);
        return;
      }
      schedule(rootPath, "change", path.relative(rootPath, file).split(path.sep).join("/"));
    });
    // An error (the kernel's event queue overflowed, a folder could not be read) may have lost
    // events: a full sync finds whatever they were.
    watcher.on("error", (error) => {
      emit({ type: "error", rootPath, message: `watching stopped being reliable (${error instanceof Error ? error.message : String(error)}); syncing the whole folder` });
      schedule(rootPath, "rescan");
    });
    await new Promise<void>((resolve) => watcher.once("ready", () => resolve()));
    watchers.set(rootPath, watcher);
  };

  /** The folder was moved or deleted: its index stays; the nearest existing parent is watched for its return. */
  const lost = async (rootPath: string) => {
    const watcher = watchers.get(rootPath);
    if (!watcher) return;
    watchers.delete(rootPath);
    await watcher.close();
    emit({ type: "missing", rootPath });
    await watchForReturn(rootPath);
  };

  const watchForReturn = async (rootPath: string) => {
    await sentinels.get(rootPath)?.close();
    sentinels.delete(rootPath);
    if (controller.signal.aborted) return;
    if (isDirectory(rootPath)) {
      await returned(rootPath);
      return;
    }
    let parent = path.dirname(rootPath);
    while (!isDirectory(parent) && path.dirname(parent) !== parent) parent = path.dirname(parent);
    const sentinel = watch(parent, { ignoreInitial: true, depth: 0, followSymlinks: false });
    sentinel.on("addDir", () => void watchForReturn(rootPath));
    sentinel.on("error", () => void watchForReturn(rootPath));
    await new Promise<void>((resolve) => sentinel.once("ready", () => resolve()));
    sentinels.set(rootPath, sentinel);
    // It may have come back while the sentinel was starting.
    if (isDirectory(rootPath)) await watchForReturn(rootPath);
  };

  const returned = async (rootPath: string) => {
    if (watchers.has(rootPath)) return;
    await watchRoot(rootPath);
    schedule(rootPath, "returned", undefined, 0);
  };

  try {
    for (const rootPath of roots) {
      if (isDirectory(rootPath)) {
        await watchRoot(rootPath);
        pending.set(rootPath, { paths: new Set(), reason: "start", firstAt: Date.now(), queued: true });
        queue = queue.then(() => runSync(rootPath));
      } else {
        emit({ type: "missing", rootPath });
        await watchForReturn(rootPath);
      }
    }
    // Each start sync began after its folder's watcher was ready, so no change made meanwhile is missed.
    await queue;
    emit({ type: "ready", folders: roots });
    if (!controller.signal.aborted) await new Promise<void>((resolve) => controller.signal.addEventListener("abort", () => resolve(), { once: true }));
  } finally {
    options.signal?.removeEventListener("abort", stop);
    for (const state of pending.values()) clearTimeout(state.timer);
    await Promise.all([...watchers.values(), ...sentinels.values()].map((watcher) => watcher.close()));
    await queue;
  }
}

/** True when every changed path is a chunk file whose text is what the store last wrote or took in. */
async function onlyOwnChunkFiles(store: MainStore, rootPath: string, paths: ReadonlySet<string>): Promise<boolean> {
  const folder = await store.getFolderByPath(rootPath);
  if (!folder || paths.size === 0) return false;
  for (const changed of paths) {
    const absolute = path.join(rootPath, ...changed.split("/"));
    const inChunks = path.relative(folder.chunksRootPath, absolute);
    if (inChunks.startsWith("..") || path.isAbsolute(inChunks)) return false;
    // A folder in _chunks/ (made or removed with the chunk files in it) is no news by itself.
    if (!inChunks.endsWith(CHUNK_FILE_EXTENSION)) continue;
    const source = await store.getSource(folder.id, inChunks.slice(0, -CHUNK_FILE_EXTENSION.length).split(path.sep).join("/"));
    let text: string | undefined;
    try {
      text = fs.readFileSync(absolute, "utf8");
    } catch {
      text = undefined;
    }
    if (text === undefined ? source !== null : source === null || (hashText(text) !== source.chunkFileHash && hashText(text) !== source.syncedChunkFileHash)) return false;
  }
  return true;
}

function isDirectory(file: string): boolean {
  try {
    return fs.statSync(file).isDirectory();
  } catch {
    return false;
  }
}

/** The folders to watch: those named, or all; one another machine owns is refused when named, skipped (with an error event saying why) otherwise. */
async function foldersToWatch(store: MainStore, folders: readonly string[], cwd: string | undefined, otherOwner: WatchDependencies["otherOwner"], emit: (event: WatchEvent) => void): Promise<string[]> {
  const roots: string[] = [];
  const named = folders.length > 0;
  const candidates: Array<{ id: string; rootPath: string }> = named ? [] : await store.listFolders();
  for (const spec of folders) {
    const found = await findAddedFolder(store, spec, cwd === undefined ? {} : { cwd });
    if (!found) throw folderNotAdded(spec, "watch");
    candidates.push(found);
  }
  for (const folder of candidates) {
    const owner = (await otherOwner?.(folder.id)) ?? null;
    if (owner !== null && named) throw ownedElsewhere(folder.rootPath, owner, "watch");
    if (owner !== null) emit({ type: "error", rootPath: folder.rootPath, message: `belongs to the machine "${owner.name}", which watches it; not watched here (its chunks stay searchable)` });
    else if (!roots.includes(folder.rootPath)) roots.push(folder.rootPath);
  }
  return roots;
}
