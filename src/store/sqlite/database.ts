import * as path from "node:path";
import { searchableText } from "../../core/searchable-text.js";
import { ChunkpadError, isChunkpadError, describeError } from "../../core/errors.js";
import { ensurePrivateDirectory, ensurePrivateFile, tightenIfPresent } from "../../core/private-files.js";
import { openSqlite, sqliteErrorCode, type SqliteDatabase } from "./driver.js";

export type { SqliteDatabase } from "./driver.js";

/** How long a write waits for another process's write to finish before giving up. */
export const DEFAULT_BUSY_TIMEOUT_MS = 5_000;

export interface OpenDatabaseOptions {
  /** File path, or ":memory:". The parent directory is created (0700) and the files are 0600. */
  path: string;
  busyTimeoutMs?: number;
}

/**
 * Opens a SQLite database with the settings every Chunkpad database uses: WAL (readers never
 * block the writer), a busy timeout (a second process waits instead of failing at once),
 * foreign keys (cascading deletes keep the tables consistent), synchronous NORMAL (safe in
 * WAL mode, much faster than FULL) and secure_delete (deleted rows are overwritten with zeros,
 * so a removed document's text does not linger in free pages). The folder is 0700 and the
 * database, -wal and -shm files 0600: they hold the text of the user's documents.
 */
export function openDatabase({ path: filePath, busyTimeoutMs = DEFAULT_BUSY_TIMEOUT_MS }: OpenDatabaseOptions): SqliteDatabase {
  const inMemory = filePath === ":memory:";
  if (!inMemory) {
    try {
      ensurePrivateDirectory(path.dirname(filePath));
      ensurePrivateFile(filePath);
      for (const suffix of ["-wal", "-shm", "-journal"]) tightenIfPresent(`${filePath}${suffix}`);
    } catch (error) {
      throw new ChunkpadError(
        "DATABASE_ERROR",
        `Cannot create the folder for the database at ${filePath}: ${describeError(error)}. Check the permissions, or set CHUNKPAD_HOME to a writable folder.`,
        { cause: error },
      );
    }
  }
  let db: SqliteDatabase | undefined;
  try {
    db = openSqlite(filePath);
    db.pragma(`busy_timeout = ${Math.max(0, Math.floor(busyTimeoutMs))}`);
    db.pragma("journal_mode = WAL");
    db.pragma("foreign_keys = ON");
    db.pragma("synchronous = NORMAL");
    db.pragma("secure_delete = ON");
    // 16 MB of page cache, as better-sqlite3 built SQLite (decision 071); SQLite's own default is 2 MB.
    db.pragma("cache_size = -16000");
    // What the keyword index reads of a chunk (migrations 3 and 6): CJK runs cut into words, lone
    // Greek letters named, letters and digits apart (core/searchable-text.ts).
    db.function("search_text", { deterministic: true }, (text: unknown) => (typeof text === "string" ? searchableText(text) : text));
    return db;
  } catch (error) {
    db?.close();
    throw toChunkpadError(error, filePath);
  }
}

/**
 * Turns a SQLite failure into a ChunkpadError that says what to do. ChunkpadErrors pass
 * through; anything that is not a SQLite error (a bug) is returned unchanged.
 */
export function toChunkpadError(error: unknown, databasePath: string): unknown {
  const code = sqliteErrorCode(error);
  if (isChunkpadError(error) || code === undefined || !(error instanceof Error)) return error;
  if (code === "SQLITE_BUSY" || code === "SQLITE_LOCKED") {
    return new ChunkpadError(
      "DATABASE_LOCKED",
      `The database ${databasePath} is busy: another Chunkpad process (an add or embed run, or the server) is writing to it. Wait for it to finish or stop it, then try again.`,
      { cause: error, isRetryable: true },
    );
  }
  if (code === "SQLITE_NOTADB" || code === "SQLITE_CORRUPT") {
    return new ChunkpadError(
      "DATABASE_ERROR",
      `The database ${databasePath} is damaged or is not a Chunkpad database (${error.message}). Move the file aside (Chunkpad will create a new one and you can re-run add and embed) or restore a backup.`,
      { cause: error },
    );
  }
  if (code === "SQLITE_FULL") {
    return new ChunkpadError("DATABASE_ERROR", `The disk holding ${databasePath} is full. Free some space and try again.`, { cause: error });
  }
  if (["SQLITE_CANTOPEN", "SQLITE_READONLY", "SQLITE_PERM", "SQLITE_IOERR"].includes(code)) {
    return new ChunkpadError(
      "DATABASE_ERROR",
      `Cannot open or write the database ${databasePath} (${error.message}). Check that the file and its folder are writable, or set CHUNKPAD_HOME to a writable folder.`,
      { cause: error },
    );
  }
  return new ChunkpadError("DATABASE_ERROR", `A database operation on ${databasePath} failed: ${error.message}.`, { cause: error });
}

/**
 * Wraps every method of an API object so SQLite failures surface as ChunkpadErrors
 * (DATABASE_LOCKED, DATABASE_ERROR) instead of raw driver errors.
 */
export function withDatabaseErrors<T extends object>(api: T, databasePath: string): T {
  const wrapped: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(api)) {
    if (typeof value !== "function") {
      wrapped[key] = value;
      continue;
    }
    wrapped[key] = (...args: unknown[]) => {
      try {
        return (value as (...parameters: unknown[]) => unknown).apply(api, args);
      } catch (error) {
        throw toChunkpadError(error, databasePath);
      }
    };
  }
  return wrapped as T;
}

/**
 * After deleting user text: copies the WAL into the database file and truncates the WAL to zero
 * bytes, so no older page image holding the deleted text stays behind in it. Best effort: while
 * another process reads, part of the WAL stays until its next checkpoint.
 */
export function checkpointDeletedContent(db: SqliteDatabase): void {
  if (db.open && !db.inTransaction) db.pragma("wal_checkpoint(TRUNCATE)");
}

/** Runs `work` in a BEGIN IMMEDIATE transaction: the write lock is taken up front, so two writers queue on busy_timeout instead of deadlocking on a lock upgrade. */
export function writeTransaction<R>(db: SqliteDatabase, work: () => R): R {
  return db.transaction(work, "immediate");
}

export function isFtsQueryError(error: unknown): boolean {
  return sqliteErrorCode(error) === "SQLITE_ERROR";
}
