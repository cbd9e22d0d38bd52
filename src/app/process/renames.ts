import path from "node:path";
import { chunkFilePathIn } from "../../chunkfiles/paths.js";
import { hashText } from "../../chunkfiles/hash.js";
import { readChunkFileSafely, removeChunkFileSafely, writeChunkFileSafely } from "../../chunkfiles/safe-files.js";
import { encodeText } from "../../chunkfiles/meta-comment.js";
import type { WalkedFile } from "../../ingest/walk.js";
import type { MainStore, SourceRecord } from "../../store/index.js";
import fs from "node:fs/promises";
import { hashFileIfPresent } from "./files.js";
import type { FolderPlace } from "./place.js";

/**
 * A renamed or moved file is the same document under a new path: it keeps its chunks, review
 * decisions and vectors instead of being parsed, chunked and embedded again. A source that is
 * gone and a new file with the same size and bytes are taken for one file renamed; anything
 * less certain (a changed file, two gone files with the same bytes) is left to the usual
 * delete-and-add, which is always correct, only slower.
 */

export interface Rename {
  from: string;
  to: string;
}

const HEADER_LINE = /^<!--\s*chunkpad\s+source=.*-->$/m;

/**
 * A file renamed while the folder is walked can be listed at both paths: the old one before the
 * move, the new one after. A listed source with a new file of the same size is looked at again
 * after the walk; if it is gone now, it is gone for this run too (taken out of `present` and
 * of the files to process), so the pair is found as a rename instead of a new file to parse and
 * embed and an old one to delete. Returns the files still there.
 */
export async function recheckMovedDuringWalk(files: readonly WalkedFile[], present: Set<string>, previous: ReadonlyMap<string, SourceRecord>): Promise<WalkedFile[]> {
  const newSizes = new Set(files.filter((file) => !previous.has(file.relativePath)).map((file) => file.size));
  if (newSizes.size === 0) return [...files];
  const vanished = new Set<string>();
  for (const file of files) {
    const source = previous.get(file.relativePath);
    if (!source || !newSizes.has(source.size)) continue;
    const stillThere = await fs.lstat(file.absolutePath).then(
      () => true,
      (error: NodeJS.ErrnoException) => error.code !== "ENOENT" && error.code !== "ENOTDIR",
    );
    if (!stillThere) vanished.add(file.relativePath);
  }
  for (const relativePath of vanished) present.delete(relativePath);
  return files.filter((file) => !vanished.has(file.relativePath));
}

/**
 * Finds the renames among this run's new files and vanished sources and moves each one in the
 * store and in `_chunks/`. `previous` is updated to what the store now holds, so the run goes
 * on as if the file had always been at its new path.
 */
export async function applyRenames(store: MainStore, place: FolderPlace, files: readonly WalkedFile[], present: ReadonlySet<string>, previous: Map<string, SourceRecord>): Promise<Rename[]> {
  const gone = [...previous.values()].filter((source) => !present.has(source.relativePath) && source.status === "processed" && source.sourceHash !== null);
  const added = files.filter((file) => !previous.has(file.relativePath));
  if (gone.length === 0 || added.length === 0) return [];

  const bySize = new Map<number, SourceRecord[]>();
  for (const source of gone) bySize.set(source.size, [...(bySize.get(source.size) ?? []), source]);
  const renames: Rename[] = [];
  const taken = new Set<string>();
  for (const file of added) {
    const candidates = (bySize.get(file.size) ?? []).filter((source) => !taken.has(source.relativePath));
    if (candidates.length === 0) continue;
    const hash = await hashFileIfPresent(file.absolutePath);
    const matches = candidates.filter((source) => source.sourceHash === hash);
    // Two vanished files with the same bytes: which one moved cannot be told, so neither is guessed.
    if (matches.length !== 1) continue;
    const source = matches[0] as SourceRecord;
    taken.add(source.relativePath);
    const moved = await moveDocument(store, place, source, file.relativePath);
    if (!moved) continue;
    previous.delete(source.relativePath);
    previous.set(file.relativePath, moved);
    renames.push({ from: source.relativePath, to: file.relativePath });
  }
  return renames;
}

/**
 * Store first (one transaction), then the chunk file: a crash between the two leaves a document
 * whose chunk file is missing, which the next run writes again from the source.
 */
async function moveDocument(store: MainStore, place: FolderPlace, source: SourceRecord, to: string): Promise<SourceRecord | undefined> {
  if (await store.getDocumentByPath(place.folderId, to)) return undefined;
  if (!(await store.renameDocument(place.folderId, source.relativePath, to))) return undefined;
  const fromFile = chunkFilePathIn(place.chunksRoot, source.relativePath);
  const toFile = chunkFilePathIn(place.chunksRoot, to);
  const text = await readChunkFileSafely(place.chunksRoot, fromFile);
  let { chunkFileHash, syncedChunkFileHash } = source;
  if (text !== undefined) {
    const untouched = hashText(text) === source.chunkFileHash;
    // Chunkpad's own file names its source in the header; a file the user edited is moved as it is.
    const moved = untouched ? text.replace(HEADER_LINE, `<!-- chunkpad source=${encodeText(to)} -->`) : text;
    await writeChunkFileSafely(place.chunksRoot, toFile, moved, { sourcePath: path.join(place.root, ...to.split("/")) });
    await removeChunkFileSafely(place.chunksRoot, fromFile);
    if (untouched) {
      const movedHash = hashText(moved);
      if (syncedChunkFileHash === chunkFileHash) syncedChunkFileHash = movedHash;
      chunkFileHash = movedHash;
    }
  }
  const record: SourceRecord = { ...source, relativePath: to, chunkFileHash, syncedChunkFileHash };
  await store.upsertSource(record);
  return record;
}
