import { spawn } from "node:child_process";
import fs from "node:fs";
import path from "node:path";
import { openSqlite } from "../src/store/sqlite/driver.js";
import * as sqliteVec from "sqlite-vec";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import pg from "pg";
import { BIN, cliEnv, databaseUrlFor, json, ON_POSTGRES, makeTempDir, REPO_ROOT, writeFile, writeSampleDocuments, type CliResult } from "./helpers/cli.js";
import { runCliInProcess } from "./helpers/cli-in-process.js";
import { openHomeStore } from "./helpers/store.js";
import { closedServerUrl, startHubServer, TINY_BERT_DIR, TINY_BERT_REPO, type HubServer } from "./helpers/hub-server.js";

interface EmbedReport {
  embedded: number;
  removed: number;
  unchanged: number;
  excluded: number;
  nothingToDo: boolean;
  downloaded: boolean;
  modelLoaded: boolean;
  model: string;
  dimensions: number | null;
  chunksPerSecond: number | null;
  configChanged: Array<{ key: string; value: string }>;
}

interface ChunkState {
  ref: string;
  relativePath: string;
  ordinal: number;
  included: boolean;
  embedState: "embedded" | "modified" | "new";
}

interface SearchReport {
  mode: string;
  notices: Array<{ message: string; nextSteps?: Array<{ action: string }> }>;
  results: Array<{ ref: string; distance?: number }>;
}

/** PostgreSQL keeps a chunk's vector in its embed record's row: rows with a vector, and with none. */
async function postgresVectorRows(home: string) {
  const client = new pg.Client({ connectionString: databaseUrlFor(home).replace(/\?.*$/, "") });
  await client.connect();
  try {
    const hasColumn = (await client.query("SELECT 1 FROM pg_attribute WHERE attrelid = 'vectors'::regclass AND attname = 'embedding' AND NOT attisdropped")).rowCount !== 0;
    if (!hasColumn) return { vectorRows: 0, distinctVectorRefs: 0, vectorsWithoutRecord: 0 };
    const row = (await client.query<{ rows: string; refs: string }>("SELECT COUNT(embedding) AS rows, COUNT(DISTINCT chunk_id) FILTER (WHERE embedding IS NOT NULL) AS refs FROM vectors")).rows[0];
    return { vectorRows: Number(row?.rows), distinctVectorRefs: Number(row?.refs), vectorsWithoutRecord: 0 };
  } finally {
    await client.end();
  }
}

/** What the database holds: vectors, embed records, and whether every included chunk's vector is current. */
async function vectorState(home: string) {
  const file = path.join(home, "data", "chunkpad.db");
  const store = await openHomeStore(home);
  const rows = await store.embedState();
  const state = {
    embedRecords: await store.vectorCount(),
    included: rows.filter((row) => row.included).length,
    current: rows.filter((row) => row.included && row.embeddedHash === row.embedHash).length,
    excludedWithVector: rows.filter((row) => !row.included && row.embeddedHash !== null).length,
    integrity: await store.integrityCheck(),
  };
  await store.close();
  if (ON_POSTGRES) return { ...state, ...(await postgresVectorRows(home)) };
  const db = openSqlite(file, { readOnly: true });
  sqliteVec.load(db);
  const hasTable = db.prepare("SELECT 1 FROM sqlite_master WHERE name = 'vec_chunks'").get() !== undefined;
  const vectors = hasTable ? (db.prepare("SELECT COUNT(*) AS rows, COUNT(DISTINCT chunk_ref) AS refs FROM vec_chunks").get() as { rows: number; refs: number }) : { rows: 0, refs: 0 };
  const orphans = hasTable ? (db.prepare("SELECT COUNT(*) AS n FROM vec_chunks WHERE chunk_ref NOT IN (SELECT chunk_ref FROM embedded_chunk_refs)").get() as { n: number }) : { n: 0 };
  db.close();
  return { ...state, vectorRows: vectors.rows, distinctVectorRefs: vectors.refs, vectorsWithoutRecord: orphans.n };
}

const gets = (hub: HubServer) => hub.requests.filter((request) => request.method === "GET");

