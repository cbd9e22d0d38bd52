import { createHash, randomUUID } from "node:crypto";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { abortableDelay } from "../core/abortable-delay.js";
import { ChunkpadError } from "../core/errors.js";
import type { LeaseHolder, LeaseOptions, StoreMachine } from "./contract.js";
import { folderBusyError } from "./lease-holder.js";

/**
 * Folder leases for the SQLite backend: one lock file per folder in the data directory (the
 * processes sharing a SQLite file share its machine). PostgreSQL takes advisory locks instead.
 */

/** Who holds a folder's lock, as written in its lock file. */
export type LockHolder = LeaseHolder;

export type FolderLockOptions = Omit<LeaseOptions, "purpose">;

export interface FolderLocks {
  /**
   * Takes the lock of every folder, one by one in a stable order (so two callers never wait on
   * each other in a cycle); resolves to a function that releases them all.
   */
  acquire(folders: readonly string[], options?: FolderLockOptions & { purpose?: string }): Promise<() => void>;
}

export interface FolderLocksOptions {
  /** The folder holding `<key>.lock` files. */
  directory: string;
  /** What this process is (the CLI, a server…), shown to whoever waits. */
  command: string;
  pid?: number;
  hostname?: string;
  /** This machine, named in the lock for whoever waits (null or absent: only the host is). */
  machine?: StoreMachine | null;
  /** How often a waiter looks again; the holder may finish or die at any moment. */
  pollMs?: number;
  /** A lock from another host cannot be checked for a live process: taken over only when this old. */
  foreignStaleMs?: number;
  /** Called after a lock was judged stale and before it is taken over (tests pause a taker here to race another). */
  beforeTakeover?: () => Promise<void>;
}

const FOREIGN_STALE_MS = 12 * 60 * 60 * 1000;

/** The lock file's name for a folder: its real path hashed (the folder may not be in the store yet). */
export function folderLockKey(folder: string): string {
  let real = path.resolve(folder);
  try {
    real = fs.realpathSync(real);
  } catch {
    // A folder that is not there yet still gets one stable name.
  }
  return createHash("sha256").update(real).digest("hex").slice(0, 24);
}

