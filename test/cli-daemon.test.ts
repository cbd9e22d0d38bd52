import fs from "node:fs";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { json, makeTempDir, runCli, writeFile, writeSampleDocuments } from "./helpers/cli.js";
import { startServe, type RunningServer } from "./helpers/serve.js";
import { TINY_BERT_DIR } from "./helpers/hub-server.js";

interface ServerStatus {
  warm: { models: Array<{ model: string }>; requests: number };
}
interface SearchJson {
  mode: string;
  results: Array<{ ref: string; score: number }>;
}

/**
 * The warm daemon as a user meets it: `chunkpad serve` runs, and CLI verbs in other terminals
 * use its loaded model; without a server (or with CHUNKPAD_SERVER=off) they load it themselves
 * and get the same results.
 */
describe("the warm daemon (chunkpad serve keeps the model loaded for CLI verbs)", () => {
  let home: string;
  let folder: string;
  let server: RunningServer;
  let info: RunningServer["info"];
  const cli = (args: string[], env?: NodeJS.ProcessEnv) => runCli(args, { home, ...(env ? { env } : {}) });
  const serverStatus = async () => (await (await server.api("/api/status")).json()) as ServerStatus;
  const inProcess = { CHUNKPAD_SERVER: "off" };

  const startServer = async () => {
    server = await startServe(home);
    info = server.info;
  };

  beforeAll(async () => {
    home = makeTempDir("daemon");
    folder = path.join(home, "docs");
    writeSampleDocuments(folder);
    expect((await cli(["add", folder])).code).toBe(0);
    const embed = await cli(["embed", "--model", TINY_BERT_DIR]);
    expect(embed.code, embed.stderr).toBe(0);
    await startServer();
  });
  afterAll(async () => {
    await server.stop();
    fs.rmSync(home, { recursive: true, force: true });
  });

  it("searches by meaning through the server's model, with the same results as loading it here", async () => {
    const before = (await serverStatus()).warm.requests;
    const served = await cli(["search", "birds by the water", "--mode", "hybrid", "--json"]);
    expect(served.code, served.stderr).toBe(0);
    const after = await serverStatus();
    expect(after.warm.requests).toBeGreaterThan(before);
    expect(after.warm.models.map((loaded) => loaded.model)).toEqual([TINY_BERT_DIR]);

    const local = await cli(["search", "birds by the water", "--mode", "hybrid", "--json"], inProcess);
    expect(local.code, local.stderr).toBe(0);
    expect((await serverStatus()).warm.requests).toBe(after.warm.requests);
    const shape = (report: SearchJson) => ({ mode: report.mode, results: report.results.map((hit) => [hit.ref, hit.score.toFixed(5)]) });
    expect(shape(json<SearchJson>(served))).toEqual(shape(json<SearchJson>(local)));
    expect(json<SearchJson>(served).mode).toBe("hybrid");
  });

  it("says in status where the model runs", async () => {
    const status = json<{ modelHost: { runsIn: string; server: { url: string; pid: number } | null } }>(await cli(["status", "--json"]));
    expect(status.modelHost).toMatchObject({ runsIn: "server", server: { url: info.url, pid: info.pid } });
    const text = await cli(["status"]);
    expect(text.stdout).toContain(`Model runs in: chunkpad serve at ${info.url}`);
    const off = json<{ modelHost: { runsIn: string } }>(await cli(["status", "--json"], inProcess));
    expect(off.modelHost.runsIn).toBe("process");
  });

  it("embeds new chunks through the server's model; the vectors search like ones made here", async () => {
    writeFile(folder, "owl.md", "# Owl\n\nThe owl hunts voles in the meadow at night.\n");
    const before = (await serverStatus()).warm.requests;
    const embedded = await cli(["embed", "--json"]);
    expect(embedded.code, embedded.stderr).toBe(0);
    expect(json<{ embedded: number }>(embedded).embedded).toBe(1);
    expect((await serverStatus()).warm.requests).toBeGreaterThan(before);
    const hit = json<SearchJson>(await cli(["search", "owl hunting voles", "--mode", "vector", "--json", "--limit", "1"], inProcess)).results[0];
    expect(hit?.ref).toMatch(/owl\.md#1$/);
    expect(hit?.score).toBeGreaterThan(0.99 * (json<SearchJson>(await cli(["search", "owl hunting voles", "--mode", "vector", "--json", "--limit", "1"])).results[0]?.score ?? 0));
  });

  it("embeds only for clients with the session token", async () => {
    const refused = await fetch(`${info.url}/api/embed`, { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify({ texts: ["x"], kind: "query" }) });
    expect(refused.status).toBe(401);
    const bad = await server.api(`/api/embed`, { method: "POST", headers: { "content-type": "application/json", "x-chunkpad-token": info.token }, body: JSON.stringify({ texts: "x", kind: "query" }) });
    expect(bad.status).toBe(400);
  });

  it("falls back to loading the model here when the server is gone without cleaning up", async () => {
    await server.stop("SIGKILL");
    expect(fs.existsSync(path.join(home, "data", "server.json"))).toBe(true);
    const search = await cli(["search", "birds by the water", "--mode", "hybrid", "--json"]);
    expect(search.code, search.stderr).toBe(0);
    expect(json<SearchJson>(search).mode).toBe("hybrid");
    expect(json<{ modelHost: { runsIn: string } }>(await cli(["status", "--json"])).modelHost.runsIn).toBe("process");
    await startServer();
  });
});
