import { readChunkFileText } from "../../chunkfiles/format.js";
import { hashBytes } from "../../chunkfiles/hash.js";
import { isChunkpadError } from "../../core/errors.js";
import type { ZipArchive } from "../../ingest/zip.js";
import { checkChunkSizes } from "../process/process-file.js";
import { badArchive, type ArchivedFolder, type Manifest } from "./archive-format.js";

/**
 * Everything about an archive checked before import writes a byte: every entry listed and
 * present once, its size and CRC-32 as recorded (read in strict mode), paths that stay inside
 * their folder and appear once, chunks under the chunk cap (in the manifest and in the chunk
 * files), vectors of the declared size that are all finite numbers and belong to a chunk, and
 * sources with the hash and size the manifest records. What comes back is what import writes.
 */

export interface CheckedFolder {
  archived: ArchivedFolder;
  /** Chunk files (relative to `_chunks/`) and sources (relative to the folder) with their bytes. */
  chunkFiles: Map<string, Uint8Array>;
  sources: Map<string, Uint8Array>;
  /** One row of `dimensions` numbers per archived vector; null without vectors. */
  vectors: Float32Array | null;
}

export const MANIFEST_ENTRY = "manifest.json";

export function checkArchive(zip: ZipArchive, manifest: Manifest, file: string): CheckedFolder[] {
  const refuse = (reason: string) => badArchive(file, reason);
  const names = new Set<string>();
  for (const entry of zip.entries) {
    if (names.has(entry.name)) throw refuse(`it holds the entry ${entry.name} twice`);
    names.add(entry.name);
  }
  const listed = new Set([MANIFEST_ENTRY]);
  const prefixes = new Set<string>();
  const checked: CheckedFolder[] = [];
  for (const archived of manifest.folders) {
    if (prefixes.has(archived.prefix)) throw refuse(`two folders share the entry prefix ${archived.prefix}`);
    prefixes.add(archived.prefix);
    const read = (name: string): Uint8Array => {
      listed.add(name);
      let data: Uint8Array | undefined;
      try {
        data = zip.read(name);
      } catch (error) {
        throw refuse(isChunkpadError(error) ? error.message.replace(/ if you trust the file.*$/, "") : `the entry ${name} cannot be read`);
      }
      if (data === undefined) throw refuse(`the manifest lists ${name}, which the archive does not hold`);
      return data;
    };

    const documents = new Map<string, number>();
    for (const document of archived.documents) {
      checkEntryPath(document.relativePath, refuse);
      if (documents.has(document.relativePath)) throw refuse(`it lists the document ${document.relativePath} twice`);
      documents.set(document.relativePath, document.chunks.length);
    }

    for (const file of archived.unindexed ?? []) checkEntryPath(file.relativePath, refuse);

    const chunkFiles = new Map<string, Uint8Array>();
    for (const relative of unique(archived.chunkFiles, "chunk file", refuse)) {
      checkEntryPath(relative, refuse);
      const data = read(`${archived.prefix}chunks/${relative}`);
      let text: string;
      try {
        text = new TextDecoder("utf-8", { fatal: true }).decode(data);
      } catch {
        throw refuse(`the chunk file ${relative} is not UTF-8 text`);
      }
      try {
        checkChunkSizes(readChunkFileText(text).chunks, relative);
      } catch (error) {
        throw refuse(isChunkpadError(error) ? error.message.split(";")[0] ?? "" : `the chunk file ${relative} cannot be read`);
      }
      chunkFiles.set(relative, data);
    }

    const sources = new Map<string, Uint8Array>();
    for (const relative of unique(archived.sources, "source", refuse)) {
      checkEntryPath(relative, refuse);
      const document = archived.documents.find((candidate) => candidate.relativePath === relative);
      if (!document) throw refuse(`it holds the source ${relative}, which is none of its documents`);
      const data = read(`${archived.prefix}sources/${relative}`);
      if (document.source?.sourceHash && (hashBytes(data) !== document.source.sourceHash || data.byteLength !== document.source.size)) {
        throw refuse(`the source ${relative} is not the file the manifest describes (its size or checksum differs)`);
      }
      sources.set(relative, data);
    }

    let vectors: Float32Array | null = null;
    if (archived.vectors.length > 0) {
      const dimensions = manifest.embedding?.dimensions;
      if (dimensions === undefined) throw refuse("it holds vectors but does not say which model made them");
      const seen = new Set<string>();
      for (const vector of archived.vectors) {
        const key = `${vector.relativePath}#${vector.ordinal}`;
        if (seen.has(key)) throw refuse(`it holds two vectors for chunk ${key}`);
        seen.add(key);
        const chunks = documents.get(vector.relativePath);
        if (chunks === undefined || vector.ordinal > chunks) throw refuse(`it holds a vector for ${key}, a chunk it does not hold`);
      }
      const data = read(`${archived.prefix}vectors.f32`);
      if (data.byteLength !== archived.vectors.length * dimensions * 4) {
        throw refuse(`its vectors take ${data.byteLength} bytes where ${archived.vectors.length} vectors of ${dimensions} dimensions take ${archived.vectors.length * dimensions * 4}`);
      }
      vectors = new Float32Array(data.buffer.slice(data.byteOffset, data.byteOffset + data.byteLength));
      const bad = vectors.findIndex((value) => !Number.isFinite(value));
      if (bad >= 0) throw refuse(`vector ${Math.floor(bad / dimensions) + 1} holds a value that is not a finite number`);
    } else if (zip.has(`${archived.prefix}vectors.f32`)) {
      listed.add(`${archived.prefix}vectors.f32`);
    }
    checked.push({ archived, chunkFiles, sources, vectors });
  }
  const unlisted = [...names].find((name) => !listed.has(name));
  if (unlisted !== undefined) throw refuse(`it holds the entry ${unlisted}, which its manifest does not list`);
  return checked;
}

function unique(paths: readonly string[], what: string, refuse: (reason: string) => Error): readonly string[] {
  const seen = new Set<string>();
  for (const relative of paths) {
    if (seen.has(relative)) throw refuse(`it lists the ${what} ${relative} twice`);
    seen.add(relative);
  }
  return paths;
}

/** A path from the archive: relative, forward slashes, never leaving the folder, never hidden or a control character. */
export function checkEntryPath(relative: string, refuse: (reason: string) => Error): void {
  const parts = relative.split("/");
  if (
    relative === "" ||
    relative.startsWith("/") ||
    relative.includes("\\") ||
    [...relative].some((character) => character.charCodeAt(0) < 0x20) ||
    /^[A-Za-z]:/.test(relative) ||
    parts.some((part) => part === ".." || part === "." || part === "" || part.startsWith(".") || part === "_chunks")
  ) {
    throw refuse(`it names a file outside its folder ("${relative}")`);
  }
}
