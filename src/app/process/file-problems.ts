import path from "node:path";
import { isChunkpadError } from "../../core/errors.js";
import { chunkFilePathIn } from "../../chunkfiles/paths.js";
import { shownChunkFile, type FolderPlace } from "./place.js";

/** What went wrong with one file, as the report says it, and which failures are tried again on the next run. */

/** Failures that may not recur, so an unchanged file is tried again on the next run. */
export const RETRIED_FAILURES: ReadonlySet<string> = new Set(["PARSE_TIMEOUT", "CANCELLED", "SOURCE_UNREADABLE", "SOURCE_CHANGED"]);

/** Not failures: the document is fine but holds no text (empty, pictures only), so it is skipped with its reason. */
export const NOTHING_TO_INDEX: ReadonlySet<string> = new Set(["PARSE_EMPTY"]);

export function isFileSystemError(error: unknown): error is NodeJS.ErrnoException {
  return error instanceof Error && typeof (error as NodeJS.ErrnoException).syscall === "string";
}

/** Why the file system refused, in words: the real cause, not the error code alone. */
export function fileSystemCause(error: NodeJS.ErrnoException): string {
  switch (error.code) {
    case "EROFS": return "the disk is read-only";
    case "EACCES": case "EPERM": return "permission denied";
    case "ENOSPC": return "the disk is full";
    case "EDQUOT": return "the disk quota is used up";
    case "ENAMETOOLONG": return "the name is too long for the file system";
    default: return error.message;
  }
}

/** What to report for an error while handling one file, or undefined for errors that must stop the run. */
export function fileProblem(error: unknown, place: FolderPlace, relativePath: string): { code: string; message: string; retried: boolean } | undefined {
  if (isChunkpadError(error)) {
    if (error.code === "CANCELLED" || error.code === "DATABASE_ERROR" || error.code === "DATABASE_LOCKED" || error.code === "INTERNAL") return undefined;
    return { code: error.code, message: error.message, retried: RETRIED_FAILURES.has(error.code) };
  }
  if (!isFileSystemError(error)) return undefined;
  const cause = fileSystemCause(error);
  if (typeof error.path !== "string" || !error.path.startsWith(place.chunksRoot + path.sep)) {
    return { code: "SOURCE_UNREADABLE", message: `cannot be read: ${cause}; it is tried again on the next run`, retried: true };
  }
  const chunkFile = shownChunkFile(place, chunkFilePathIn(place.chunksRoot, relativePath));
  if (error.code === "ENAMETOOLONG") {
    return { code: "CHUNK_FILE_INVALID", message: `its chunk file ${chunkFile} cannot be written: ${cause}. Rename the document to a shorter name.`, retried: true };
  }
  const hint = error.code === "ENOSPC" || error.code === "EDQUOT" ? "free some space and run again" : "check that you may write there and run again";
  return { code: "CHUNK_FILE_INVALID", message: `its chunk file ${chunkFile} cannot be written: ${cause}; ${hint}.`, retried: true };
}
