import { spawnSync } from "node:child_process";
import fs from "node:fs";
import http from "node:http";
import type { AddressInfo } from "node:net";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { makeTempDir, runCli, writeSampleDocuments } from "./helpers/cli.js";
import { startServe, type RunningServer } from "./helpers/serve.js";

/**
 * Who can talk to `chunkpad serve`: only its user. Another account on the same machine (run for
 * real as `nobody`), a browser without the launch link and a page of another local server get
 * nothing: no data, no token, no changes. The launch link lets a browser in with a cookie.
 */

let home: string;
let server: RunningServer;
let info: RunningServer["info"];
let jobId: string;
let folderId: string;

interface Answer {
  status: number;
  headers: http.IncomingHttpHeaders;
  body: string;
}

/** A raw request with exactly the headers given (Host, Cookie, Origin, Sec-Fetch-*). */
function raw(method: string, pathname: string, headers: Record<string, string> = {}, body?: string): Promise<Answer> {
  return new Promise((resolve, reject) => {
    const length = body === undefined ? {} : { "content-length": String(Buffer.byteLength(body)) };
    const outgoing = http.request({ host: "127.0.0.1", port: info.port, method, path: pathname, headers: { host: `127.0.0.1:${info.port}`, ...length, ...headers } }, (response) => {
      let text = "";
      response.on("data", (data: Buffer) => (text += data.toString()));
      response.on("end", () => resolve({ status: response.statusCode ?? 0, headers: response.headers, body: text }));
    });
    outgoing.on("error", reject);
    outgoing.end(body);
  });
}

