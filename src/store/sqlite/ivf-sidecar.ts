import { createHash } from "node:crypto";
import fs from "node:fs";
import path from "node:path";

/**
 * The small file beside the database that names the approximate index's current file
 * (`{db}.ivf.json`, ann.ts) and what a process needs to trust it without reading it whole.
 */

/** Sidecar format: 3 is the inverted file (no sidecar of this name existed before it). */
export const SIDECAR_FORMAT = 3;

export interface Sidecar {
  format: number;
  file: string;
  appliedSeq: number;
  dimensions: number;
  /** The file's size and a hash of its first and last 64 KB: a damaged or swapped file is rebuilt, never loaded. */
  bytes: number;
  sample: string;
  vectors: number;
  /** Lists a search scans, chosen on the recall the build measured. */
  nprobe: number;
  /** Vectors the centroids were made from, and vectors added or removed since (merged by saves). */
  trainedOn: number;
  changed: number;
}

const SAMPLE_BYTES = 64 * 1024;

/** Size and sampled hash of an open file, cheap even for a large index. */
export function fingerprint(handle: number): { bytes: number; sample: string } {
  const bytes = fs.fstatSync(handle).size;
  const hash = createHash("sha256");
  const buffer = Buffer.alloc(Math.min(SAMPLE_BYTES, bytes));
  fs.readSync(handle, buffer, 0, buffer.length, 0);
  hash.update(buffer);
  fs.readSync(handle, buffer, 0, buffer.length, Math.max(0, bytes - buffer.length));
  hash.update(buffer);
  return { bytes, sample: hash.digest("hex") };
}

/** The sidecar at `file`, or null when it is missing, of another format or names a path. */
export function readSidecarFile(file: string): Sidecar | null {
  try {
    const value = JSON.parse(fs.readFileSync(file, "utf8")) as Partial<Sidecar>;
    if (value.format !== SIDECAR_FORMAT || typeof value.file !== "string" || typeof value.appliedSeq !== "number" || typeof value.dimensions !== "number" || typeof value.bytes !== "number" || typeof value.sample !== "string" || typeof value.trainedOn !== "number" || typeof value.changed !== "number") return null;
    if (value.file.includes("/") || value.file.includes("\\")) return null;
    return value as Sidecar;
  } catch {
    return null;
  }
}

/** Replaces the sidecar at once (a temporary file renamed over it), readable by this user only. */
export function writeSidecarFile(file: string, sidecar: Sidecar): void {
  const temporary = `${file}.${process.pid}.tmp`;
  fs.writeFileSync(temporary, JSON.stringify(sidecar), { mode: 0o600 });
  fs.renameSync(temporary, file);
}

/** Deletes the files in `directory` whose names start with `prefix` (an index's files beside its database). */
export function removeFilesStartingWith(directory: string, prefix: string): void {
  for (const name of fs.readdirSync(directory)) if (name.startsWith(prefix)) fs.rmSync(path.join(directory, name), { force: true });
}
