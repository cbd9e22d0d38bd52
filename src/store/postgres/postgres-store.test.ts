import { afterAll, beforeAll } from "vitest";
import { runChatStoreSuite } from "../chat-conformance.js";
import { runStoreSuite } from "../conformance.js";
import { openPostgresChatStore } from "./chat-store.js";
import { openPostgresStore } from "./main-store.js";
import { startPgliteServer, type PgliteServer } from "./pglite-server.js";

// The whole contract on PostgreSQL + pgvector: PGlite served over the wire protocol, reached by
// node-postgres as any server. Leases need separate sessions: test/postgres-server.test.ts.
let server: PgliteServer;
beforeAll(async () => {
  server = await startPgliteServer();
});
afterAll(async () => {
  await server?.stop();
});

// PGlite runs one query at a time; a small pool keeps its queue short.
const POOL_SIZE = 2;

runStoreSuite({
  name: "PostgreSQL (PGlite + pgvector over the wire)",
  open: async () => {
    await server.reset();
    return openPostgresStore({ url: server.url, poolSize: POOL_SIZE });
  },
  reopen: async () => openPostgresStore({ url: server.url, poolSize: POOL_SIZE }),
  leases: false,
});

runChatStoreSuite({
  name: "PostgreSQL (PGlite over the wire)",
  open: async ({ now }) => {
    await server.reset();
    return openPostgresChatStore({ url: server.url, poolSize: POOL_SIZE, now });
  },
});
