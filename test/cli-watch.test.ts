import { spawn, type ChildProcess } from "node:child_process";
import fs from "node:fs";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { BIN, cliEnv, json, makeTempDir, writeFile } from "./helpers/cli.js";
import { runCliInProcess } from "./helpers/cli-in-process.js";
import { startServe } from "./helpers/serve.js";
import { TINY_BERT_DIR } from "./helpers/hub-server.js";

interface FolderReport {
  rootPath: string;
  processed: { processed: Array<{ path: string }>; removed: string[]; renamed: Array<{ from: string; to: string }>; editsSynced: Array<{ path: string }> } | null;
  embedded: { embedded: number; synced: { documentsProcessed: number; sourcesRenamed: number; sourcesRemoved: number } } | null;
}

type WatchEvent =
  | { schema: string; type: "ready"; folders: string[] }
  | { schema: string; type: "syncing"; rootPath: string; reason: string; paths: string[] }
  | { schema: string; type: "synced"; rootPath: string; report: { folders: FolderReport[] } }
  | { schema: string; type: "missing"; rootPath: string }
  | { schema: string; type: "error"; rootPath: string | null; message: string };

/**
 * `chunkpad watch --json` as a user runs it, on real files: each test changes the folders and
 * waits for the sync that follows (an event, not a clock), then checks what search finds.
 */
