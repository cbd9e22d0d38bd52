import os from "node:os";
import { ChunkpadError } from "../core/errors.js";
import type { LeaseHolder } from "./contract.js";

/**
 * Who holds a folder's lease, in words, for both backends' FOLDER_BUSY and for waiters: the
 * machine by its name and id, as folder ownership names it (a PostgreSQL store is shared by
 * machines whose host names may repeat); a holder that named no machine, by its host when that is
 * another one.
 */
export function describeLeaseHolder(holder: LeaseHolder | undefined): string {
  if (holder === undefined) return "another Chunkpad";
  const where = holder.machine !== null ? ` on the machine "${holder.machine.name}" (id ${holder.machine.id})` : holder.hostname === os.hostname() ? "" : ` on ${holder.hostname}`;
  return `another Chunkpad (pid ${holder.pid}${where}, ${holder.command}, since ${holder.startedAt})`;
}

/** FOLDER_BUSY: the folder is another holder's and the caller would not wait. `advice` ends the message. */
export function folderBusyError(folder: string, holder: LeaseHolder | undefined, { advice = "", details = {} }: { advice?: string; details?: Record<string, unknown> } = {}): ChunkpadError {
  const { pid, hostname, machine, command, startedAt } = holder ?? {};
  return new ChunkpadError("FOLDER_BUSY", `${describeLeaseHolder(holder)} is working on ${folder}. Run this again when it has finished, or without --no-wait to wait for it.${advice}`, {
    isRetryable: true,
    details: { folder, ...details, ...(holder === undefined ? {} : { pid, hostname, machine, command, startedAt }) },
  });
}