/** Every route the server has, with real ids: what another user would try. */
function everyRoute(): Array<[string, string]> {
  const folder = encodeURIComponent(folderId);
  return [
    ["GET", "/"], ["GET", "/settings"], ["GET", "/assets/index.js"], ["GET", "/api/status"], ["GET", "/api/folders"], ["GET", `/api/folders/${folder}/documents`],
    ["GET", `/api/folders/${folder}/chunks`], ["GET", `/api/folders/${folder}/tree`], ["GET", "/api/search?q=heron&mode=keyword"], ["GET", `/api/chunks/${encodeURIComponent(`${folderId}:notes.md#1`)}`],
    ["GET", "/api/documents/notes.md"], ["GET", "/api/documents/notes.md/source"], ["GET", "/api/conversations"], ["GET", "/api/providers"], ["GET", "/api/settings"],
    ["GET", "/api/browse"], ["GET", "/api/openapi.json"], ["GET", "/api/jobs"], ["GET", `/api/jobs/${jobId}`], ["GET", `/api/jobs/${jobId}/events`],
    ["POST", "/api/jobs"], ["POST", "/api/ask"], ["POST", "/api/review"], ["POST", "/api/embed"], ["POST", "/api/keys"], ["POST", "/api/reset"], ["POST", `/api/folders/${folder}/files?name=x.md`],
    ["PUT", "/api/settings/generation.openaiBaseUrl"], ["DELETE", "/api/settings/generation.openaiBaseUrl"], ["DELETE", `/api/jobs/${jobId}`], ["POST", "/mcp"],
  ];
}

beforeAll(async () => {
  home = makeTempDir("credential");
  const folder = path.join(home, "docs");
  writeSampleDocuments(folder);
  expect((await runCli(["add", folder], { home })).code).toBe(0);
  server = await startServe(home, { env: { CHUNKPAD_KEYCHAIN: "off" } });
  info = server.info;
  folderId = ((await (await server.api("/api/folders")).json()) as { folders: Array<{ id: string }> }).folders[0]?.id as string;
  const job = await server.api("/api/jobs", { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify({ kind: "process", folder }) });
  jobId = ((await job.json()) as { id: string }).id;
});

afterAll(async () => {
  await server.stop();
  fs.rmSync(home, { recursive: true, force: true });
});

describe("chunkpad serve answers only its own user", () => {
  it("prints a launch link; the link trades its token for an HttpOnly, SameSite=Strict cookie and leaves the address bar", async () => {
    expect(server.launchUrl).toBe(`${info.url}/?token=${info.token}`);
    const launch = await raw("GET", `/?token=${info.token}`);
    expect(launch.status).toBe(303);
    expect(launch.headers.location).toBe("/");
    const cookie = launch.headers["set-cookie"]?.[0] ?? "";
    expect(cookie).toMatch(/^chunkpad_session=[0-9a-f]{64};/);
    expect(cookie).toMatch(/HttpOnly/);
    expect(cookie).toMatch(/SameSite=Strict/);
    expect(cookie).toMatch(/Path=\//);
    expect(cookie).not.toContain(info.token);
    const session = cookie.split(";")[0] as string;
    // Deep links keep their other parameters.
    expect((await raw("GET", `/settings?tab=keys&token=${info.token}`)).headers.location).toBe("/settings?tab=keys");

    const page = await raw("GET", "/", { cookie: session });
    expect(page.status).toBe(200);
    expect(page.body).toContain('<div id="root">');
    expect(page.body).not.toContain(info.token);
    expect((await raw("GET", "/api/status", { cookie: session })).status).toBe(200);
    const change = await raw("PUT", "/api/settings/search.limit", { cookie: session, origin: info.url, "content-type": "application/json" }, JSON.stringify({ value: 12 }));
    expect(change.status).toBe(200);
  });

  it("shows a browser without the credential how to open the app, and nothing else", async () => {
    for (const pathname of ["/", "/settings", `/?token=${"0".repeat(64)}`]) {
      const page = await raw("GET", pathname);
      expect(page.status, pathname).toBe(401);
      expect(page.headers["content-type"]).toMatch(/^text\/html/);
      expect(page.headers["set-cookie"]).toBeUndefined();
      expect(page.body).toContain("chunkpad serve --open");
      expect(page.body).not.toContain(info.token);
      expect(page.body).not.toMatch(/<script/i);
      expect(page.body).not.toContain(home);
    }
  });

  it("refuses every route without the credential, or with a wrong token or cookie", async () => {
    for (const [method, pathname] of everyRoute()) {
      for (const headers of [{}, { "x-chunkpad-token": "0".repeat(64) }, { cookie: `chunkpad_session=${"0".repeat(64)}` }, { cookie: `chunkpad_session=${info.token}` }] as Array<Record<string, string>>) {
        const answer = await raw(method, pathname, { "content-type": "application/json", ...headers }, method === "GET" ? undefined : "{}");
        expect(answer.status, `${method} ${pathname} ${JSON.stringify(headers)}: ${answer.body}`).toBe(401);
        expect(answer.body).not.toContain(info.token);
        expect(answer.body).not.toContain("heron");
      }
    }
    // With the token, the same routes answer (the ids are real).
    expect((await server.api(`/api/jobs/${jobId}`)).status).toBe(200);
  });

  it("lets no page of another local server use the cookie (same site, another port)", async () => {
    const session = ((await raw("GET", `/?token=${info.token}`)).headers["set-cookie"]?.[0] ?? "").split(";")[0] as string;
    const otherPort = info.port === 65535 ? 65534 : info.port + 1;
    const change = await raw("POST", "/api/review", { cookie: session, origin: `http://127.0.0.1:${otherPort}`, "content-type": "application/json" }, JSON.stringify({ targets: ["notes.md"], included: false }));
    expect(change.status).toBe(403);
    const noOrigin = await raw("POST", "/api/review", { cookie: session, "content-type": "application/json" }, JSON.stringify({ targets: ["notes.md"], included: false }));
    expect(noOrigin.status).toBe(403);
    const read = await raw("GET", "/api/search?q=heron&mode=keyword", { cookie: session, "sec-fetch-site": "same-site", "sec-fetch-mode": "cors" });
    expect(read.status).toBe(403);
    expect(read.body).not.toContain("heron");
    expect((await raw("GET", "/api/search?q=heron&mode=keyword", { cookie: session, "sec-fetch-site": "same-origin", "sec-fetch-mode": "cors" })).status).toBe(200);
  });

  it("proves it holds the token to a client that asks, without revealing it", async () => {
    const nonce = "ab".repeat(16);
    const hello = await raw("GET", `/api/hello?nonce=${nonce}`);
    expect(hello.status).toBe(200);
    const body = JSON.parse(hello.body) as { server: string; proof: string };
    expect(body.server).toBe("chunkpad");
    expect(body.proof).toMatch(/^[0-9a-f]{64}$/);
    expect(hello.body).not.toContain(info.token);
    expect((await raw("GET", "/api/hello?nonce=short")).status).toBe(400);
  });
});

/** Runs a script as the unprivileged user `nobody` (uid 65534), as another account on this machine would. */
function asNobody(script: string): { status: number | null; stdout: string; stderr: string } {
  const result = spawnSync("setpriv", ["--reuid=65534", "--regid=65534", "--clear-groups", process.execPath, "--input-type=module", "-e", script], { cwd: "/", encoding: "utf8", env: { PATH: process.env.PATH ?? "/usr/bin:/bin" }, timeout: 60_000 });
  return { status: result.status, stdout: result.stdout, stderr: result.stderr };
}

const root = typeof process.getuid === "function" && process.getuid() === 0;

describe.skipIf(!root)("another account on the same machine (as nobody; needs root to switch users)", () => {
  it("cannot read server.json, gets no token from any page, and every endpoint refuses it", () => {
    const script = `
      import fs from "node:fs";
      const out = { uid: process.getuid(), readable: true, answers: [] };
      try { fs.readFileSync(${JSON.stringify(path.join(home, "data", "server.json"))}); } catch { out.readable = false; }
      for (const [method, pathname] of ${JSON.stringify(everyRoute())}) {
        const response = await fetch(${JSON.stringify(info.url)} + pathname, { method, headers: { "content-type": "application/json" }, ...(method === "GET" ? {} : { body: "{}" }), redirect: "manual" });
        out.answers.push({ method, pathname, status: response.status, body: await response.text() });
      }
      console.log(JSON.stringify(out));
    `;
    const result = asNobody(script);
    expect(result.status, result.stderr).toBe(0);
    const out = JSON.parse(result.stdout) as { uid: number; readable: boolean; answers: Array<{ method: string; pathname: string; status: number; body: string }> };
    expect(out.uid).toBe(65534);
    expect(out.readable).toBe(false);
    expect(out.answers).toHaveLength(everyRoute().length);
    for (const answer of out.answers) {
      expect(answer.status, `${answer.method} ${answer.pathname}`).toBe(401);
      expect(answer.body).not.toContain(info.token);
      expect(answer.body).not.toContain("heron");
    }
  });

  it("cannot repoint where questions and keys go, nor start a job on a folder", async () => {
    const before = await (await server.api("/api/settings")).text();
    const script = `
      const url = ${JSON.stringify(info.url)};
      const put = await fetch(url + "/api/settings/generation.openaiBaseUrl", { method: "PUT", headers: { "content-type": "application/json" }, body: JSON.stringify({ value: "http://127.0.0.1:9/v1" }) });
      const hub = await fetch(url + "/api/settings/embedding.hubUrl", { method: "PUT", headers: { "content-type": "application/json", origin: url }, body: JSON.stringify({ value: "http://127.0.0.1:9" }) });
      const job = await fetch(url + "/api/jobs", { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify({ kind: "process", folder: "/root" }) });
      console.log(JSON.stringify([put.status, hub.status, job.status]));
    `;
    const result = asNobody(script);
    expect(result.status, result.stderr).toBe(0);
    expect(JSON.parse(result.stdout)).toEqual([401, 401, 401]);
    const after = await (await server.api("/api/settings")).text();
    expect(after).toBe(before);
    expect(after).not.toContain("127.0.0.1:9");
  });
});

describe("one server per data folder, and no token for a stranger's port", () => {
  it("refuses a second serve on the same data folder, and the first keeps working", async () => {
    const second = await runCli(["serve", "--port", "0"], { home, env: { CHUNKPAD_KEYCHAIN: "off" } });
    expect(second.code).toBe(1);
    expect(second.stderr).toContain(`Chunkpad is already serving this data folder at ${info.url} (pid ${info.pid})`);
    expect(second.stderr).toContain("chunkpad serve --open");
    expect(second.stderr).not.toContain(info.token);
    const file = JSON.parse(fs.readFileSync(path.join(home, "data", "server.json"), "utf8")) as { token: string };
    expect(file.token).toBe(info.token);
    expect((await server.api("/api/status")).status).toBe(200);
  });

  it("never sends the token to whatever listens at the port of a stale server.json", async () => {
    const stranger = makeTempDir("stranger");
    const seen: Array<{ url: string; token: string | undefined }> = [];
    // Someone else's listener, pretending to be a Chunkpad server (a wrong proof).
    const listener = http.createServer((request, response) => {
      seen.push({ url: request.url ?? "", token: request.headers["x-chunkpad-token"] as string | undefined });
      response.setHeader("content-type", "application/json");
      response.end(JSON.stringify({ server: "chunkpad", pid: process.pid, proof: "f".repeat(64), fingerprint: "x", dimensions: 3, maxTokens: 10, vectors: [], warm: { models: [], requests: 0 } }));
    });
    await new Promise<void>((resolve) => listener.listen(0, "127.0.0.1", resolve));
    const port = (listener.address() as AddressInfo).port;
    try {
      const folder = path.join(stranger, "docs");
      writeSampleDocuments(folder);
      expect((await runCli(["add", folder], { home: stranger })).code).toBe(0);
      // A live pid (this test process), the stranger's port: a file left by a server that died, its pid reused.
      const token = "e".repeat(64);
      fs.writeFileSync(path.join(stranger, "data", "server.json"), JSON.stringify({ url: `http://127.0.0.1:${port}`, port, host: "127.0.0.1", token, pid: process.pid }), { mode: 0o600 });
      const status = await runCli(["status", "--json"], { home: stranger });
      expect(status.code, status.stderr).toBe(0);
      expect((JSON.parse(status.stdout) as { modelHost: { runsIn: string } }).modelHost.runsIn).toBe("process");
      const search = await runCli(["search", "heron", "--mode", "keyword", "--json"], { home: stranger });
      expect(search.code, search.stderr).toBe(0);
      expect(seen.length).toBeGreaterThan(0);
      expect(seen.every((request) => request.url.startsWith("/api/hello?nonce="))).toBe(true);
      expect(seen.map((request) => request.token)).toEqual(seen.map(() => undefined));
      // And a new serve takes over the stale file instead of refusing.
      const fresh = await startServe(stranger, { env: { CHUNKPAD_KEYCHAIN: "off" } });
      try {
        expect(fresh.info.token).not.toBe(token);
        expect((await fresh.api("/api/status")).status).toBe(200);
      } finally {
        await fresh.stop();
      }
      expect(fs.existsSync(path.join(stranger, "data", "server.json"))).toBe(false);
    } finally {
      await new Promise<void>((resolve) => listener.close(() => resolve()));
      fs.rmSync(stranger, { recursive: true, force: true });
    }
  });
});
