import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { openPostgresStore } from "../src/store/postgres/main-store.js";
import { startPgliteServer, type PgliteServer } from "../src/store/postgres/pglite-server.js";
import { json, makeTempDir, writeFile, writeSampleDocuments } from "./helpers/cli.js";
import { runCliInProcess } from "./helpers/cli-in-process.js";
import { startHubServer, TINY_BERT_REPO, type HubServer } from "./helpers/hub-server.js";

/**
 * The CLI unchanged against PostgreSQL + pgvector (PGlite served over the wire protocol in this
 * process; the CLI connects to it as to any server): a SQLite store is migrated into it, then a
 * second Chunkpad home (another machine's) pointed at it sees, searches, embeds and adds folders.
 */
interface SearchReport {
  mode: string;
  notices: Array<{ message: string; nextSteps?: Array<{ action: string }> }>;
  results: { relativePath: string; folderPath: string; chunk: Record<string, unknown> }[];
}

describe("the CLI on a shared PostgreSQL store", () => {
  let server: PgliteServer;
  let hub: HubServer;
  let url: string;
  const laptop = makeTempDir("chunkpad-pg-laptop-");
  const colleague = makeTempDir("chunkpad-pg-colleague-");
  const folder = makeTempDir("chunkpad-pg-docs-");

  beforeAll(async () => {
    server = await startPgliteServer();
    hub = await startHubServer();
    // PGlite runs one session: one connection per process keeps transactions apart.
    url = `${server.url}?pool_size=1`;
    writeSampleDocuments(folder);
  });
  afterAll(async () => {
    await hub?.close();
    await server?.stop();
  });

  const shared = (args: string[]) => runCliInProcess(args, { home: colleague, env: { CHUNKPAD_DATABASE_URL: url, CHUNKPAD_HUB_URL: hub.url } });

  it("migrates a SQLite store into the database and verifies the counts", async () => {
    const added = await runCliInProcess(["add", folder], { home: laptop });
    expect(added.code, added.stderr).toBe(0);
    const excluded = await runCliInProcess(["exclude", "--json", path.join(folder, "notes.md")], { home: laptop });
    expect(excluded.code, excluded.stderr).toBe(0);
    const migrated = await runCliInProcess(["migrate", "--to", url], { home: laptop });
    expect(migrated.code, migrated.stderr).toBe(0);
    expect(migrated.stdout).toMatch(/Copied to postgres:\/\/.* 1 folders, \d+ documents, \d+ chunks \(\d+ excluded\)/);
    expect(migrated.stdout).toContain("Counts match");
    expect(migrated.stderr).toMatch(/documents .*: \d+\/\d+/);
  });

  it("another Chunkpad pointed at it names the backend and searches the migrated folder", async () => {
    const status = await shared(["status"]);
    expect(status.code, status.stderr).toBe(0);
    expect(status.stdout).toMatch(/^Store: PostgreSQL at postgres:\/\/postgres@127\.0\.0\.1:\d+\/postgres/m);
    expect(status.stdout).toContain(folder);
    const search = await shared(["search", "river", "--json"]);
    expect(search.code, search.stderr).toBe(0);
    const report = json<SearchReport>(search);
    expect(report.results.length).toBeGreaterThan(0);
    expect(report.results.every((result) => result.folderPath === folder && !("id" in result.chunk))).toBe(true);
  });

  it("adds a folder, embeds it (not the laptop's) with a downloaded model and searches by meaning there", async () => {
    const more = makeTempDir("chunkpad-pg-more-");
    writeFile(more, "herons.md", "# Herons\n\nThe grey heron waits motionless at the edge of the river for fish.\n");
    expect((await shared(["add", more])).code).toBe(0);
    const embedded = await shared(["embed", "--model", TINY_BERT_REPO, "--yes"]);
    expect(embedded.code, embedded.stderr).toBe(0);
    // Its own folder only: the migrated one belongs to the laptop, which embeds it (decision 056).
    expect(embedded.stdout).toMatch(/^Embedded 1 chunk,/m);
    expect(embedded.stdout + embedded.stderr).toContain(`${folder} belongs to the machine`);
    const hybrid = await shared(["search", "heron", "--json"]);
    expect(hybrid.code, hybrid.stderr).toBe(0);
    expect(json<SearchReport>(hybrid)).toMatchObject({ mode: "hybrid" });
    expect(json<SearchReport>(hybrid).results[0]?.relativePath).toBe("herons.md");
  });

  it("leaves a folder whose files live on another machine to that machine: sync skips it with a note, search finds it", async () => {
    const store = await openPostgresStore({ url, poolSize: 1 });
    try {
      const elsewhere = await store.upsertFolder("/home/alice/field-notes", "/home/alice/field-notes/_chunks");
      await store.syncDocument({ folderId: elsewhere.id, relativePath: "owls.md", title: "Owls", documentType: "md", fileSize: 40, pageCount: null, chunks: [{ content: "The barn owl hunts voles over the meadow.", meta: {} }] });
    } finally {
      await store.close();
    }
    const synced = await shared(["sync"]);
    expect(synced.code, synced.stderr).toBe(0);
    expect(synced.stderr).toContain("note: /home/alice/field-notes is not on this machine");
    const found = json<SearchReport>(await shared(["search", "voles", "--mode", "keyword", "--json"]));
    expect(found.results.map((result) => result.relativePath)).toEqual(["owls.md"]);
  });
});
