import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startPgliteServer, type PgliteServer } from "../src/store/postgres/pglite-server.js";
import { json, makeTempDir, writeFile, writeSampleDocuments } from "./helpers/cli.js";
import { runCliInProcess } from "./helpers/cli-in-process.js";
import { startHubServer, TINY_BERT_REPO, type HubServer } from "./helpers/hub-server.js";
import { startServe } from "./helpers/serve.js";

/**
 * A folder belongs to the machine that added it: two Chunkpads with different machine ids (two
 * homes, CHUNKPAD_MACHINE_ID) share one PostgreSQL database. The other machine searches the
 * folder, but processing, embedding, watching, syncing and removing it are the owner's, until it
 * takes the folder over on purpose.
 */
interface SearchReport {
  results: { relativePath: string; folderPath: string }[];
}
interface ListedFolder {
  rootPath: string;
  owner: { id: string; name: string } | null;
  ownedElsewhere: boolean;
}

describe("folders belong to the machine that added them", () => {
  let server: PgliteServer;
  let hub: HubServer;
  let url: string;
  const alphaHome = makeTempDir("chunkpad-owner-alpha-");
  const betaHome = makeTempDir("chunkpad-owner-beta-");
  const folder = makeTempDir("chunkpad-owner-docs-");
  const betaFolder = makeTempDir("chunkpad-owner-beta-docs-");

  beforeAll(async () => {
    server = await startPgliteServer();
    hub = await startHubServer();
    url = `${server.url}?pool_size=1`;
    writeSampleDocuments(folder);
    writeFile(betaFolder, "herons.md", "# Herons\n\nThe grey heron waits motionless at the edge of the river for fish.\n");
  });
  afterAll(async () => {
    await hub?.close();
    await server?.stop();
  });

  const on = (home: string, machine: string) => (args: string[]) =>
    runCliInProcess(args, { home, env: { CHUNKPAD_DATABASE_URL: url, CHUNKPAD_MACHINE_ID: machine, CHUNKPAD_MACHINE_NAME: machine, CHUNKPAD_HUB_URL: hub.url } });
  const alpha = on(alphaHome, "alpha-laptop");
  const beta = on(betaHome, "beta-desktop");

  it("the other machine searches the folder but may not process, embed, watch or remove it, and is told who owns it", async () => {
    const added = await alpha(["add", folder]);
    expect(added.code, added.stderr).toBe(0);

    const found = json<SearchReport>(await beta(["search", "aardvark", "--mode", "keyword", "--json"]));
    expect(found.results.map((result) => result.relativePath)).toEqual(["report.txt"]);

    for (const args of [["process", folder], ["embed", folder, "--model", TINY_BERT_REPO, "--yes"], ["watch", folder], ["remove", folder]]) {
      const refused = await beta(args);
      expect(refused.code, `${args.join(" ")}: ${refused.stderr}`).toBe(1);
      expect(refused.stderr).toContain(`${folder} belongs to the machine "alpha-laptop"`);
      expect(refused.stderr).toContain(`chunkpad add ${folder} --take-over`);
    }
    // Nor restore an archive over it: the owner's folder is named before anything is written.
    const archive = `${alphaHome}/alpha.zip`;
    expect((await alpha(["export", archive])).code).toBe(0);
    const imported = await beta(["import", archive, "--into", folder]);
    expect(imported.code, imported.stderr).toBe(1);
    expect(imported.stderr).toContain(`${folder} belongs to the machine "alpha-laptop" (id alpha-laptop), which added it and has its files; only that machine can import into it.`);
    const status = await beta(["status"]);
    expect(status.stdout).toContain("This machine: beta-desktop (id beta-desktop)");
    expect(status.stdout).toMatch(new RegExp(`^${folder}: .*; belongs to the machine "alpha-laptop" \\(searched from here, processed there\\)$`, "m"));
    // Still there, still searchable: nothing was removed.
    expect(json<SearchReport>(await beta(["search", "heron", "--mode", "keyword", "--json"])).results.map((result) => result.relativePath)).toEqual(["notes.md"]);
  });

  it("folders, its JSON and the server's folder list name the owner on the other machine, and not on the owner's", async () => {
    const listed = await beta(["folders"]);
    expect(listed.code, listed.stderr).toBe(0);
    expect(listed.stdout).toContain(`on the machine "alpha-laptop" (id alpha-laptop): search and chat over it from here; only that machine processes, embeds, watches or removes it ("chunkpad add ${folder} --take-over" moves it here)`);
    expect((await alpha(["folders"])).stdout).not.toContain("on the machine");

    const fromBeta = json<ListedFolder[]>(await beta(["folders", "--json"]));
    expect(fromBeta.map(({ rootPath, owner, ownedElsewhere }) => ({ rootPath, owner: owner?.id, ownedElsewhere }))).toEqual([{ rootPath: folder, owner: "alpha-laptop", ownedElsewhere: true }]);
    const fromAlpha = json<ListedFolder[]>(await alpha(["folders", "--json"]));
    expect(fromAlpha.map(({ owner, ownedElsewhere }) => ({ owner: owner?.name, ownedElsewhere }))).toEqual([{ owner: "alpha-laptop", ownedElsewhere: false }]);

    const server = await startServe(betaHome, { env: { CHUNKPAD_DATABASE_URL: url, CHUNKPAD_MACHINE_ID: "beta-desktop", CHUNKPAD_MACHINE_NAME: "beta-desktop", CHUNKPAD_HUB_URL: hub.url } });
    try {
      const response = await fetch(`${server.info.url}/api/folders`, { headers: { "x-chunkpad-token": server.info.token } });
      expect(response.status).toBe(200);
      const { folders } = (await response.json()) as { folders: ListedFolder[] };
      expect(folders.map(({ rootPath, owner, ownedElsewhere }) => ({ rootPath, owner, ownedElsewhere }))).toEqual([{ rootPath: folder, owner: expect.objectContaining({ id: "alpha-laptop", name: "alpha-laptop" }), ownedElsewhere: true }]);
    } finally {
      await server.stop();
    }
  });

  it("embedding and syncing everything from the other machine leave the owner's folder alone, with a note", async () => {
    expect((await beta(["add", betaFolder])).code).toBe(0);
    const embedded = await beta(["embed", "--model", TINY_BERT_REPO, "--yes"]);
    expect(embedded.code, embedded.stderr).toBe(0);
    expect(embedded.stdout).toMatch(/^Embedded 1 chunks?/m);
    expect(embedded.stdout + embedded.stderr).toContain(`${folder} belongs to the machine "alpha-laptop", which embeds it`);
    const synced = await beta(["sync"]);
    expect(synced.code, synced.stderr).toBe(0);
    expect(synced.stderr).toContain(`note: ${folder} belongs to the machine "alpha-laptop"`);
    // The owner embeds its own folder, and does not touch beta's.
    const own = await alpha(["embed", "--model", TINY_BERT_REPO, "--yes"]);
    expect(own.code, own.stderr).toBe(0);
    expect(own.stdout).toMatch(/^Embedded 3 chunks/m);
    expect(own.stdout + own.stderr).toContain(`${betaFolder} belongs to the machine "beta-desktop"`);
  });

  it("takes a folder over on purpose with add --take-over; then the first machine is the one refused", async () => {
    const taken = await beta(["add", folder, "--take-over"]);
    expect(taken.code, taken.stderr).toBe(0);
    expect((await beta(["process", folder])).code).toBe(0);
    const refused = await alpha(["process", folder]);
    expect(refused.code).toBe(1);
    expect(refused.stderr).toContain(`${folder} belongs to the machine "beta-desktop"`);
  });

  it("a folder its owner removed is the next adder's", async () => {
    expect((await beta(["remove", folder])).code).toBe(0);
    expect((await alpha(["add", folder])).code).toBe(0);
    expect((await alpha(["process", folder])).code).toBe(0);
    expect((await beta(["process", folder])).stderr).toContain(`${folder} belongs to the machine "alpha-laptop"`);
  });
});
