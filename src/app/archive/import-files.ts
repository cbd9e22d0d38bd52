import { randomUUID } from "node:crypto";
import fs from "node:fs/promises";
import path from "node:path";
import { assertNoLinks, chunkFileModeFor } from "../../chunkfiles/safe-files.js";
import { writeFileDurably } from "../../core/durable-write.js";

/**
 * The files of an import, written in two steps so that a refused or interrupted import leaves
 * nothing in the user's folders: first into a hidden staging folder beside their destination
 * (walks and watchers skip hidden names), then moved into place once the database holds every
 * row. Every path goes through the link-refusing check processing uses (safe-files.ts), so no
 * byte is written through a symbolic link in the target folder or its `_chunks/`.
 */

export interface StagedFile {
  /** The folder the target must stay inside without links (the folder, or its chunks root). */
  base: string;
  staged: string;
  target: string;
}

export interface ImportFiles {
  /** Writes bytes to a staging file for `target`; `mtimeMs` sets its modification time. */
  stage(base: string, target: string, data: Uint8Array, mtimeMs?: number): Promise<StagedFile>;
  /** Moves every staged file into place (one that appeared meanwhile is left alone); returns the targets written. */
  place(): Promise<string[]>;
  /** Removes the staging folders, and with `undo` also every file placed and folder made. */
  finish(undo: boolean): Promise<void>;
  readonly targets: readonly string[];
  /** Makes a folder (and its parents) if missing; what it made goes again on undo. */
  makeFolder(directory: string): Promise<void>;
  /** A folder something else made for this import (the probe of a writable `_chunks/`): removed on undo. */
  track(directory: string): void;
}

const STAGING_PREFIX = ".chunkpad-import-";

/** Files are written no wider than the archive itself may be read (export writes it 0600). */
export function createImportFiles(archiveMode: number): ImportFiles {
  const staged: StagedFile[] = [];
  const stagingFolders = new Map<string, string>();
  const placed: string[] = [];
  const madeFolders: string[] = [];

  const mkdirs = async (directory: string) => {
    const first = await fs.mkdir(directory, { recursive: true });
    // mkdir returns the first folder it made: that one and everything below it are ours.
    if (first !== undefined) madeFolders.push(first);
  };

  const stagingFolderFor = async (base: string): Promise<string> => {
    const known = stagingFolders.get(base);
    if (known) return known;
    await assertNoLinks(base, base);
    await mkdirs(base);
    const folder = path.join(base, `${STAGING_PREFIX}${process.pid}-${randomUUID().slice(0, 8)}`);
    await fs.mkdir(folder, { mode: 0o700 });
    stagingFolders.set(base, folder);
    return folder;
  };

  return {
    makeFolder: mkdirs,
    track: (directory) => void madeFolders.push(directory),
    get targets() {
      return staged.map((file) => file.target);
    },
    async stage(base, target, data, mtimeMs) {
      await assertNoLinks(base, target);
      const folder = await stagingFolderFor(base);
      const file = path.join(folder, String(staged.length));
      await writeFileDurably(file, data, { mode: await chunkFileModeFor({ mode: archiveMode }) });
      if (mtimeMs !== undefined) await fs.utimes(file, new Date(mtimeMs), new Date(mtimeMs));
      const entry = { base, staged: file, target };
      staged.push(entry);
      return entry;
    },
    async place() {
      for (const file of staged) {
        await assertNoLinks(file.base, file.target);
        await mkdirs(path.dirname(file.target));
        // Checked again just before: a file that appeared meanwhile is the user's.
        if (await fs.lstat(file.target).catch(() => undefined)) continue;
        await fs.rename(file.staged, file.target);
        placed.push(file.target);
      }
      return [...placed];
    },
    async finish(undo) {
      for (const folder of stagingFolders.values()) await fs.rm(folder, { recursive: true, force: true });
      if (!undo) return;
      await removePlaced(placed);
      for (const folder of madeFolders.reverse()) await fs.rm(folder, { recursive: true, force: true }).catch(() => undefined);
    },
  };
}

/** Removes files an import put in place, and the folders they leave empty (never through a link). */
export async function removePlaced(files: readonly string[]): Promise<void> {
  for (const file of files) {
    const stats = await fs.lstat(file).catch(() => undefined);
    if (stats?.isFile()) await fs.rm(file, { force: true });
  }
}

/** Staging folders a killed import left in `base` (hidden, so nothing else ever reads them). */
export async function removeLeftoverStaging(base: string): Promise<void> {
  const entries = await fs.readdir(base, { withFileTypes: true }).catch(() => []);
  for (const entry of entries) {
    if (entry.isDirectory() && entry.name.startsWith(STAGING_PREFIX)) await fs.rm(path.join(base, entry.name), { recursive: true, force: true });
  }
}
