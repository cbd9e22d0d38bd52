import pg from "pg";
import { afterAll, beforeAll, expect, it } from "vitest";
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
  open: async (opener) => {
    await server.reset();
    return openPostgresStore({ ...opener, url: server.url, poolSize: POOL_SIZE });
  },
  reopen: async (_store, opener) => openPostgresStore({ ...opener, url: server.url, poolSize: POOL_SIZE }),
  leases: false,
});

runChatStoreSuite({
  name: "PostgreSQL (PGlite over the wire)",
  open: async ({ now }) => {
    await server.reset();
    return openPostgresChatStore({ url: server.url, poolSize: POOL_SIZE, now });
  },
});

it("rebuilds the keyword index once when a process with a newer ICU (which cuts CJK text into words) opens it, never back for an older one", async () => {
  await server.reset();
  const search = { terms: [{ word: "北京", prefix: false }], match: "all" as const, phrases: [], exclude: [] };
  const first = await openPostgresStore({ url: server.url, poolSize: POOL_SIZE, icuVersion: "74.2" });
  const folder = await first.upsertFolder("/zh", "/zh/_chunks");
  await first.syncDocument({ folderId: folder.id, relativePath: "zh.md", title: "zh", documentType: "md", fileSize: 1, pageCount: null, chunks: [{ content: "我们明天在北京开会。", meta: {} }] });
  expect(await first.getMeta("keyword.icu")).toBe("74.2");
  await first.close();
  // Damage the statistics: only a rebuild puts them right.
  const client = new pg.Client({ connectionString: server.url });
  await client.connect();
  await client.query("UPDATE keyword_stats SET rows = rows + 5");
  await client.end();
  const older = await openPostgresStore({ url: server.url, poolSize: POOL_SIZE, icuVersion: "72.1" });
  expect(await older.getMeta("keyword.icu")).toBe("74.2");
  expect((await older.integrityCheck()).ok).toBe(false);
  await older.close();
  const newer = await openPostgresStore({ url: server.url, poolSize: POOL_SIZE, icuVersion: "76.1" });
  expect(await newer.getMeta("keyword.icu")).toBe("76.1");
  expect(await newer.integrityCheck()).toEqual({ ok: true, problems: [] });
  expect((await newer.keywordSearch(search, { limit: 5 })).map((hit) => hit.chunk.relativePath)).toEqual(["zh.md"]);
  await newer.close();
});