describe("chunkpad embed: lazy download from the hub, then incremental embedding", () => {
  const home = makeTempDir("home");
  const folder = makeTempDir("docs");
  let hub: HubServer;
  let env: NodeJS.ProcessEnv;
  const cli = (args: string[]): Promise<CliResult> => runCliInProcess(args, { home, env });
  const states = async (): Promise<ChunkState[]> => json<ChunkState[]>(await cli(["chunks", folder, "--chunks", "--json"]));

  beforeAll(async () => {
    hub = await startHubServer();
    env = { CHUNKPAD_HUB_URL: hub.url };
    writeSampleDocuments(folder);
  });
  afterAll(async () => {
    await hub.close();
  });

  it("add and search never touch the hub; search says vector search needs chunkpad embed", async () => {
    expect((await cli(["add", folder])).code).toBe(0);
    const search = await cli(["search", "river", "--json"]);
    expect(search.code, search.stderr).toBe(0);
    expect(json<SearchReport>(search).mode).toBe("keyword");
    expect(search.stderr).toMatch(/chunkpad embed/);
    const status = await cli(["model", "status", "--model", TINY_BERT_REPO, "--json"]);
    expect(json<{ status: { state: string } }>(status).status).toEqual({ state: "notDownloaded" });
    expect(hub.requests).toEqual([]);
  });

  it("refuses to download without consent when stdin is not a terminal, says to pass --yes, and sends the hub no request at all", async () => {
    const result = await cli(["embed", "--model", TINY_BERT_REPO]);
    expect(result.code).toBe(1);
    expect(result.stderr).toMatch(/must be downloaded first.*stdin is not a terminal.*Pass --yes.*chunkpad embed --yes/);
    expect(result.stderr).toContain(`${TINY_BERT_REPO} (size unknown)`);
    // Not even a HEAD for the size: which model this machine wants is not the hub's business before consent.
    expect(hub.requests).toHaveLength(0);
    expect((await vectorState(home)).embedRecords).toBe(0);
  });

  it("downloads with --yes (progress on stderr), embeds every included chunk, then has nothing to do without the hub", async () => {
    const result = await cli(["embed", "--model", TINY_BERT_REPO, "--yes"]);
    expect(result.code, result.stderr).toBe(0);
    expect(result.stderr).toMatch(/Downloading the embedding model chunkpad-test\/tiny-bert \(size unknown\) from http:\/\/127\.0\.0\.1:\d+ into .*models \(--yes\)/);
    expect(result.stderr).toMatch(/downloading the embedding model: .* 100% \([0-9.]+ [kM]B of [0-9.]+ [kM]B\)/);
    expect(result.stderr).toMatch(/Loading the embedding model/);
    expect(result.stderr).toMatch(/embedded 3\/3 chunks \(100%\), \d+ chunks\/s/);
    expect(result.stdout).toMatch(/^Embedded 3 chunks, removed 0, unchanged 0 with chunkpad-test\/tiny-bert \(fp32, 64 dims\) in [0-9.]+ s, \d+ chunks\/s\.$/m);
    expect(result.stdout).toMatch(/embedding\.model is now chunkpad-test\/tiny-bert in the config/);
    expect(gets(hub).length).toBeGreaterThan(0);
    const state = await vectorState(home);
    expect(state).toMatchObject({ embedRecords: 3, included: 3, current: 3, vectorRows: 3, distinctVectorRefs: 3, vectorsWithoutRecord: 0 });
    expect(state.integrity.ok).toBe(true);
    expect((await cli(["model", "status"])).stdout).toMatch(/^Status: ready/m);

    hub.requests.length = 0;
    const again = await cli(["embed", "--json"]);
    expect(again.code, again.stderr).toBe(0);
    expect(json<EmbedReport>(again)).toMatchObject({ embedded: 0, removed: 0, unchanged: 3, nothingToDo: true, downloaded: false });
    const text = await cli(["embed"]);
    expect(text.stdout).toMatch(/^Nothing to embed: all 3 included chunks are embedded with chunkpad-test\/tiny-bert/m);
    expect(hub.requests).toEqual([]);
  });

  it("searches by meaning from the cached model without any hub request", async () => {
    const hybrid = await cli(["search", "river", "--json"]);
    expect(hybrid.code, hybrid.stderr).toBe(0);
    expect(json<SearchReport>(hybrid)).toMatchObject({ mode: "hybrid", notices: [] });
    const vector = json<SearchReport>(await cli(["search", "river", "--mode", "vector", "--min-score", "0", "--json"]));
    expect(vector.mode).toBe("vector");
    expect(vector.results).toHaveLength(3);
    expect(vector.results.every((result) => typeof result.distance === "number")).toBe(true);
    expect(hub.requests).toEqual([]);
  });

  it("removes the vector of an excluded chunk, and re-embeds just a chunk edited by hand", async () => {
    const before = await states();
    const report = before.find((state) => state.relativePath === "report.txt");
    expect((await cli(["exclude", report?.ref ?? ""])).code).toBe(0);
    const excluded = json<EmbedReport>(await cli(["embed", "--json"]));
    expect(excluded).toMatchObject({ embedded: 0, removed: 1, unchanged: 2, excluded: 1, modelLoaded: false });
    expect(await vectorState(home)).toMatchObject({ embedRecords: 2, vectorRows: 2, excludedWithVector: 0 });

    // A hand edit, taken in by `process`: shown as modified until embed.
    const chunkFile = path.join(folder, "_chunks", "notes.md.md");
    fs.writeFileSync(chunkFile, fs.readFileSync(chunkFile, "utf8").replace("The heron waits", "The grey heron waits"));
    expect((await cli(["process", folder])).code).toBe(0);
    const modified = await states();
    expect(modified.find((state) => state.relativePath === "notes.md")?.embedState).toBe("modified");
    expect(modified.find((state) => state.relativePath === "garden/tomatoes.md")?.embedState).toBe("embedded");
    const edited = await cli(["embed"]);
    expect(edited.stdout).toMatch(/^Embedded 1 chunk, removed 0, unchanged 1, excluded 1 with chunkpad-test\/tiny-bert \(fp32, 64 dims\)/m);
    expect((await states()).filter((state) => state.included).map((state) => state.embedState)).toEqual(["embedded", "embedded"]);

    // A hand edit with no `process` in between: embed takes it in first.
    fs.writeFileSync(chunkFile, fs.readFileSync(chunkFile, "utf8").replace("grey heron", "blue heron"));
    const direct = await cli(["embed"]);
    expect(direct.stdout).toMatch(/^Took in your edits to 1 chunk file\.$/m);
    expect(direct.stdout).toMatch(/^Embedded 1 chunk, removed 0, unchanged 1/m);
    const search = json<SearchReport & { results: Array<{ chunk: { content: string } }> }>(await cli(["search", "blue heron", "--mode", "keyword", "--json"]));
    expect(search.results[0]?.chunk.content).toContain("blue heron");
    expect(await vectorState(home)).toMatchObject({ embedRecords: 2, current: 2 });
  });

  it("drops the vectors of a deleted source on process", async () => {
    fs.rmSync(path.join(folder, "garden", "tomatoes.md"));
    expect((await cli(["process", folder])).code).toBe(0);
    const state = await vectorState(home);
    expect(state).toMatchObject({ embedRecords: 1, vectorRows: 1, vectorsWithoutRecord: 0, included: 1, current: 1 });
    expect(json<EmbedReport>(await cli(["embed", "--json"]))).toMatchObject({ nothingToDo: true, unchanged: 1 });
    expect(hub.requests).toEqual([]);
  });
});

