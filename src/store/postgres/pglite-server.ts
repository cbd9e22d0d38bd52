import { PGlite } from "@electric-sql/pglite";
import { vector } from "@electric-sql/pglite-pgvector";
import { PGLiteSocketServer } from "@electric-sql/pglite-socket";
import pg from "pg";

/**
 * PGlite (PostgreSQL compiled to WebAssembly) with pgvector, served over the PostgreSQL wire
 * protocol in this process: node-postgres connects to it exactly as to a server. For tests only
 * (excluded from the build; PGlite is a devDependency).
 */
export interface PgliteServer {
  url: string;
  /** Empties the database (a fresh store for the next test). */
  reset(): Promise<void>;
  stop(): Promise<void>;
}

export async function startPgliteServer(): Promise<PgliteServer> {
  const db = await PGlite.create({ extensions: { vector } });
  const server = new PGLiteSocketServer({ db, port: 0, host: "127.0.0.1", maxConnections: 100 });
  await server.start();
  const url = `postgres://postgres@${server.getServerConn()}/postgres`;
  return {
    url,
    reset: () => emptyDatabase(url),
    async stop() {
      await server.stop();
      await db.close();
    },
  };
}

/** Drops everything in the database's public schema: a fresh store for the next test. */
export async function emptyDatabase(url: string): Promise<void> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    await client.query("DROP SCHEMA public CASCADE; CREATE SCHEMA public;");
  } finally {
    await client.end();
  }
}
