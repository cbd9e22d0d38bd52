import pg from "pg";
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { releaseDatabases } from "./helpers/cli.js";
import { startPgliteDatabases, type PgliteDatabases } from "./helpers/pglite-databases.js";

/**
 * The PostgreSQL run's database server (test/helpers/pglite-databases.ts) hands a database no one
 * has used for a while to the next new name instead of starting another PGlite (decision 081).
 * A test home must then find exactly the template's database, whatever the last home did to it,
 * and a home whose database was recycled must be told so, never given an empty one.
 */
const IDLE_MS = 100;

describe("the PostgreSQL run's test databases", () => {
  let databases: PgliteDatabases;

  beforeAll(async () => {
    databases = await startPgliteDatabases({
      prepare: async (url) => {
        const client = new pg.Client({ connectionString: url });
        await client.connect();
        await client.query("CREATE TABLE notes (id serial PRIMARY KEY, text text NOT NULL); INSERT INTO notes (text) VALUES ('from the template')");
        await client.end();
      },
      reset: "ALTER TABLE notes DROP COLUMN IF EXISTS extra",
      idleMs: IDLE_MS,
      spare: 1,
    });
  }, 120_000);

  // One test's databases are put back (or closed) before the next test looks at the counts.
  beforeEach(async () => {
    await expect.poll(() => databases.stats().live).toBe(0);
  });

  afterAll(async () => {
    await databases?.stop();
  });

  async function connect(name: string): Promise<pg.Client> {
    const client = new pg.Client({ connectionString: `${databases.url}/${name}` });
    // A client a failed test left open is cut off by stop(): not an error of the run.
    client.on("error", () => undefined);
    await client.connect();
    return client;
  }

  async function state(client: pg.Client) {
    const notes = (await client.query<{ id: number; text: string }>("SELECT id, text FROM notes ORDER BY id")).rows;
    const columns = (await client.query<{ name: string }>("SELECT column_name AS name FROM information_schema.columns WHERE table_schema = 'public' AND table_name = 'notes' ORDER BY column_name")).rows.map((row) => row.name);
    const next = (await client.query<{ id: number }>("INSERT INTO notes (text) VALUES ('probe') RETURNING id")).rows[0]?.id;
    return { notes, columns, next };
  }

  it("gives a new name a recycled database exactly as the template was, whatever the last name did", async () => {
    const before = databases.stats();
    const first = await connect("first_home");
    await first.query("INSERT INTO notes (text) VALUES ('left behind'), ('and this')");
    await first.query("ALTER TABLE notes ADD COLUMN extra integer");
    await first.query("SELECT pg_advisory_lock(42)");
    await first.query("SET work_mem = '7MB'");
    await first.query("BEGIN; INSERT INTO notes (text) VALUES ('never committed')");
    await first.end();
    await expect.poll(() => databases.stats().putBack).toBe(before.putBack + 1);

    const second = await connect("second_home");
    expect(databases.stats().started).toBe(before.started + 1);
    expect(databases.stats().reused).toBe(before.reused + 1);
    expect(await state(second)).toEqual({ notes: [{ id: 1, text: "from the template" }], columns: ["id", "text"], next: 2 });
    expect((await second.query<{ locked: boolean }>("SELECT pg_try_advisory_lock(42) AS locked")).rows[0]?.locked).toBe(true);
    expect((await second.query<{ work_mem: string }>("SHOW work_mem")).rows[0]?.work_mem).toBe("4MB");
    await second.end();
  });

  it("refuses a name whose database was recycled, saying why, instead of answering with an empty one", async () => {
    const before = databases.stats();
    const home = await connect("comes_back");
    await home.query("INSERT INTO notes (text) VALUES ('mine')");
    await home.end();
    await expect.poll(() => databases.stats().putBack).toBe(before.putBack + 1);
    await expect(connect("comes_back")).rejects.toThrow(/was recycled for another test/);
    const next = await connect("after_the_refusal");
    expect((await next.query("SELECT text FROM notes")).rows).toEqual([{ text: "from the template" }]);
    await next.end();
  });

  it("closes a database it cannot put back, and starts the next name afresh", async () => {
    const spareBefore = databases.stats();
    expect(spareBefore.spare).toBe(1);
    expect(spareBefore.lastRecycleError).toBeUndefined();
    const home = await connect("drops_a_table");
    await home.query("DROP TABLE notes");
    await home.end();
    await expect.poll(() => databases.stats().closed).toBe(spareBefore.closed + 1);
    expect(databases.stats().spare).toBe(0);
    expect(databases.stats().lastRecycleError).toMatch(/notes/);
    const next = await connect("after_the_drop");
    expect(databases.stats().started).toBe(spareBefore.started + 1);
    expect((await state(next)).notes).toEqual([{ id: 1, text: "from the template" }]);
    await next.end();
  });

  it("keeps a database in use as its test left it", async () => {
    const home = await connect("in_use");
    await home.query("INSERT INTO notes (text) VALUES ('still mine')");
    const again = await connect("in_use");
    expect((await again.query("SELECT text FROM notes ORDER BY id")).rows).toEqual([{ text: "from the template" }, { text: "still mine" }]);
    await again.end();
    await home.end();
  });
});

describe("a test file's end", () => {
  it("recycles its homes' databases as soon as their last connection closes, not when they have been idle a while", async () => {
    // Idle for ten minutes before recycling: only the release can put a database back in this test.
    const databases = await startPgliteDatabases({ idleMs: 600_000, spare: 2 });
    const connect = async (name: string) => {
      const client = new pg.Client({ connectionString: `${databases.url}/${name}` });
      client.on("error", () => undefined);
      await client.connect();
      return client;
    };
    try {
      const home = await connect("home_of_a_file");
      // Released while a server of the file still holds a connection: kept until it lets go.
      await releaseDatabases(databases.url, ["home_of_a_file", "never_opened"]);
      expect(databases.stats()).toMatchObject({ putBack: 0, live: 1 });
      expect((await home.query("SELECT 1 AS still")).rows).toEqual([{ still: 1 }]);
      await home.end();
      await expect.poll(() => databases.stats().putBack).toBe(1);

      const started = databases.stats().started;
      const next = await connect("next_files_home");
      expect(databases.stats()).toMatchObject({ started, reused: 1 });
      await next.end();
      await expect(connect("home_of_a_file")).rejects.toThrow(/was recycled for another test/);
      // The name it went to keeps it between connections: its own file has not ended.
      const again = await connect("next_files_home");
      expect(databases.stats()).toMatchObject({ putBack: 1, reused: 1 });
      await again.end();
    } finally {
      await databases.stop();
    }
  });
});