/** Runs the CLI on a pseudo-terminal (util-linux `script`), typing `input`: the way a person at a terminal runs it. */
function runInTerminal(args: string[], options: { home: string; env: NodeJS.ProcessEnv; input: string }): Promise<CliResult> {
  const command = [process.execPath, BIN, ...args].map((part) => `'${part.replace(/'/g, "'\\''")}'`).join(" ");
  return new Promise((resolve, reject) => {
    const child = spawn("script", ["-qec", command, "/dev/null"], {
      cwd: REPO_ROOT,
      env: cliEnv(options.home, options.env),
      stdio: ["pipe", "pipe", "pipe"],
    });
    let stdout = "";
    child.stdout.on("data", (data: Buffer) => (stdout += data.toString()));
    child.on("error", reject);
    child.on("close", (code) => resolve({ code: code ?? -1, stdout, stderr: "" }));
    child.stdin.end(options.input);
  });
}

describe("chunkpad embed: asking on a terminal", () => {
  const home = makeTempDir("home");
  const folder = makeTempDir("docs");
  let hub: HubServer;

  beforeAll(async () => {
    hub = await startHubServer();
    writeSampleDocuments(folder);
    expect((await runCliInProcess(["add", folder], { home })).code).toBe(0);
  });
  afterAll(async () => {
    await hub.close();
  });

  it("shows the size and downloads only on yes", async () => {
    const env = { CHUNKPAD_HUB_URL: hub.url };
    const declined = await runInTerminal(["embed", "--model", TINY_BERT_REPO], { home, env, input: "n\n" });
    expect(declined.stdout).toMatch(/The embedding model chunkpad-test\/tiny-bert \(size unknown\) is not downloaded yet\. Download it once from http:\/\/127\.0\.0\.1:\d+ into .*\? .*\[y\/N\]/s);
    expect(declined.stdout).toMatch(/agree to the download, or pass --yes/);
    expect(declined.code).toBe(1);
    expect(hub.requests).toHaveLength(0);

    const agreed = await runInTerminal(["embed", "--model", TINY_BERT_REPO], { home, env, input: "y\n" });
    expect(agreed.code, agreed.stdout).toBe(0);
    expect(agreed.stdout).toMatch(/100% \([0-9.]+ [kM]B of [0-9.]+ [kM]B\)/);
    expect(agreed.stdout).toMatch(/Embedded 3 chunks/);
    expect(await vectorState(home)).toMatchObject({ embedRecords: 3, current: 3 });
  });
});

