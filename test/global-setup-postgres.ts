import { startPgliteDatabases } from "./helpers/pglite-databases.js";

/**
 * The `integration-postgres` project: the same CLI, server and MCP tests against the PostgreSQL
 * store. One server (PGlite + pgvector over the wire protocol, one database per name) for the
 * run; the helpers give each Chunkpad home its own database (`cliEnv` sets CHUNKPAD_DATABASE_URL).
 */
export default async function startPostgresForTests(): Promise<() => Promise<void>> {
  const databases = await startPgliteDatabases();
  process.env.CHUNKPAD_TEST_POSTGRES = databases.url;
  return () => databases.stop();
}
