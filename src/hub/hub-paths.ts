import * as fs from "node:fs";
import * as path from "node:path";
import { ChunkpadError } from "../core/errors.js";

export const DEFAULT_REVISION = "main";
/** The Hugging Face hub; CHUNKPAD_HUB_URL or the config moves it (tests use a local server). */
export const DEFAULT_HUB_URL = "https://huggingface.co";

/** Where a file of a hub repository is served, in the Hugging Face layout. */
export function hubFileUrl(baseUrl: string, repoId: string, file: string, revision: string = DEFAULT_REVISION): string {
  const base = baseUrl.replace(/\/+$/, "");
  const encodedFile = file.split("/").map(encodeURIComponent).join("/");
  return `${base}/${repoId}/resolve/${encodeURIComponent(revision)}/${encodedFile}`;
}

/** `owner/name` with plain segments only, so a repository id can never escape the cache directory. */
export function assertSafeRepoId(repoId: string): void {
  const segments = repoId.split("/");
  const safe = segments.length >= 1 && segments.length <= 2 && segments.every((segment) => /^[A-Za-z0-9][A-Za-z0-9._-]*$/.test(segment) && segment !== "..");
  if (!safe) {
    throw new ChunkpadError("INVALID_ARGUMENT", `"${repoId}" is not a model id of the form owner/name. Use a catalog name (bge-base-en-v1.5), a hub id (Xenova/bge-base-en-v1.5) or a path to a local model directory.`);
  }
}

/** A relative file path inside a repository (`onnx/model.onnx`), never absolute or climbing out. */
export function assertSafeRepoFile(file: string): void {
  const segments = file.split("/");
  if (file.length === 0 || path.isAbsolute(file) || segments.some((segment) => segment === "" || segment === "." || segment === "..")) {
    throw new ChunkpadError("INVALID_ARGUMENT", `"${file}" is not a file path inside a model repository.`);
  }
}

/** The local copy of a repository: `{cacheDir}/{owner}/{name}`, the layout the hub serves. */
export function cachedModelDir(cacheDir: string, repoId: string): string {
  assertSafeRepoId(repoId);
  return path.join(cacheDir, ...repoId.split("/"));
}

/** The local path of one repository file. */
export function cachedFilePath(cacheDir: string, repoId: string, file: string): string {
  assertSafeRepoFile(file);
  return path.join(cachedModelDir(cacheDir, repoId), ...file.split("/"));
}

/**
 * True when every file is present. Files are renamed into place only once complete, so a
 * present file is a whole file; an interrupted download leaves only `{file}.partial`.
 */
export function isModelCached(cacheDir: string, repoId: string, files: string[]): boolean {
  return files.every((file) => {
    try {
      return fs.statSync(cachedFilePath(cacheDir, repoId, file)).isFile();
    } catch {
      return false;
    }
  });
}
