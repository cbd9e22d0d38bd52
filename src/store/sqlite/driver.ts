import { DatabaseSync, type DatabaseSyncInstance, type StatementSyncInstance } from "@photostructure/sqlite";

/**
 * The SQLite binding, and the one place that knows it (decision 071): @photostructure/sqlite,
 * node:sqlite's API with its prebuilt binaries inside the npm package (no download, no compiler
 * at install). On top of it, the little the store uses beyond that API: rows as their first
 * column (`pluck`) or as arrays (`raw`, no object per row), `pragma`, transactions that nest as
 * savepoints, `open`/`inTransaction`, and SQLite's error names.
 */

/** Positional parameters as a tuple, or one object of named ones (`@name` in the SQL, `name` as the key). */
export type BindParameters = unknown[] | object;
type Arguments<P extends BindParameters> = P extends unknown[] ? P : [P];

export interface SqliteStatement<P extends BindParameters = unknown[], R = unknown> {
  /** Each row as its first column's value (R is that value's type). */
  pluck(): this;
  /** Each row as an array of its values in column order (R is that tuple): no object per row, the fastest read. */
  raw(): this;
  run(...parameters: Arguments<P>): { changes: number; lastInsertRowid: number };
  get(...parameters: Arguments<P>): R | undefined;
  all(...parameters: Arguments<P>): R[];
  /** Rows one at a time; breaking out of the loop ends the read (the statement is reset). */
  iterate(...parameters: Arguments<P>): IterableIterator<R>;
}

export interface SqliteDatabase {
  /** R is the row's type: an object by column name, or what `pluck()`/`raw()` make of it. */
  prepare<P extends BindParameters = unknown[], R = unknown>(sql: string): SqliteStatement<P, R>;
  exec(sql: string): void;
  /** `PRAGMA source`: its rows, or with `simple` the first value of the first row. */
  pragma(source: string, options?: { simple: boolean }): unknown;
  /**
   * Runs `work` in a transaction and returns what it returns; a throw rolls it back. Inside
   * another transaction it is a savepoint, so an inner failure undoes only its own writes.
   * "immediate" takes the write lock up front (see writeTransaction in database.ts).
   */
  transaction<R>(work: () => R, mode?: "deferred" | "immediate"): R;
  function(name: string, options: { deterministic?: boolean }, implementation: (...values: never[]) => unknown): void;
  /** Loads a SQLite extension (sqlite-vec) from a file; SQL itself can never load one. */
  loadExtension(file: string): void;
  readonly open: boolean;
  readonly inTransaction: boolean;
  close(): void;
}

export interface OpenSqliteOptions {
  /** Open an existing file for reading only (a missing file is an error, never created). */
  readOnly?: boolean;
}

/** Opens a connection. Settings (WAL, busy timeout, …) are the caller's: see openDatabase in database.ts. */
export function openSqlite(location: string, { readOnly = false }: OpenSqliteOptions = {}): SqliteDatabase {
  // Unknown named parameters are ignored, as before: callers bind whole row objects whose extra fields the SQL does not name.
  return new Connection(new DatabaseSync(location, { readOnly, allowExtension: true, allowUnknownNamedParameters: true }), readOnly);
}

const OBJECTS = 0;
const VALUES = 1;
const ARRAYS = 2;

class Statement<P extends BindParameters, R> implements SqliteStatement<P, R> {
  private shape = OBJECTS;
  constructor(private readonly native: StatementSyncInstance) {}

  pluck(): this {
    this.shape = VALUES;
    this.native.setReturnArrays(true);
    return this;
  }

  raw(): this {
    this.shape = ARRAYS;
    this.native.setReturnArrays(true);
    return this;
  }

  run(...parameters: Arguments<P>): { changes: number; lastInsertRowid: number } {
    return this.native.run(...parameters) as { changes: number; lastInsertRowid: number };
  }

  get(...parameters: Arguments<P>): R | undefined {
    const row = this.native.get(...parameters) as unknown[] | undefined;
    return (this.shape === VALUES ? row?.[0] : row) as R | undefined;
  }

  all(...parameters: Arguments<P>): R[] {
    const rows = this.native.all(...parameters) as unknown[][];
    if (this.shape !== VALUES) return rows as R[];
    const values = new Array<R>(rows.length);
    for (let index = 0; index < rows.length; index++) values[index] = (rows[index] as unknown[])[0] as R;
    return values;
  }

  iterate(...parameters: Arguments<P>): IterableIterator<R> {
    const rows = this.native.iterate(...parameters) as IterableIterator<R>;
    return this.shape === VALUES ? firstValues(rows as IterableIterator<unknown[]>) : rows;
  }
}

function* firstValues<R>(rows: IterableIterator<unknown[]>): IterableIterator<R> {
  for (const row of rows) yield row[0] as R;
}

/** Savepoint names of nested transactions, one per depth. */
const SAVEPOINT = "chunkpad_nested";

