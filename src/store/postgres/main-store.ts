import type { MainStore, StoreOpener } from "../contract.js";
import pg from "pg";
import { createPool, describeUrl, inTransaction, parseStoreUrl, toDatabaseError, withPostgresErrors, type Queryable } from "./connection.js";
import { createDocumentMethods } from "./documents.js";
import { createFolderMethods } from "./folders.js";
import { checkKeywordIndex, icuRecord, rebuildIfWordsChanged, rebuildKeywordIndex, searchTextRecord } from "./keyword-index.js";
import { createKeywordMethods } from "./keyword.js";
import { createLeases } from "./leases.js";
import { dropSchema, migrate } from "./schema.js";
import { createVectorMethods, loadVectorSupport, type VectorSupport } from "./vectors.js";

export interface OpenPostgresStoreOptions extends StoreOpener {
  /** postgres://user:password@host:port/database */
  url: string;
  /** Connections in the pool (default 10). */
  poolSize?: number;
  now?: () => Date;
  /** Node's ICU version (tests give another to see the index rebuilt). */
  icuVersion?: string;
}

/** The channel on which every write is announced (LISTEN chunkpad_changes), for other servers' caches. */
export const CHANGE_CHANNEL = "chunkpad_changes";

/**
 * The main store on PostgreSQL + pgvector (node-postgres, pooled): the same contract and
 * conformance suite as SQLite, for a team sharing one database from several servers. It keeps
 * no cache in the process: every read sees every server's writes. Writes are announced on
 * CHANGE_CHANNEL for caches above the store.
 */
export async function openPostgresStore({ url, poolSize, command = "chunkpad", machine, now = () => new Date(), icuVersion = process.versions.icu ?? "none" }: OpenPostgresStoreOptions): Promise<MainStore> {
  const where = describeUrl(url);
  const pool = createPool({ url, ...(poolSize === undefined ? {} : { poolSize }) });
  let support: VectorSupport;
  try {
    await migrate(pool, where);
    await rebuildIfWordsChanged(pool, [searchTextRecord(), icuRecord(icuVersion)]);
    support = await loadVectorSupport(pool, where);
  } catch (error) {
    await pool.end().catch(() => undefined);
    throw toDatabaseError(error, where);
  }
  const changed = async (client: Queryable, kind: string, folderId: string | null) => {
    await client.query("SELECT pg_notify($1, $2)", [CHANGE_CHANNEL, JSON.stringify({ kind, folderId })]);
  };
  let closed = false;
  const close = async () => {
    if (closed) return;
    closed = true;
    await pool.end();
  };
  const store: MainStore = {
    path: where,
    get vectorAvailable() {
      return support.available;
    },
    get vectorUnavailableReason() {
      return support.reason;
    },
    ...createFolderMethods(pool, { now, changed }),
    ...createDocumentMethods(pool, { now, changed }),
    ...createKeywordMethods(pool),
    ...createVectorMethods(pool, () => support),
    // Nothing is kept in this process: every read goes to the database.
    async searchIndexStatus() {
      return { keyword: null };
    },
    async integrityCheck() {
      const problems = await checkKeywordIndex(pool);
      return { ok: problems.length === 0, problems };
    },
    async rebuildKeywordIndex() {
      await inTransaction(pool, async (client) => {
        await client.query("LOCK TABLE chunks IN SHARE ROW EXCLUSIVE MODE");
        await rebuildKeywordIndex(client);
      });
    },
    lease: createLeases(async () => {
      const client = new pg.Client({ connectionString: parseStoreUrl(url).connectionString });
      await client.connect();
      return client;
    }, command, machine ?? null),
    close,
    async destroy() {
      await dropSchema(pool);
      await close();
    },
  };
  return withPostgresErrors(store, where);
}
