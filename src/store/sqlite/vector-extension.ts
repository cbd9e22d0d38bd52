import * as sqliteVec from "sqlite-vec";
import { ChunkpadError, describeError } from "../../core/errors.js";
import type { SqliteDatabase } from "./database.js";

/** Loads the sqlite-vec extension into a connection; throws when it cannot. */
export type VectorExtensionLoader = (db: SqliteDatabase) => void;

export type VectorSupport = { available: true; reason: null } | { available: false; reason: string };

/**
 * Loads sqlite-vec, or says why not. A missing extension is not fatal: keyword search, review
 * and everything else keep working, and the reason tells the user how to get vectors back.
 */
export function loadVectorSupport(db: SqliteDatabase, enabled: boolean, loader: VectorExtensionLoader = sqliteVec.load): VectorSupport {
  if (!enabled) {
    return { available: false, reason: "Vector search is turned off for this database connection; keyword search still works." };
  }
  try {
    loader(db);
    db.prepare("SELECT vec_version()").get();
    return { available: true, reason: null };
  } catch (error) {
    return {
      available: false,
      reason:
        `sqlite-vec could not be loaded (${describeError(error)}), so vector search is off; keyword search still works. ` +
        `Reinstall Chunkpad's dependencies (npm install) so the sqlite-vec package for ${process.platform}-${process.arch} is present.`,
    };
  }
}

export function vectorUnavailableError(support: VectorSupport): ChunkpadError {
  return new ChunkpadError("VECTOR_UNAVAILABLE", support.reason ?? "Vector search is not available.");
}
