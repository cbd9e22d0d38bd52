import fs from "node:fs";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { json, makeTempDir, ON_POSTGRES, runCli, writeSampleDocuments } from "./helpers/cli.js";
import { startServe, type RunningServer } from "./helpers/serve.js";
import { TINY_BERT_DIR } from "./helpers/hub-server.js";

interface SearchReadiness {
  ready: boolean;
  keywordIndex: { ready: boolean; wordsRead: number } | null;
  vectors: string;
}

/**
 * `chunkpad serve` gets search ready by itself, with no request to wake it: the keyword index
 * is read to the end and, with vectors, the query model and the vector index load. The server
 * says so in its log, in GET /api/status, and `chunkpad status` shows it. On PostgreSQL the
 * keywords are searched in the database (no index in memory to read), so only vectors are named.
 */
const KEYWORD_READY = ON_POSTGRES ? "" : "keyword index in memory; ";
describe("chunkpad serve gets search ready before the first request", () => {
  let home: string;
  let server: RunningServer;
  const cli = (args: string[]) => runCli(args, { home });

  beforeAll(async () => {
    home = makeTempDir("search-ready");
    const folder = path.join(home, "docs");
    writeSampleDocuments(folder);
    expect((await cli(["add", folder])).code).toBe(0);
    const embed = await cli(["embed", "--model", TINY_BERT_DIR]);
    expect(embed.code, embed.stderr).toBe(0);
    server = await startServe(home);
  });
  afterAll(async () => {
    await server?.stop();
    fs.rmSync(home, { recursive: true, force: true });
  });

  it("logs when search is ready, having read every word and loaded the vector index and model", async () => {
    // No request has been sent: the server does this on its own while idle.
    await server.logged(new RegExp(`Search ready in [0-9.]+ s: ${KEYWORD_READY}vector index and query model loaded\\.`));
    const status = (await (await server.api("/api/status")).json()) as { search: SearchReadiness };
    expect(status.search).toEqual({ ready: true, keywordIndex: ON_POSTGRES ? null : { ready: true, wordsRead: expect.any(Number) }, vectors: "ready" });
    if (!ON_POSTGRES) expect(status.search.keywordIndex?.wordsRead).toBeGreaterThan(10);
  });

  it("shows the server's search readiness in chunkpad status", async () => {
    await server.logged(/Search ready in/);
    const report = json<{ search: SearchReadiness | null }>(await cli(["status", "--json"]));
    expect(report.search).toMatchObject({ ready: true, keywordIndex: ON_POSTGRES ? null : { ready: true }, vectors: "ready" });
    const text = await cli(["status"]);
    expect(text.stdout).toContain(`Search in chunkpad serve: ready (${KEYWORD_READY}vector index and query model loaded)`);
  });

  it("answers a vector search right after it is ready", async () => {
    await server.logged(/Search ready in/);
    const answer = await fetch(`${server.info.url}/api/search?q=${encodeURIComponent("birds by the water")}&mode=vector`, { headers: { "x-chunkpad-token": server.info.token } });
    expect(answer.status).toBe(200);
    const report = (await answer.json()) as { mode: string; results: unknown[] };
    expect(report.mode).toBe("vector");
    expect(report.results.length).toBeGreaterThan(0);
  });
});
