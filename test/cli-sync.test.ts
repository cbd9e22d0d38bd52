import fs from "node:fs";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { json, makeTempDir, writeFile, type CliResult } from "./helpers/cli.js";
import { runCliInProcess } from "./helpers/cli-in-process.js";
import { TINY_BERT_DIR } from "./helpers/hub-server.js";

interface SyncJson {
  schema: string;
  folders: Array<{
    rootPath: string;
    processed: { processed: Array<{ path: string }>; unchanged: string[] } | null;
    embedded: { embedded: number; unchanged: number; synced: { documentsProcessed: number } } | null;
  }>;
}

/** Two folders: `embedded` has vectors (a local model directory, no download), `plain` only chunks. */
describe("chunkpad sync", () => {
  let home: string;
  let embedded: string;
  let plain: string;
  const cli = (args: string[]): Promise<CliResult> => runCliInProcess(args, { home });
  const folderOf = (report: SyncJson, root: string) => report.folders.find((entry) => entry.rootPath === root);

  beforeAll(async () => {
    home = makeTempDir("sync");
    embedded = path.join(home, "embedded");
    plain = path.join(home, "plain");
    writeFile(embedded, "river.md", "# River\n\nThe heron waits by the river.\n");
    writeFile(embedded, "marsh.md", "# Marsh\n\nReeds grow in the marsh.\n");
    writeFile(plain, "garden.md", "# Garden\n\nTomatoes need water.\n");
    for (const folder of [embedded, plain]) expect((await cli(["add", folder])).code).toBe(0);
    const embed = await cli(["embed", embedded, "--model", TINY_BERT_DIR]);
    expect(embed.code, embed.stderr).toBe(0);
  });
  afterAll(() => fs.rmSync(home, { recursive: true, force: true }));

  it("processes what changed everywhere and embeds only what changed in the embedded folder", async () => {
    writeFile(embedded, "river.md", "# River\n\nThe heron waits by the river at dawn, every day.\n");
    writeFile(plain, "orchard.md", "# Orchard\n\nApples ripen in September.\n");
    const result = await cli(["sync", "--json"]);
    expect(result.code, result.stderr).toBe(0);
    const report = json<SyncJson>(result);
    expect(report.schema).toBe("chunkpad.sync/1");
    const embeddedEntry = folderOf(report, embedded);
    expect(embeddedEntry?.processed).toBeNull();
    expect(embeddedEntry?.embedded).toMatchObject({ embedded: 1, unchanged: 1, synced: { documentsProcessed: 1 } });
    const plainEntry = folderOf(report, plain);
    expect(plainEntry?.embedded).toBeNull();
    expect(plainEntry?.processed?.processed.map((file) => file.path)).toEqual(["orchard.md"]);
    expect(plainEntry?.processed?.unchanged).toEqual(["garden.md"]);

    const search = await cli(["search", "heron dawn", "--mode", "vector", "--json", "--folder", embedded]);
    expect(search.code, search.stderr).toBe(0);
    expect(json<{ mode: string }>(search).mode).toBe("vector");
  });

  it("does nothing the second time, and says so in words", async () => {
    const result = await cli(["sync"]);
    expect(result.code, result.stderr).toBe(0);
    expect(result.stderr).toContain(`syncing (process + embed) ${embedded}`);
    expect(result.stderr).toContain(`syncing (process) ${plain}`);
    expect(result.stdout).toMatch(/Nothing to embed: all 2 included chunks are embedded/);
    expect(result.stdout).toMatch(/processed 0, unchanged 2/);
  });

  it("embeds a folder without vectors when asked with --embed, and only that folder when named", async () => {
    const result = await cli(["sync", plain, "--embed", "--json"]);
    expect(result.code, result.stderr).toBe(0);
    const report = json<SyncJson>(result);
    expect(report.folders.map((entry) => entry.rootPath)).toEqual([plain]);
    expect(report.folders[0]?.embedded?.embedded).toBe(2);
  });

  it("names the way out for a folder that was never added", async () => {
    const result = await cli(["sync", path.join(home, "elsewhere")]);
    expect(result.code).toBe(1);
    expect(result.stderr).toMatch(/has not been added yet\. Run "chunkpad add .*"chunkpad sync" with no folder syncs them all/);
  });
});