describe("chunkpad embed: failures reaching the hub", () => {
  const folder = makeTempDir("docs");
  let hub: HubServer;

  beforeAll(async () => {
    hub = await startHubServer();
    writeSampleDocuments(folder);
  });
  afterAll(async () => {
    await hub.close();
  });

  it("a model the hub does not have is a clear error", async () => {
    const home = makeTempDir("home");
    expect((await runCliInProcess(["add", folder], { home })).code).toBe(0);
    hub.behave({ notFound: true });
    const result = await runCliInProcess(["embed", "--model", TINY_BERT_REPO, "--yes"], { home, env: { CHUNKPAD_HUB_URL: hub.url } });
    hub.behave({});
    expect(result.code).toBe(1);
    expect(result.stderr).toMatch(/HTTP 404.*chunkpad-test\/tiny-bert/);
    expect((await vectorState(home)).embedRecords).toBe(0);
  });

  it("an unreachable hub names CHUNKPAD_HUB_URL and the local-directory way out", async () => {
    const home = makeTempDir("home");
    expect((await runCliInProcess(["add", folder], { home })).code).toBe(0);
    const result = await runCliInProcess(["embed", "--model", TINY_BERT_REPO, "--yes"], { home, env: { CHUNKPAD_HUB_URL: await closedServerUrl() } });
    expect(result.code).toBe(1);
    expect(result.stderr).toMatch(/connection was refused/);
    expect(result.stderr).toMatch(/CHUNKPAD_HUB_URL/);
    expect(result.stderr).toMatch(/--model \/path\/to\/model-dir/);
  });
});