export function createFolderLocks(options: FolderLocksOptions): FolderLocks {
  const pid = options.pid ?? process.pid;
  const hostname = options.hostname ?? os.hostname();
  const machine = options.machine ?? null;
  const pollMs = options.pollMs ?? 100;
  const foreignStaleMs = options.foreignStaleMs ?? FOREIGN_STALE_MS;
  const held = new Map<string, string>(); // lock file → token

  // A killed process cannot release; an orderly exit (process.exit after an error) still does.
  const releaseOnExit = () => {
    for (const [file, token] of held) removeIfOurs(file, token);
  };

  const isStale = (holder: LockHolder | undefined, file: string): boolean => {
    if (holder === undefined) {
      // Unreadable or not ours to parse: only a file left half-written long ago is stale.
      return ageMs(file) > foreignStaleMs;
    }
    if (holder.hostname !== hostname) return Date.now() - Date.parse(holder.startedAt) > foreignStaleMs;
    return !isAlive(holder.pid);
  };

  const tryTake = async (file: string, folder: string, command: string): Promise<{ token: string } | { holder: LockHolder | undefined }> => {
    const holder: LockHolder = { pid, hostname, machine, command, folder, startedAt: new Date().toISOString(), token: randomUUID() };
    // Written whole under a private name, then linked into place: link fails if the lock exists, and
    // nobody ever reads a half-written lock.
    const draft = `${file}.${holder.token}.draft`;
    await fs.promises.writeFile(draft, JSON.stringify(holder)).catch(async (error: NodeJS.ErrnoException) => {
      // The folder of locks went away with another process's last release: make it again.
      if (error.code !== "ENOENT") throw lockError(file, error);
      await fs.promises.mkdir(path.dirname(file), { recursive: true });
      await fs.promises.writeFile(draft, JSON.stringify(holder));
    });
    try {
      await fs.promises.link(draft, file);
      return { token: holder.token };
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== "EEXIST") throw lockError(file, error);
    } finally {
      await fs.promises.rm(draft, { force: true });
    }
    const current = await readHolder(file);
    if (!isStale(current, file)) return { holder: current };
    await options.beforeTakeover?.();
    // Take the stale file out of the way under a private name, then check that it is the one judged
    // stale: a faster taker may have replaced it already, and then its lock is put back.
    const moved = `${file}.${holder.token}.stale`;
    try {
      await fs.promises.rename(file, moved);
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === "ENOENT") return tryTake(file, folder, command);
      throw lockError(file, error);
    }
    const taken = await readHolder(moved);
    if (current !== undefined && taken?.token !== current.token) {
      await fs.promises.link(moved, file).catch(() => undefined);
      await fs.promises.rm(moved, { force: true });
      return { holder: taken };
    }
    await fs.promises.rm(moved, { force: true });
    return tryTake(file, folder, command);
  };

  const acquireOne = async (folder: string, lockOptions: FolderLockOptions & { purpose?: string }): Promise<string> => {
    const command = lockOptions.purpose === undefined ? options.command : `${options.command} ${lockOptions.purpose}`;
    const file = path.join(options.directory, `${folderLockKey(folder)}.lock`);
    await fs.promises.mkdir(options.directory, { recursive: true });
    let announced = false;
    for (;;) {
      if (lockOptions.signal?.aborted) throw new ChunkpadError("CANCELLED", "Stopped while waiting for another Chunkpad to finish with the folder.");
      const outcome = await tryTake(file, folder, command);
      if ("token" in outcome) {
        if (held.size === 0) process.on("exit", releaseOnExit);
        held.set(file, outcome.token);
        return file;
      }
      const holder = outcome.holder;
      if (lockOptions.wait === false) throw folderBusyError(folder, holder, { advice: ` If no Chunkpad is running there, delete ${file}.`, details: { lockFile: file } });
      if (!announced && holder !== undefined) lockOptions.onWaiting?.(holder);
      announced = true;
      await abortableDelay(pollMs, lockOptions.signal);
    }
  };

  const releaseFile = (file: string) => {
    const token = held.get(file);
    if (token === undefined) return;
    held.delete(file);
    removeIfOurs(file, token);
    if (held.size === 0) process.off("exit", releaseOnExit);
    // No empty locks folder left in the data dir; fails harmlessly while another lock is in it.
    try {
      fs.rmdirSync(options.directory);
    } catch {
      // ENOTEMPTY or already gone.
    }
  };

  return {
    async acquire(folders, lockOptions = {}) {
      const ordered = [...new Set(folders.map((folder) => path.resolve(folder)))].sort((a, b) => folderLockKey(a).localeCompare(folderLockKey(b)));
      const files: string[] = [];
      try {
        for (const folder of ordered) files.push(await acquireOne(folder, lockOptions));
      } catch (error) {
        for (const file of files) releaseFile(file);
        throw error;
      }
      return () => {
        for (const file of files.reverse()) releaseFile(file);
      };
    },
  };
}

function removeIfOurs(file: string, token: string): void {
  try {
    const holder = JSON.parse(fs.readFileSync(file, "utf8")) as Partial<LockHolder>;
    if (holder.token === token) fs.rmSync(file, { force: true });
  } catch {
    // Gone already, or taken over after we were judged dead: not ours to remove.
  }
}

async function readHolder(file: string): Promise<LockHolder | undefined> {
  try {
    const value = JSON.parse(await fs.promises.readFile(file, "utf8")) as Partial<LockHolder>;
    if (typeof value.pid !== "number" || typeof value.hostname !== "string" || typeof value.token !== "string") return undefined;
    return { pid: value.pid, hostname: value.hostname, machine: isMachine(value.machine) ? value.machine : null, command: String(value.command ?? "chunkpad"), folder: String(value.folder ?? ""), startedAt: String(value.startedAt ?? ""), token: value.token };
  } catch {
    return undefined;
  }
}

function isMachine(value: unknown): value is StoreMachine {
  return typeof value === "object" && value !== null && typeof (value as StoreMachine).id === "string" && typeof (value as StoreMachine).name === "string";
}

function ageMs(file: string): number {
  try {
    return Date.now() - fs.statSync(file).mtimeMs;
  } catch {
    return Number.POSITIVE_INFINITY;
  }
}

function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    // EPERM: alive but another user's process.
    return (error as NodeJS.ErrnoException).code !== "ESRCH";
  }
}


function lockError(file: string, error: unknown): ChunkpadError {
  return new ChunkpadError("DATABASE_ERROR", `Cannot write the lock file ${file} (${(error as Error).message}). Check that the data folder is writable, or set CHUNKPAD_HOME to a writable folder.`, { cause: error });
}
