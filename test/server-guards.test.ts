import fs from "node:fs";
import http from "node:http";
import os from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { makeTempDir, runCli, writeSampleDocuments } from "./helpers/cli.js";
import { startServe, type RunningServer } from "./helpers/serve.js";

/**
 * What the HTTP API checks before it touches the disk, as the CLI does: a process job on the
 * home folder or the root of the disk needs an explicit yes; an upload's name is a plain, valid
 * file name (a 400 that says why, never a 500); and --allow-remote answers on the machine's
 * real addresses.
 */
describe("chunkpad serve: the same guards as the CLI", () => {
  let home: string;
  let folderId: string;
  let server: RunningServer;
  const json = { "content-type": "application/json" };

  beforeAll(async () => {
    home = makeTempDir("guards");
    writeSampleDocuments(path.join(home, "docs"));
    expect((await runCli(["add", path.join(home, "docs")], { home })).code).toBe(0);
    server = await startServe(home, { env: { CHUNKPAD_KEYCHAIN: "off" } });
    folderId = ((await (await server.api("/api/folders")).json()) as { folders: Array<{ id: string }> }).folders[0]?.id as string;
  });
  afterAll(async () => {
    await server.stop();
    fs.rmSync(home, { recursive: true, force: true });
  });

  it("refuses a process job on the home folder, the root of the disk, or a path that is not a full one", async () => {
    const cases: Array<[string, RegExp]> = [[home, /your whole home folder.*confirmBroadFolder/], ["/", /the root of the disk/], [`${home}/../${path.basename(home)}`, /your whole home folder/], ["docs", /not a full path/]];
    for (const [folder, message] of cases) {
      const answer = await server.api("/api/jobs", { method: "POST", headers: json, body: JSON.stringify({ kind: "process", folder }) });
      expect(answer.status, folder).toBe(400);
      expect(((await answer.json()) as { message: string }).message, folder).toMatch(message);
    }
    expect(fs.existsSync(path.join(home, "_chunks"))).toBe(false);
    // An added folder, by id or path, is processed as before.
    expect((await server.api("/api/jobs", { method: "POST", headers: json, body: JSON.stringify({ kind: "process", folder: folderId }) })).status).toBe(202);
  });

  it("answers an upload with a bad name with 400 and the reason, never 500", async () => {
    const upload = (rawName: string) => server.api(`/api/folders/${folderId}/files?name=${rawName}`, { method: "POST", headers: { "content-type": "application/octet-stream" }, body: "text" });
    const cases: Array<[string, RegExp]> = [
      ["nul%00.md", /control character/],
      ["bad%FFbytes.md", /not valid UTF-8/],
      ["tab%09.md", /control character/],
      [encodeURIComponent("a/b.md"), /one of \//],
      [encodeURIComponent("what?.md"), /one of/],
      ["", /empty/],
      [encodeURIComponent(".hidden.md"), /hidden/],
      [encodeURIComponent("_chunks"), /_chunks/],
      [encodeURIComponent(`${"é".repeat(130)}.md`), /longer than 255 bytes/],
    ];
    for (const [rawName, reason] of cases) {
      const answer = await upload(rawName);
      expect(answer.status, rawName).toBe(400);
      const body = (await answer.json()) as { code: string; message: string };
      expect(body.code).toBe("INVALID_ARGUMENT");
      expect(body.message, rawName).toMatch(reason);
    }
    expect((await upload(encodeURIComponent("notes on herons.md"))).status).toBe(201);
    expect(fs.readFileSync(path.join(home, "docs", "notes on herons.md"), "utf8")).toBe("text");
  });
});

/** A non-loopback IPv4 address of this machine, if it has one. */
const outsideAddress = Object.values(os.networkInterfaces()).flat().find((address) => address !== undefined && address.family === "IPv4" && !address.internal)?.address;

describe.skipIf(outsideAddress === undefined)("chunkpad serve --allow-remote (needs a non-loopback address)", () => {
  let home: string;
  let server: RunningServer;
  beforeAll(async () => {
    home = makeTempDir("remote");
    server = await startServe(home, { args: ["--host", "0.0.0.0", "--allow-remote"], env: { CHUNKPAD_KEYCHAIN: "off" } });
  });
  afterAll(async () => {
    await server.stop();
    fs.rmSync(home, { recursive: true, force: true });
  });

  const statusAs = (host: string, headers: Record<string, string> = {}) =>
    new Promise<number>((resolve, reject) => {
      const outgoing = http.request({ host: outsideAddress, port: server.info.port, path: "/api/status", headers: { host, ...headers } }, (response) => {
        response.resume();
        resolve(response.statusCode ?? 0);
      });
      outgoing.on("error", reject);
      outgoing.end();
    });

  it("answers on the machine's real address, still only with the token, and refuses foreign names", async () => {
    expect(server.info.url).toBe(`http://127.0.0.1:${server.info.port}`);
    expect(await statusAs(`${outsideAddress}:${server.info.port}`)).toBe(401);
    expect(await statusAs(`${outsideAddress}:${server.info.port}`, { "x-chunkpad-token": server.info.token })).toBe(200);
    expect(await statusAs(`${os.hostname()}:${server.info.port}`, { "x-chunkpad-token": server.info.token })).toBe(200);
    expect(await statusAs(`evil.example:${server.info.port}`, { "x-chunkpad-token": server.info.token })).toBe(421);
  });
});