describe("chunkpad embed: a local model directory, another model, --reembed", () => {
  const home = makeTempDir("home");
  const folder = makeTempDir("docs");
  const copy = path.join(makeTempDir("models"), "tiny-bert-copy");
  let env: NodeJS.ProcessEnv;
  const cli = (args: string[]) => runCliInProcess(args, { home, env });

  beforeAll(async () => {
    // No hub at all: a local directory must need no network.
    env = { CHUNKPAD_HUB_URL: await closedServerUrl() };
    writeSampleDocuments(folder);
    fs.cpSync(TINY_BERT_DIR, copy, { recursive: true });
    expect((await cli(["add", folder])).code).toBe(0);
  });

  it("embeds with a local directory and no network", async () => {
    const result = await cli(["embed", "--model", TINY_BERT_DIR, "--json"]);
    expect(result.code, result.stderr).toBe(0);
    expect(json<EmbedReport>(result)).toMatchObject({ embedded: 3, downloaded: false, model: TINY_BERT_DIR, dimensions: 64 });
    expect(json<SearchReport>(await cli(["search", "river", "--json"])).mode).toBe("hybrid");
  });

  it("another model is EMBEDDING_MISMATCH that says how to re-embed; --reembed starts over with it", async () => {
    const other = await cli(["embed", "--model", copy]);
    expect(other.code).toBe(1);
    expect(other.stderr).toMatch(/made by .*tiny-bert \(fp32\), but this run uses .*tiny-bert-copy \(fp32\).*chunkpad embed --reembed/);
    expect((await vectorState(home)).embedRecords).toBe(3);

    const reembedded = await cli(["embed", "--model", copy, "--reembed", "--json"]);
    expect(reembedded.code, reembedded.stderr).toBe(0);
    expect(json<EmbedReport>(reembedded)).toMatchObject({ embedded: 3, model: copy, configChanged: [{ key: "embedding.model", value: copy }] });
    expect(await vectorState(home)).toMatchObject({ embedRecords: 3, vectorRows: 3, current: 3 });
    const search = await cli(["search", "river", "--json"]);
    expect(json<SearchReport>(search)).toMatchObject({ mode: "hybrid", notices: [] });
  });
});

describe("chunkpad embed: killed mid-run, then run again", () => {
  const home = makeTempDir("home");
  const folder = makeTempDir("docs");
  const env = { CHUNKPAD_HUB_URL: "http://127.0.0.1:9" };

  beforeAll(async () => {
    // About a thousand small chunks: tiny-bert embeds them in a second or two, in batches of 8.
    for (let file = 1; file <= 10; file++) {
      const paragraphs = Array.from({ length: 100 }, (_, index) => `Paragraph ${index + 1} of file ${file}: the kestrel hovered over field ${index} and watched the grass below for voles.`);
      writeFile(folder, `notes-${file}.txt`, paragraphs.join("\n\n"));
    }
    const added = await runCliInProcess(["add", folder, "--chunk-size", "32", "--overlap", "0"], { home, env });
    expect(added.code, added.stderr).toBe(0);
  });

  it("finishes the job with no duplicate and no missing vector, and the database passes integrity_check", async () => {
    const total = (await vectorState(home)).included;
    expect(total).toBeGreaterThan(500);

    // Killed (SIGKILL: no cleanup at all) as soon as a batch is committed and reported.
    const child = spawn(process.execPath, [BIN, "embed", "--model", TINY_BERT_DIR, "--batch-size", "8"], {
      cwd: REPO_ROOT,
      env: cliEnv(home, env),
      stdio: ["ignore", "ignore", "pipe"],
    });
    let stderr = "";
    const exit = new Promise<NodeJS.Signals | null>((resolve) => child.on("close", (_code, signal) => resolve(signal)));
    child.stderr.on("data", (data: Buffer) => {
      stderr += data.toString();
      if (/embedded \d+\/\d+ chunks/.test(stderr)) child.kill("SIGKILL");
    });
    expect(await exit, stderr).toBe("SIGKILL");

    const partial = await vectorState(home);
    expect(partial.embedRecords).toBeGreaterThan(0);
    expect(partial.embedRecords).toBeLessThan(total);
    expect(partial.vectorRows).toBe(partial.embedRecords);

    const again = await runCliInProcess(["embed", "--json"], { home, env });
    expect(again.code, again.stderr).toBe(0);
    expect(json<EmbedReport>(again)).toMatchObject({ embedded: total - partial.embedRecords, unchanged: partial.embedRecords });
    const state = await vectorState(home);
    expect(state).toMatchObject({ embedRecords: total, current: total, vectorRows: total, distinctVectorRefs: total, vectorsWithoutRecord: 0 });
    expect(state.integrity).toEqual({ ok: true, problems: [] });
  });
});