describe("chunkpad watch", () => {
  let home: string;
  let plain: string;
  let embedded: string;
  let child: ChildProcess;
  let exited: Promise<unknown>;
  const events: WatchEvent[] = [];
  const waiters: Array<{ match: (event: WatchEvent) => boolean; resolve: (event: WatchEvent) => void }> = [];
  let stderr = "";

  const cli = (args: string[]) => runCliInProcess(args, { home });
  /** The next event (after `since`) that matches; events that came earlier count. */
  const next = (match: (event: WatchEvent) => boolean, since: number): Promise<WatchEvent> => {
    const seen = events.slice(since).find(match);
    if (seen) return Promise.resolve(seen);
    return new Promise((resolve) => waiters.push({ match, resolve }));
  };
  const syncedWith = (root: string, check: (folder: FolderReport) => boolean) => (event: WatchEvent) =>
    event.type === "synced" && event.rootPath === root && event.report.folders.some(check);
  const searchPaths = async (query: string, root: string, mode = "keyword") => {
    const result = await cli(["search", query, "--mode", mode, "--json", "--folder", root]);
    expect(result.code, result.stderr).toBe(0);
    return json<{ results: Array<{ relativePath: string }> }>(result).results.map((hit) => hit.relativePath);
  };

  beforeAll(async () => {
    home = makeTempDir("watch");
    plain = path.join(home, "plain");
    embedded = path.join(home, "embedded");
    writeFile(plain, "heron.md", "# Heron\n\nThe grey heron waits by the river at dawn.\n");
    writeFile(embedded, "marsh.md", "# Marsh\n\nReeds and bitterns live in the marsh.\n");
    for (const folder of [plain, embedded]) expect((await cli(["add", folder])).code).toBe(0);
    const embed = await cli(["embed", embedded, "--model", TINY_BERT_DIR]);
    expect(embed.code, embed.stderr).toBe(0);
    // A change made while nothing watches is found by the full sync on start.
    writeFile(plain, "before-start.md", "# Early\n\nThe kingfisher dives before the watcher starts.\n");

    child = spawn(process.execPath, [BIN, "watch", "--json", "--debounce", "100"], { env: cliEnv(home), stdio: ["ignore", "pipe", "pipe"] });
    exited = new Promise((resolve) => child.on("close", resolve));
    let buffered = "";
    child.stdout?.on("data", (data: Buffer) => {
      buffered += data.toString();
      for (let end = buffered.indexOf("\n"); end >= 0; end = buffered.indexOf("\n")) {
        const event = JSON.parse(buffered.slice(0, end)) as WatchEvent;
        buffered = buffered.slice(end + 1);
        events.push(event);
        for (const waiter of waiters.filter((candidate) => candidate.match(event))) {
          waiters.splice(waiters.indexOf(waiter), 1);
          waiter.resolve(event);
        }
      }
    });
    child.stderr?.on("data", (data: Buffer) => (stderr += data.toString()));
    const ready = await next((event) => event.type === "ready", 0);
    expect(ready).toMatchObject({ schema: "chunkpad.watch/1", folders: expect.arrayContaining([plain, embedded]) });
  });

  afterAll(async () => {
    child.kill("SIGTERM");
    await exited;
    fs.rmSync(home, { recursive: true, force: true });
  });

  it("catches up on start: a file added while nothing watched is searchable", async () => {
    expect(await searchPaths("kingfisher", plain)).toEqual(["before-start.md"]);
  });

  it("takes in a new file, a burst of edits and an editor's atomic save, ending with the last text", async () => {
    let since = events.length;
    writeFile(plain, "owl.md", "# Owl\n\nThe owl hunts at night.\n");
    await next(syncedWith(plain, (folder) => folder.processed?.processed.some((file) => file.path === "owl.md") ?? false), since);
    expect(await searchPaths("owl", plain)).toEqual(["owl.md"]);

    since = events.length;
    for (let version = 1; version <= 5; version++) writeFile(plain, "owl.md", `# Owl\n\nThe owl hunts at night, version ${version}, catching voles${version === 5 ? " and shrews" : ""}.\n`);
    // An atomic save: the editor writes a temporary file, then renames it over the document.
    writeFile(plain, ".owl.md.swp", "swap");
    writeFile(plain, "owl.md.tmp", "# Owl\n\nThe owl hunts at night, catching voles and shrews and moles.\n");
    fs.renameSync(path.join(plain, "owl.md.tmp"), path.join(plain, "owl.md"));
    fs.rmSync(path.join(plain, ".owl.md.swp"));
    await next(syncedWith(plain, (folder) => folder.processed?.processed.some((file) => file.path === "owl.md") ?? false), since);
    // The save may land in a second sync after the burst's: wait for syncs until it is in.
    for (;;) {
      const mark = events.length;
      if ((await searchPaths("moles", plain)).includes("owl.md")) break;
      await next((event) => event.type === "synced" && event.rootPath === plain, mark);
    }
    expect(await searchPaths("moles", plain)).toEqual(["owl.md"]);
    // The temporary and swap files were never documents.
    expect((await cli(["folders", "--json"])).stdout).not.toContain("owl.md.tmp");
  });

  it("keeps the vectors of a renamed file (nothing embedded again), and forgets a deleted file", async () => {
    // The folder the file moves into exists first: a sync started by its creation could
    // otherwise walk the folder while the rename happens and see the file at both paths.
    fs.mkdirSync(path.join(embedded, "birds"));
    writeFile(embedded, "heronry.md", "# Heronry\n\nHerons nest together in tall trees.\n");
    let since = events.length;
    await next(syncedWith(embedded, (folder) => (folder.embedded?.embedded ?? 0) > 0), since);
    expect(await searchPaths("herons nest trees", embedded, "vector")).toContain("heronry.md");

    since = events.length;
    fs.renameSync(path.join(embedded, "heronry.md"), path.join(embedded, "birds", "heronry.md"));
    const renamed = await next(syncedWith(embedded, (folder) => (folder.embedded?.synced.sourcesRenamed ?? 0) > 0), since);
    // Same bytes under a new path: nothing was embedded again.
    expect(renamed.type === "synced" && renamed.report.folders[0]?.embedded?.embedded).toBe(0);
    expect(await searchPaths("herons nest trees", embedded, "vector")).toContain("birds/heronry.md");
    expect(fs.existsSync(path.join(embedded, "_chunks", "birds", "heronry.md.md"))).toBe(true);
    expect(fs.existsSync(path.join(embedded, "_chunks", "heronry.md.md"))).toBe(false);

    since = events.length;
    fs.rmSync(path.join(embedded, "birds", "heronry.md"));
    await next(syncedWith(embedded, (folder) => (folder.embedded?.synced.sourcesRemoved ?? 0) > 0), since);
    expect(await searchPaths("herons nest", embedded, "keyword")).toEqual([]);
  });

  it("takes in a chunk file the user edits while watching", async () => {
    const since = events.length;
    const chunkFile = path.join(plain, "_chunks", "heron.md.md");
    fs.writeFileSync(chunkFile, fs.readFileSync(chunkFile, "utf8").replace("waits by the river", "stalks frogs in the shallows"));
    await next(syncedWith(plain, (folder) => folder.processed?.editsSynced.some((edit) => edit.path === "heron.md") ?? false), since);
    expect(await searchPaths("frogs shallows", plain)).toEqual(["heron.md"]);
  });

  it("keeps a folder's index while it is moved away, and syncs what changed when it comes back", async () => {
    let since = events.length;
    const away = path.join(home, "plain-away");
    fs.renameSync(plain, away);
    await next((event) => event.type === "missing" && event.rootPath === plain, since);
    expect(await searchPaths("owl", plain)).toEqual(["owl.md"]);

    writeFile(away, "swan.md", "# Swan\n\nA swan glides on the lake.\n");
    since = events.length;
    fs.renameSync(away, plain);
    await next(syncedWith(plain, (folder) => folder.processed?.processed.some((file) => file.path === "swan.md") ?? false), since);
    expect(await searchPaths("swan lake", plain)).toEqual(["swan.md"]);

    // Watching goes on in the folder that came back.
    since = events.length;
    fs.rmSync(path.join(plain, "owl.md"));
    await next(syncedWith(plain, (folder) => folder.processed?.removed.includes("owl.md") ?? false), since);
    expect(await searchPaths("owl", plain)).toEqual([]);
    expect(events.filter((event) => event.type === "error"), stderr).toEqual([]);
  });
});

