import { statSync } from "node:fs";
import fs from "node:fs/promises";
import path from "node:path";
import { CHUNKS_DIR_NAME } from "../chunkfiles/paths.js";

/** Files stat'ed between two turns of the event loop (≈ 1 ms of work). */
const STATS_PER_TURN = 256;

export interface WalkedFile {
  /** Relative to the root, forward slashes. */
  relativePath: string;
  absolutePath: string;
  size: number;
  mtimeMs: number;
  /** Permission bits (a chunk file never gets more than its source). */
  mode?: number;
}

export interface WalkSkip {
  relativePath: string;
  reason: string;
}

export interface WalkResult {
  files: WalkedFile[];
  skipped: WalkSkip[];
}

/**
 * A file's modification time as source records keep it (whole milliseconds): whatever records a
 * source (processing, an import) must use it, or the next run sees every file as changed.
 */
export function recordedMtimeMs(stats: { mtimeMs: number }): number {
  return Math.trunc(stats.mtimeMs);
}

export interface WalkOptions {
  /** Lower-case extensions with the dot that some parser reads. */
  supportedExtensions: ReadonlySet<string>;
  maxFileSizeBytes: number;
  /** Real paths of folders not to enter, with the reason shown (the `_chunks/` of a folder added inside this one). */
  skipDirectories?: ReadonlyMap<string, string>;
  /** Content sniffing for files whose extension is not supported: true reads the file as text. */
  isText?: (absolutePath: string) => Promise<boolean>;
}

/**
 * Lists the documents under a folder: recursive, skipping `_chunks/`, hidden files and
 * folders, and symlinks that leave the folder (or loop back into it). Files no parser reads,
 * and files over the size limit, come back in `skipped` with the reason.
 */
export async function walkFolder(root: string, options: WalkOptions): Promise<WalkResult> {
  const realRoot = await fs.realpath(root);
  const files: WalkedFile[] = [];
  const skipped: WalkSkip[] = [];
  const visitedDirectories = new Set<string>([realRoot]);
  let statted = 0;

  const visit = async (directory: string, relativeDirectory: string): Promise<void> => {
    let entries;
    try {
      entries = await fs.readdir(directory, { withFileTypes: true });
    } catch (error) {
      skipped.push({ relativePath: relativeDirectory || ".", reason: `cannot read folder: ${(error as Error).message}` });
      return;
    }
    entries.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
    for (const entry of entries) {
      const relativePath = relativeDirectory ? `${relativeDirectory}/${entry.name}` : entry.name;
      const absolutePath = path.join(directory, entry.name);
      if (entry.name.startsWith(".")) continue;
      if (!relativeDirectory && entry.name === CHUNKS_DIR_NAME) continue;
      if (entry.name.includes("\\")) {
        // References use forward slashes on every platform, and a backslash is a separator on
        // Windows, so such a name cannot be indexed; it is reported and the rest goes on.
        skipped.push({ relativePath, reason: "its name contains a backslash (\\), which Chunkpad cannot index; rename it to include it" });
        continue;
      }

      let stats;
      let target = absolutePath;
      if (entry.isSymbolicLink()) {
        try {
          target = await fs.realpath(absolutePath);
        } catch {
          skipped.push({ relativePath, reason: "broken symlink" });
          continue;
        }
        if (target !== realRoot && !target.startsWith(realRoot + path.sep)) {
          skipped.push({ relativePath, reason: "symlink leaves the folder" });
          continue;
        }
      }
      try {
        // Synchronous, a few microseconds each against 17–28 µs of CPU through the thread pool (a
        // run where nothing changed is mostly this walk); the event loop gets a turn every
        // STATS_PER_TURN files, so a server walking a large folder still answers meanwhile.
        stats = statSync(target);
        if (++statted % STATS_PER_TURN === 0) await new Promise((resolve) => setImmediate(resolve));
      } catch (error) {
        skipped.push({ relativePath, reason: `cannot read: ${(error as Error).message}` });
        continue;
      }

      if (stats.isDirectory()) {
        const skipReason = options.skipDirectories?.get(target);
        if (skipReason !== undefined) {
          skipped.push({ relativePath, reason: skipReason });
          continue;
        }
        if (visitedDirectories.has(target)) {
          skipped.push({ relativePath, reason: "symlink loops back into the folder" });
          continue;
        }
        visitedDirectories.add(target);
        await visit(target === absolutePath ? absolutePath : target, relativePath);
        continue;
      }
      if (!stats.isFile()) continue;

      const extension = path.extname(entry.name).toLowerCase();
      if (!options.supportedExtensions.has(extension) && !(await options.isText?.(target))) {
        skipped.push({ relativePath, reason: extension ? `unsupported file type ${extension}` : "no file extension" });
        continue;
      }
      if (stats.size > options.maxFileSizeBytes) {
        const megabytes = (stats.size / 1024 / 1024).toFixed(1);
        const limit = (options.maxFileSizeBytes / 1024 / 1024).toFixed(0);
        skipped.push({ relativePath, reason: `too large (${megabytes} MB > ${limit} MB limit; raise ingest.maxFileSizeMb to include it)` });
        continue;
      }
      files.push({ relativePath, absolutePath: target, size: stats.size, mtimeMs: recordedMtimeMs(stats), mode: stats.mode });
    }
  };

  await visit(realRoot, "");
  return { files, skipped };
}
