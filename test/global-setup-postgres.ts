import { startPgliteDatabases } from "./helpers/pglite-databases.js";
import { openPostgresStore } from "../src/store/postgres/main-store.js";
import { openPostgresChatStore } from "../src/store/postgres/chat-store.js";

/**
 * The `integration-postgres` project: the same CLI, server and MCP tests against the PostgreSQL
 * store. One server (PGlite + pgvector over the wire protocol, one database per name) for the
 * run; the helpers give each Chunkpad home its own database (`cliEnv` sets CHUNKPAD_DATABASE_URL).
 * Every database starts with Chunkpad's schema, made once here by the store's own migrations, and
 * a database no test has used for a while is put back that way for the next home (decision 081).
 */
export default async function startPostgresForTests(): Promise<() => Promise<void>> {
  const databases = await startPgliteDatabases({
    prepare: async (url) => {
      await (await openPostgresStore({ url, poolSize: 1 })).close();
      await (await openPostgresChatStore({ url, poolSize: 1 })).close();
    },
    // The one thing the store adds to its schema at run time: the vector column (and its HNSW
    // index) on the first embed, sized to the model (src/store/postgres/vectors.ts).
    reset: "ALTER TABLE vectors DROP COLUMN IF EXISTS embedding",
  });
  process.env.CHUNKPAD_TEST_POSTGRES = databases.url;
  return async () => {
    const { started, reused, closed, lastRecycleError } = databases.stats();
    // This process is vitest's and every PGlite's (one thread): what the run's databases cost.
    const cpu = process.cpuUsage();
    console.log(`test PostgreSQL: ${((cpu.user + cpu.system) / 1e6).toFixed(0)} CPU-s in vitest's own process (the PGlites'), ${started} PGlites started, ${reused} homes given a recycled one, ${closed} closed${lastRecycleError === undefined ? "" : ` (the last that could not be recycled: ${lastRecycleError})`}`);
    await databases.stop();
  };
}