class Connection implements SqliteDatabase {
  constructor(
    private readonly native: DatabaseSyncInstance,
    private readonly readOnly: boolean,
  ) {}

  get open(): boolean {
    return this.native.isOpen;
  }

  get inTransaction(): boolean {
    return this.native.isOpen && this.native.isTransaction;
  }

  prepare<P extends BindParameters = unknown[], R = unknown>(sql: string): SqliteStatement<P, R> {
    return new Statement<P, R>(this.native.prepare(sql));
  }

  exec(sql: string): void {
    this.native.exec(sql);
  }

  pragma(source: string, options?: { simple: boolean }): unknown {
    const statement = this.native.prepare(`PRAGMA ${source}`);
    if (options?.simple !== true) return statement.all();
    statement.setReturnArrays(true);
    return (statement.get() as unknown[] | undefined)?.[0];
  }

  transaction<R>(work: () => R, mode: "deferred" | "immediate" = "deferred"): R {
    const nested = this.native.isTransaction;
    this.native.exec(nested ? `SAVEPOINT ${SAVEPOINT}` : `BEGIN ${mode.toUpperCase()}`);
    try {
      const result = work();
      this.native.exec(nested ? `RELEASE ${SAVEPOINT}` : "COMMIT");
      return result;
    } catch (error) {
      // SQLite may have rolled back already (a full disk, an I/O error): then there is nothing left to undo.
      if (this.native.isTransaction) this.native.exec(nested ? `ROLLBACK TO ${SAVEPOINT}; RELEASE ${SAVEPOINT}` : "ROLLBACK");
      throw error;
    }
  }

  function(name: string, options: { deterministic?: boolean }, implementation: (...values: never[]) => unknown): void {
    this.native.function(name, options, implementation);
  }

  loadExtension(file: string): void {
    this.native.enableLoadExtension(true);
    try {
      this.native.loadExtension(file);
    } finally {
      this.native.enableLoadExtension(false);
    }
  }

  /**
   * The binding (1.2.1) does not finalize the statements still referenced when a connection
   * closes, so SQLite keeps the connection until they are garbage collected, and the last
   * connection's usual work at close never happens: copying the WAL into the database and
   * removing it. It is done here, as SQLite does it, without waiting for other readers.
   */
  close(): void {
    if (!this.native.isOpen) return;
    try {
      if (!this.readOnly && !this.native.isTransaction) this.native.exec("PRAGMA busy_timeout = 0; PRAGMA wal_checkpoint(TRUNCATE)");
    } catch {
      // Best effort, like SQLite's own: a damaged file or a disk error closes as it is.
    }
    this.native.close();
  }
}

/** SQLite's primary result codes by number (https://sqlite.org/rescode.html), those a caller tells apart. */
const CODE_NAMES = new Map<number, string>([
  [1, "SQLITE_ERROR"], [3, "SQLITE_PERM"], [5, "SQLITE_BUSY"], [6, "SQLITE_LOCKED"], [8, "SQLITE_READONLY"], [10, "SQLITE_IOERR"],
  [11, "SQLITE_CORRUPT"], [13, "SQLITE_FULL"], [14, "SQLITE_CANTOPEN"], [19, "SQLITE_CONSTRAINT"], [26, "SQLITE_NOTADB"],
]);

/**
 * The same codes by SQLite's own message for them (sqlite3_errstr), for the errors that come
 * without a number: the binding's `all()` and `iterate()` throw only the message (1.2.1).
 */
const CODE_MESSAGES: Array<[RegExp, string]> = [
  [/^database is locked/, "SQLITE_BUSY"],
  [/^database table is locked/, "SQLITE_LOCKED"],
  [/^database disk image is malformed|^malformed database schema/, "SQLITE_CORRUPT"],
  [/^file is not a database/, "SQLITE_NOTADB"],
  [/^database or disk is full/, "SQLITE_FULL"],
  [/^disk I\/O error/, "SQLITE_IOERR"],
  [/^attempt to write a readonly database/, "SQLITE_READONLY"],
  [/unable to open database file/, "SQLITE_CANTOPEN"],
  [/^access permission denied/, "SQLITE_PERM"],
];

/**
 * SQLite's name for what went wrong ("SQLITE_BUSY", "SQLITE_CORRUPT", …, "SQLITE_ERROR" for a
 * plain SQL error such as a bad FTS5 query); undefined when the error did not come from SQLite.
 */
export function sqliteErrorCode(error: unknown): string | undefined {
  if (!(error instanceof Error) || (error as { code?: unknown }).code !== "ERR_SQLITE_ERROR") return undefined;
  const number = (error as { errcode?: unknown }).errcode;
  if (typeof number === "number") return CODE_NAMES.get(number & 0xff) ?? "SQLITE_ERROR";
  return CODE_MESSAGES.find(([pattern]) => pattern.test(error.message))?.[1] ?? "SQLITE_ERROR";
}
