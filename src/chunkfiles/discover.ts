import type { Dirent } from "node:fs";
import fs from "node:fs/promises";
import path from "node:path";
import { ChunkpadError } from "../core/errors.js";
import { writeFileDurably } from "../core/durable-write.js";
import type { ChunkDraft } from "../core/types.js";
import { readChunkFileText, renderChunkFile } from "./format.js";
import type { ChunkFileHeader, ParsedChunkFile } from "./format.js";
import { hashText } from "./hash.js";
import { CHUNK_FILE_EXTENSION, CHUNKS_DIR_NAME, chunksRootFor, sourcePathForChunkFile } from "./paths.js";

/** One chunk file found on disk. */
export interface ChunkFileInfo {
  /** The source it stands for, relative to the folder root, with forward slashes. */
  relativeSourcePath: string;
  /** Absolute path of the chunk file. */
  path: string;
  mtimeMs: number;
  size: number;
}

export interface ChunkFileContents extends ParsedChunkFile {
  /** sha256 of the file's text: changes when anyone edits the file. */
  fileHash: string;
}

export interface WrittenChunkFile {
  /** sha256 of the text written; equal to readChunkFile(...).fileHash until someone edits it. */
  fileHash: string;
  bytes: number;
}

function isMissing(error: unknown): boolean {
  return (error as NodeJS.ErrnoException | null)?.code === "ENOENT";
}

/**
 * Every chunk file under {root}/_chunks/, sorted by source path. Hidden entries (our own
 * temporary files among them) and symlinks are skipped; a missing _chunks/ is no chunk files.
 */
export async function discoverChunkFiles(rootPath: string): Promise<ChunkFileInfo[]> {
  const root = path.resolve(rootPath);
  const found: ChunkFileInfo[] = [];
  const walk = async (directory: string): Promise<void> => {
    let entries: Dirent[];
    try {
      entries = await fs.readdir(directory, { withFileTypes: true });
    } catch (error) {
      if (isMissing(error)) return;
      throw error;
    }
    for (const entry of entries) {
      if (entry.name.startsWith(".")) continue;
      const entryPath = path.join(directory, entry.name);
      if (entry.isDirectory()) await walk(entryPath);
      else if (entry.isFile() && entry.name.endsWith(CHUNK_FILE_EXTENSION) && entry.name.length > CHUNK_FILE_EXTENSION.length) {
        try {
          const stats = await fs.stat(entryPath);
          found.push({ relativeSourcePath: sourcePathForChunkFile(root, entryPath), path: entryPath, mtimeMs: stats.mtimeMs, size: stats.size });
        } catch (error) {
          if (!isMissing(error)) throw error; // removed while we looked: not there
        }
      }
    }
  };
  await walk(chunksRootFor(root));
  return found.sort((a, b) => (a.relativeSourcePath < b.relativeSourcePath ? -1 : a.relativeSourcePath > b.relativeSourcePath ? 1 : 0));
}

export async function readChunkFile(filePath: string): Promise<ChunkFileContents> {
  let text: string;
  try {
    text = await fs.readFile(filePath, "utf8");
  } catch (error) {
    if (isMissing(error)) {
      throw new ChunkpadError("NOT_FOUND", `The chunk file ${filePath} does not exist; process the folder again to recreate it.`, { cause: error });
    }
    throw error;
  }
  return { ...readChunkFileText(text), fileHash: hashText(text) };
}

/** Renders and writes a chunk file atomically and durably (see writeFileDurably). */
export async function writeChunkFile(filePath: string, chunks: readonly ChunkDraft[], header?: ChunkFileHeader): Promise<WrittenChunkFile> {
  const text = renderChunkFile(chunks, header);
  await writeFileDurably(filePath, text);
  return { fileHash: hashText(text), bytes: Buffer.byteLength(text, "utf8") };
}

/** The _chunks/ directory a chunk file sits in: {rootPath}/_chunks, or its nearest ancestor so named. */
function chunksRootAbove(filePath: string, rootPath: string | undefined): string | undefined {
  if (rootPath !== undefined) return path.resolve(chunksRootFor(rootPath));
  let directory = path.dirname(path.resolve(filePath));
  while (path.basename(directory) !== CHUNKS_DIR_NAME) {
    const parent = path.dirname(directory);
    if (parent === directory) return undefined;
    directory = parent;
  }
  return directory;
}

/**
 * Deletes a chunk file and then the directories inside _chunks/ it leaves empty (never
 * _chunks/ itself). Returns false when there was no such file. Pass the folder root when you
 * have it; otherwise the nearest ancestor named _chunks bounds the pruning.
 */
export async function removeChunkFile(filePath: string, rootPath?: string): Promise<boolean> {
  return removeChunkFileIn(chunksRootAbove(filePath, rootPath), filePath);
}

/** removeChunkFile with the chunks root given (undefined: prune nothing). */
export async function removeChunkFileIn(chunksRootPath: string | undefined, filePath: string): Promise<boolean> {
  try {
    await fs.unlink(filePath);
  } catch (error) {
    if (isMissing(error)) return false;
    throw error;
  }
  if (chunksRootPath === undefined) return true;
  const chunksRoot = path.resolve(chunksRootPath);
  let directory = path.dirname(path.resolve(filePath));
  while (directory !== chunksRoot && directory.startsWith(chunksRoot + path.sep)) {
    try {
      await fs.rmdir(directory);
    } catch {
      break; // not empty (or not ours to remove): stop pruning
    }
    directory = path.dirname(directory);
  }
  return true;
}
