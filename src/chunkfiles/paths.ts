import path from "node:path";
import { ChunkpadError } from "../core/errors.js";

/** The folder, inside each indexed folder, that holds the chunk files. */
export const CHUNKS_DIR_NAME = "_chunks";
export const CHUNK_FILE_EXTENSION = ".md";

/** node:path or one of its platform flavours; tests pass path.win32 to check Windows paths. */
export type PathApi = Pick<typeof path, "join" | "resolve" | "relative" | "isAbsolute" | "sep">;

export function chunksRootFor(rootPath: string, pathApi: PathApi = path): string {
  return pathApi.join(rootPath, CHUNKS_DIR_NAME);
}

/** Segments of a relative source path. Forward slashes always separate; on Windows so do backslashes. */
function sourceSegments(relativeSourcePath: string, pathApi: PathApi): string[] {
  const separators = pathApi.sep === "\\" ? /[\\/]/ : /\//;
  const segments = relativeSourcePath.split(separators);
  const valid =
    relativeSourcePath.length > 0 &&
    !pathApi.isAbsolute(relativeSourcePath) &&
    segments.every((segment) => segment.length > 0 && segment !== "." && segment !== "..");
  if (!valid) {
    throw new ChunkpadError(
      "INVALID_ARGUMENT",
      `"${relativeSourcePath}" is not a source path relative to the folder (like "notes/report.pdf"); pass the path inside the folder.`,
    );
  }
  return segments;
}

/** {root}/_chunks/{relative source path}.md */
export function chunkFilePathFor(rootPath: string, relativeSourcePath: string, pathApi: PathApi = path): string {
  return chunkFilePathIn(chunksRootFor(rootPath, pathApi), relativeSourcePath, pathApi);
}

/** {chunks root}/{relative source path}.md, for a chunks root that may live outside the folder (a read-only folder's). */
export function chunkFilePathIn(chunksRootPath: string, relativeSourcePath: string, pathApi: PathApi = path): string {
  const segments = sourceSegments(relativeSourcePath, pathApi);
  return pathApi.join(chunksRootPath, ...segments) + CHUNK_FILE_EXTENSION;
}

/** The relative source path (forward slashes) a chunk file stands for, or undefined if it is not one. */
export function trySourcePathForChunkFile(rootPath: string, chunkFilePath: string, pathApi: PathApi = path): string | undefined {
  const relative = pathApi.relative(pathApi.resolve(chunksRootFor(rootPath, pathApi)), pathApi.resolve(chunkFilePath));
  if (relative.length === 0 || pathApi.isAbsolute(relative) || !relative.endsWith(CHUNK_FILE_EXTENSION)) return undefined;
  const segments = relative.slice(0, -CHUNK_FILE_EXTENSION.length).split(pathApi.sep);
  if (segments.some((segment) => segment.length === 0 || segment === "..")) return undefined;
  return segments.join("/");
}

export function isChunkFilePath(rootPath: string, candidate: string, pathApi: PathApi = path): boolean {
  return trySourcePathForChunkFile(rootPath, candidate, pathApi) !== undefined;
}

/** Inverse of chunkFilePathFor: strips {root}/_chunks/ and the trailing ".md". */
export function sourcePathForChunkFile(rootPath: string, chunkFilePath: string, pathApi: PathApi = path): string {
  const relative = trySourcePathForChunkFile(rootPath, chunkFilePath, pathApi);
  if (relative === undefined) {
    throw new ChunkpadError(
      "INVALID_ARGUMENT",
      `"${chunkFilePath}" is not a chunk file of ${rootPath}: chunk files are the .md files under ${chunksRootFor(rootPath, pathApi)}.`,
    );
  }
  return relative;
}
