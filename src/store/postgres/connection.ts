import pg from "pg";
import { ChunkpadError } from "../../core/errors.js";

/** A pool or one checked-out client: anything that runs a query. */
export interface Queryable {
  query<Row extends pg.QueryResultRow = pg.QueryResultRow>(text: string, values?: unknown[]): Promise<pg.QueryResult<Row>>;
}

export interface PostgresConnectionOptions {
  /** postgres://user:password@host:port/database (secrets never leave this module). */
  url: string;
  /** Connections in the pool (default 10). */
  poolSize?: number;
}

/** int8 (COUNT(*), bigserial) as a JavaScript number: Chunkpad's counts stay far below 2^53. */
pg.types.setTypeParser(20, (value) => Number(value));

/** Connections per process when neither the caller nor the URL (`?pool_size=`) says. */
const DEFAULT_POOL_SIZE = 10;

/** `pool_size` in the URL is Chunkpad's, not the server's: read here and taken out. */
export function parseStoreUrl(url: string): { connectionString: string; poolSize: number | undefined } {
  try {
    const parsed = new URL(url);
    const value = parsed.searchParams.get("pool_size");
    if (value === null) return { connectionString: url, poolSize: undefined };
    parsed.searchParams.delete("pool_size");
    const size = Number.parseInt(value, 10);
    return { connectionString: parsed.toString(), poolSize: size > 0 ? size : undefined };
  } catch {
    // node-postgres reports an unreadable URL when it connects.
    return { connectionString: url, poolSize: undefined };
  }
}

export function createPool({ url, poolSize }: PostgresConnectionOptions): pg.Pool {
  const { connectionString, poolSize: fromUrl } = parseStoreUrl(url);
  const max = poolSize ?? fromUrl ?? DEFAULT_POOL_SIZE;
  const pool = new pg.Pool({ connectionString, max, idleTimeoutMillis: 30_000 });
  // An idle client losing its server (a restart) must not crash the process: the next query reconnects.
  pool.on("error", () => undefined);
  return pool;
}

/** The URL without its password, for `status`, messages and logs. */
export function describeUrl(url: string): string {
  try {
    const parsed = new URL(url);
    if (parsed.password !== "") parsed.password = "***";
    for (const key of ["password", "sslpassword"]) if (parsed.searchParams.has(key)) parsed.searchParams.set(key, "***");
    return parsed.toString();
  } catch {
    return "postgres://(unreadable URL)";
  }
}

/** Runs `work` in one transaction on one connection; rolls back on any error. */
export async function inTransaction<T>(pool: pg.Pool, work: (client: pg.PoolClient) => Promise<T>): Promise<T> {
  const client = await pool.connect();
  try {
    await client.query("BEGIN");
    const result = await work(client);
    await client.query("COMMIT");
    return result;
  } catch (error) {
    await client.query("ROLLBACK").catch(() => undefined);
    throw error;
  } finally {
    client.release();
  }
}

/** A server or network error as Chunkpad says it: what failed, where, and what to do. */
export function toDatabaseError(error: unknown, where: string): unknown {
  if (error instanceof ChunkpadError) return error;
  const code = (error as { code?: string }).code;
  const message = error instanceof Error ? error.message : String(error);
  if (code === "ECONNREFUSED" || code === "ENOTFOUND" || code === "ETIMEDOUT" || code === "ECONNRESET") {
    return new ChunkpadError("DATABASE_ERROR", `Cannot reach the PostgreSQL server at ${where} (${message}). Check that it runs and that CHUNKPAD_DATABASE_URL (or store.url) names it.`, { cause: error, isRetryable: true });
  }
  if (code === "28P01" || code === "28000") {
    return new ChunkpadError("DATABASE_ERROR", `The PostgreSQL server at ${where} refused the login (${message}). Check the user and password in CHUNKPAD_DATABASE_URL.`, { cause: error });
  }
  if (code === "3D000") {
    return new ChunkpadError("DATABASE_ERROR", `The database in ${where} does not exist (${message}). Create it (createdb) or name another in CHUNKPAD_DATABASE_URL.`, { cause: error });
  }
  return new ChunkpadError("DATABASE_ERROR", `PostgreSQL at ${where} failed: ${message}`, { cause: error });
}

/** Wraps every method of an object so that errors come out as ChunkpadErrors. */
export function withPostgresErrors<T extends object>(api: T, where: string): T {
  const wrapped: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(api)) {
    if (typeof value !== "function") {
      Object.defineProperty(wrapped, key, Object.getOwnPropertyDescriptor(api, key) as PropertyDescriptor);
      continue;
    }
    wrapped[key] = async (...args: unknown[]) => {
      try {
        return await (value as (...parameters: unknown[]) => Promise<unknown>).apply(api, args);
      } catch (error) {
        throw toDatabaseError(error, where);
      }
    };
  }
  // Getters (vectorAvailable) keep reading the live value.
  for (const key of Object.keys(Object.getOwnPropertyDescriptors(api))) {
    const descriptor = Object.getOwnPropertyDescriptor(api, key);
    if (descriptor?.get) Object.defineProperty(wrapped, key, descriptor);
  }
  return wrapped as T;
}
