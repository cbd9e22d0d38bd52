import os from "node:os";
import path from "node:path";
import { randomUUID } from "node:crypto";
import type pg from "pg";
import { abortableDelay } from "../../core/abortable-delay.js";
import { ChunkpadError } from "../../core/errors.js";
import type { LeaseHolder, LeaseOptions, StoreMachine } from "../contract.js";
import { folderLockKey } from "../file-locks.js";
import { folderBusyError } from "../lease-holder.js";

/**
 * Folder leases on PostgreSQL: a session advisory lock per folder on a connection held for the
 * lease, so every server sharing the database sees it, and a server that dies loses its leases
 * with its connection (nothing stale to clean up). Who holds it is written beside, for waiters.
 */

const POLL_MS = 200;

/** The advisory lock key of a folder: its lock key (a hash of the real path) as a positive int8. */
function advisoryKey(folder: string): string {
  return BigInt(`0x${folderLockKey(folder).slice(0, 15)}`).toString();
}

/**
 * `connect` opens a connection of the lease's own, outside the query pool: a lease lasts a whole
 * job, and the job's queries must not wait for the connection that holds its lease.
 */
export function createLeases(connect: () => Promise<pg.Client>, command: string, machine: StoreMachine | null): (folders: readonly string[], options?: LeaseOptions) => Promise<() => Promise<void>> {
  return async (folders, options = {}) => {
    const ordered = [...new Set(folders.map((folder) => path.resolve(folder)))].map((folder) => ({ folder, key: advisoryKey(folder) })).sort((a, b) => a.key.localeCompare(b.key));
    if (ordered.length === 0) return async () => undefined;
    const client = await connect();
    client.on("error", () => undefined);
    const taken: string[] = [];
    const token = randomUUID();
    const release = async () => {
      try {
        for (const key of taken.splice(0).reverse()) {
          // The job may have been `reset`, which drops every table (this one too): nothing to take back then.
          await client.query("DELETE FROM folder_leases WHERE key = $1 AND holder->>'token' = $2", [key, token]).catch((error: unknown) => {
            if ((error as { code?: string }).code !== "42P01") throw error;
          });
          await client.query("SELECT pg_advisory_unlock($1::bigint)", [key]);
        }
      } finally {
        // Closing the session also ends every advisory lock it held.
        await client.end().catch(() => undefined);
      }
    };
    try {
      for (const { folder, key } of ordered) {
        const holder: LeaseHolder = { pid: process.pid, hostname: os.hostname(), machine, command: options.purpose === undefined ? command : `${command} ${options.purpose}`, folder, startedAt: new Date().toISOString(), token };
        let announced = false;
        for (;;) {
          if (options.signal?.aborted) throw new ChunkpadError("CANCELLED", "Stopped while waiting for another Chunkpad to finish with the folder.");
          const locked = (await client.query<{ locked: boolean }>("SELECT pg_try_advisory_lock($1::bigint) AS locked", [key])).rows[0]?.locked === true;
          if (locked) {
            taken.push(key);
            await client.query("INSERT INTO folder_leases (key, holder) VALUES ($1, $2) ON CONFLICT (key) DO UPDATE SET holder = excluded.holder", [key, JSON.stringify(holder)]);
            break;
          }
          const written = (await client.query<{ holder: LeaseHolder }>("SELECT holder FROM folder_leases WHERE key = $1", [key])).rows[0]?.holder;
          // A holder written before machines were named has none.
          const current = written === undefined ? undefined : { ...written, machine: written.machine ?? null };
          if (options.wait === false) throw folderBusyError(folder, current);
          if (!announced && current !== undefined) options.onWaiting?.(current);
          announced = true;
          await abortableDelay(POLL_MS, options.signal);
        }
      }
    } catch (error) {
      await release();
      throw error;
    }
    return release;
  };
}
