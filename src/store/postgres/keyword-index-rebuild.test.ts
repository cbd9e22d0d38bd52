import pg from "pg";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { openPostgresStore } from "./main-store.js";
import { startPgliteServer, type PgliteServer } from "./pglite-server.js";

let server: PgliteServer;
beforeAll(async () => {
  server = await startPgliteServer();
});
afterAll(async () => {
  await server?.stop();
});

describe("a Postgres keyword index made by an older searchableText", () => {
  it("is rebuilt once at open, so a Korean compound and a camelCase word are found by their words", async () => {
    await server.reset();
    const store = await openPostgresStore({ url: server.url, poolSize: 2 });
    const folderId = (await store.upsertFolder("/docs", "/docs/_chunks")).id;
    await store.syncDocument({ folderId, relativePath: "ko.md", title: "안내", documentType: "md", fileSize: 1, pageCount: null, chunks: [{ content: "예산회의가 열립니다. Call parseQuery first.", meta: {} }] });
    await store.close();

    // As a database indexed before the version was recorded: its words were made another way.
    const client = new pg.Client({ connectionString: server.url });
    await client.connect();
    await client.query("DELETE FROM meta WHERE key = 'keyword.searchText'");
    await client.query("DELETE FROM chunk_terms");
    await client.query("DELETE FROM term_stats");
    await client.query("UPDATE chunks SET search = to_tsvector('simple', '')");
    await client.end();

    const reopened = await openPostgresStore({ url: server.url, poolSize: 2 });
    const paths = async (words: string[][]) =>
      (await reopened.keywordSearch({ terms: [], match: "all", phrases: words, exclude: [] }, { limit: 5 })).map((hit) => hit.chunk.relativePath);
    expect(await paths([["회의"]])).toEqual(["ko.md"]);
    expect(await paths([["parse", "query"]])).toEqual(["ko.md"]);
    expect(await reopened.integrityCheck()).toEqual({ ok: true, problems: [] });
    await reopened.close();
  });
});
