import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { runStoreSuite } from "../src/store/conformance.js";
import { openPostgresStore } from "../src/store/postgres/main-store.js";
import { makeTempDir, runCli, writeFile } from "./helpers/cli.js";
import { postgresBin, startPostgresCluster, type PostgresCluster } from "./helpers/postgres-server.js";
import { startServe, type RunningServer } from "./helpers/serve.js";

/**
 * A real PostgreSQL server (Debian's, in a throwaway cluster) for what PGlite cannot show:
 * separate sessions (leases between processes), two `chunkpad serve` sharing one database, and
 * the clear message of a server without pgvector (Debian bookworm ships none).
 * Declared skipped where no server is installed (.ci/run installs postgresql).
 */
const bin = postgresBin();

describe.skipIf(bin === null)("PostgreSQL server (Debian, no pgvector)", () => {
  let cluster: PostgresCluster;
  beforeAll(async () => {
    cluster = await startPostgresCluster(bin as string);
  });
  afterAll(async () => {
    await cluster?.stop();
  });

  // Leases between two stores (two pools, separate sessions) run here for real; vector cases skip (no pgvector).
  runStoreSuite({
    name: "PostgreSQL 15 server",
    // Debian ships no pgvector: the vector cases are declared skips here (PGlite runs them).
    vectors: false,
    open: async (opener) => {
      await cluster.reset();
      return openPostgresStore({ ...opener, url: cluster.url, poolSize: 4 });
    },
    reopen: async (_store, opener) => openPostgresStore({ ...opener, url: cluster.url, poolSize: 4 }),
  });

  it("names the missing pgvector extension and how to get it; keyword search keeps working", async () => {
    await cluster.reset();
    const store = await openPostgresStore({ url: cluster.url, poolSize: 2 });
    try {
      expect(store.vectorAvailable).toBe(false);
      expect(store.vectorUnavailableReason).toMatch(/no pgvector extension \("vector"\).*apt install postgresql-<version>-pgvector.*enable the "vector" extension/s);
      await expect(store.ensureVectorTable(4)).rejects.toMatchObject({ code: "VECTOR_UNAVAILABLE", message: expect.stringContaining("pgvector") });
    } finally {
      await store.close();
    }
  });

  it("two chunkpad serve on one database both search a folder added elsewhere; a folder's lease holds across processes", async () => {
    await cluster.reset();
    const env = { CHUNKPAD_DATABASE_URL: cluster.url };
    const docs = makeTempDir("chunkpad-pg-team-docs-");
    writeFile(docs, "estuary.md", "# Estuary\n\nThe kingfisher dives into the estuary at low tide.\n");
    const servers: RunningServer[] = [];
    try {
      servers.push(await startServe(makeTempDir("chunkpad-pg-alice-"), { env }), await startServe(makeTempDir("chunkpad-pg-bob-"), { env }));
      const [alice, bob] = servers as [RunningServer, RunningServer];
      const search = async (server: RunningServer, query: string) => {
        const response = await fetch(`${server.info.url}/api/search?q=${encodeURIComponent(query)}&mode=keyword`, { headers: { "x-chunkpad-token": server.info.token } });
        expect(response.status).toBe(200);
        return ((await response.json()) as { results: { relativePath: string }[] }).results.map((result) => result.relativePath);
      };
      expect(await search(bob, "kingfisher")).toEqual([]);
      // Added on a third machine (a CLI on the same database): both servers see it.
      const added = await runCli(["add", docs], { home: makeTempDir("chunkpad-pg-dave-"), env });
      expect(added.code, added.stderr).toBe(0);
      expect(await search(alice, "kingfisher")).toEqual(["estuary.md"]);
      await waitFor(async () => (await search(bob, "kingfisher")).length > 0);
      expect(await search(bob, "kingfisher")).toEqual(["estuary.md"]);

      // A lease taken in this process (as the machine "erin") is seen by a CLI process on the same database, which names that machine.
      const holder = await openPostgresStore({ url: cluster.url, poolSize: 1, command: "test holder", machine: { id: "machine-erin-1", name: "erin" } });
      const release = await holder.lease([docs], { purpose: "processing" });
      try {
        const busy = await runCli(["add", docs, "--no-wait"], { home: makeTempDir("chunkpad-pg-carol-"), env });
        expect(busy.code).not.toBe(0);
        expect(busy.stderr).toMatch(/another Chunkpad \(pid \d+ on the machine "erin" \(id machine-erin-1\), test holder processing, since .*\) is working on/);
      } finally {
        await release();
        await holder.close();
      }
    } finally {
      for (const server of servers) await server.stop();
    }
  });
});

/** Polls a condition another process makes true (the job runs in the server), without sleeping a fixed time. */
async function waitFor(condition: () => Promise<boolean>): Promise<void> {
  for (let attempt = 0; attempt < 200; attempt += 1) {
    if (await condition()) return;
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  throw new Error("the condition never became true");
}