describe("chunkpad watch under continuous change", () => {
  it("syncs a steadily growing file within a few seconds, though the quiet time never comes", async () => {
    const home = makeTempDir("watch-growing");
    const folder = path.join(home, "logs");
    writeFile(folder, "old.md", "# Old\n\nAn older note.\n");
    expect((await runCliInProcess(["add", folder], { home })).code).toBe(0);
    // A quiet time far longer than the gap between appends: only the maximum wait (default 2 s) can start a sync.
    const child = spawn(process.execPath, [BIN, "watch", "--json", "--debounce", "5000"], { env: cliEnv(home), stdio: ["ignore", "pipe", "pipe"] });
    const exited = new Promise((resolve) => child.on("close", resolve));
    let output = "";
    let stderr = "";
    const checks = new Set<() => void>();
    child.stdout?.on("data", (data: Buffer) => {
      output += data.toString();
      for (const check of checks) check();
    });
    child.stderr?.on("data", (data: Buffer) => (stderr += data.toString()));
    /** Resolves once a line of the output matches. */
    const seen = (pattern: RegExp) =>
      new Promise<void>((resolve) => {
        const check = () => {
          if (!pattern.test(output)) return;
          checks.delete(check);
          resolve();
        };
        checks.add(check);
        check();
      });
    try {
      await seen(/"type":"ready"/);
      const growing = path.join(folder, "growing.md");
      fs.writeFileSync(growing, "# Growing\n\nThe sandpiper log begins.\n");
      const synced = seen(/"type":"synced".*"path":"growing\.md"/);
      let done = false;
      void synced.then(() => (done = true));
      let appends = 0;
      // Appends every 100 ms for at most 30 s; the sync must come while they go on.
      while (!done && appends < 300) {
        fs.appendFileSync(growing, `Line ${appends}: the sandpiper runs along the tide line.\n`);
        appends += 1;
        await new Promise((resolve) => setTimeout(resolve, 100));
      }
      expect(done, `no sync after ${appends} appends; ${stderr}`).toBe(true);
      expect(appends).toBeLessThan(300);
      const search = await runCliInProcess(["search", "sandpiper", "--mode", "keyword", "--json"], { home });
      expect(json<{ results: Array<{ relativePath: string }> }>(search).results.map((hit) => hit.relativePath)).toEqual(["growing.md"]);
    } finally {
      child.kill("SIGTERM");
      await exited;
      fs.rmSync(home, { recursive: true, force: true });
    }
  });
});

describe("chunkpad serve --watch", () => {
  it("keeps the served index in sync with the files", async () => {
    const home = makeTempDir("serve-watch");
    const folder = path.join(home, "docs");
    writeFile(folder, "heron.md", "# Heron\n\nThe grey heron waits by the river.\n");
    expect((await runCliInProcess(["add", folder], { home })).code).toBe(0);
    const server = await startServe(home, { args: ["--watch"] });
    try {
      await server.logged(/Watching 1 folder/);
      writeFile(folder, "swan.md", "# Swan\n\nA swan glides on the lake.\n");
      await server.logged(/1 document processed/);
      const response = await server.api("/api/search?q=swan&mode=keyword");
      const body = (await response.json()) as { results: Array<{ relativePath: string }> };
      expect(body.results.map((hit) => hit.relativePath)).toEqual(["swan.md"]);
    } finally {
      await server.stop();
      fs.rmSync(home, { recursive: true, force: true });
    }
  });
});
