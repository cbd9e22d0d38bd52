import type { Stats } from "node:fs";
import type { SourceRecord } from "../../store/index.js";

/**
 * A chunk file as a stat recorded beside the hash of its text at that moment: on a run where
 * nothing changed, a chunk file whose lstat still gives the same size, modification time and
 * inode is not read or hashed again (an edit in place changes the time; an editor that saves by
 * renaming changes the inode). Like a source's size and time, an edit within the same clock tick
 * that keeps the size is not seen by a stat; it is taken in when the file or its source next
 * changes, and is never overwritten meanwhile (a write always compares the text first).
 */
export function chunkFileStatOf(stats: Pick<Stats, "size" | "mtimeMs" | "ino">, hash: string): string {
  return `${stats.size}:${stats.mtimeMs}:${stats.ino}:${hash}`;
}

/**
 * True when the chunk file is, by its stat, the text last taken into the database, and has no
 * permission its source lacks (else it is read, and narrowed, as before).
 */
export function chunkFileUnchanged(previous: SourceRecord, stats: Stats | undefined, sourceMode: number | undefined): boolean {
  if (!stats?.isFile() || sourceMode === undefined || !previous.chunkFileStat || previous.syncedChunkFileHash === null) return false;
  if (previous.chunkFileStat !== chunkFileStatOf(stats, previous.syncedChunkFileHash)) return false;
  const allowed = 0o666 & ~process.umask() & sourceMode;
  return (stats.mode & 0o777 & ~allowed) === 0;
}
