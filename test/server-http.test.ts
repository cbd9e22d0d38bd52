import { spawn, type ChildProcess } from "node:child_process";
import fs from "node:fs";
import http from "node:http";
import path from "node:path";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { BIN, cliEnv, makeTempDir, runCli, SHARED, writeFile } from "./helpers/cli.js";

/**
 * `chunkpad serve` over real HTTP: the built CLI in a child process on a free port, a real
 * database, and the requests a browser tab, a script or another site could send.
 */

let home: string;
let folder: string;
let child: ChildProcess;
let exited: Promise<number | null>;
let info: { url: string; port: number; token: string };

interface Answer {
  status: number;
  headers: http.IncomingHttpHeaders;
  body: string;
}

/** A raw request, so the Host and Origin headers are exactly what a test says (no credential unless given). */
function bare(method: string, pathname: string, headers: Record<string, string> = {}, body?: string): Promise<Answer> {
  return new Promise((resolve, reject) => {
    const outgoing = http.request({ host: "127.0.0.1", port: info.port, method, path: pathname, headers: { host: `127.0.0.1:${info.port}`, ...headers } }, (response) => {
      let text = "";
      response.on("data", (data: Buffer) => (text += data.toString()));
      response.on("end", () => resolve({ status: response.statusCode ?? 0, headers: response.headers, body: text }));
    });
    outgoing.on("error", reject);
    outgoing.end(body);
  });
}

const token = () => ({ "x-chunkpad-token": info.token });
/** A raw request with the session token, as a script that read server.json sends it. */
const request = (method: string, pathname: string, headers: Record<string, string> = {}, body?: string) => bare(method, pathname, { ...token(), ...headers }, body);
const jsonBody = (answer: Answer) => JSON.parse(answer.body) as Record<string, unknown>;

beforeAll(async () => {
  home = makeTempDir("serve");
  folder = path.join(home, "docs");
  writeFile(folder, "river.md", "# Rivers\n\nThe grey heron waits by the river at dawn.\n");
  writeFile(folder, "garden.md", "# Garden\n\nWater the tomatoes in the morning.\n");
  writeFile(folder, "notes/linked.md", "# Linked\n\nThis note will become a link.\n");
  fs.copyFileSync(path.join(SHARED, "corpus", "pdf.js", "pdfs", "tracemonkey.pdf"), path.join(folder, "paper.pdf"));
  expect((await runCli(["add", folder], { home })).code).toBe(0);
  child = spawn(process.execPath, [BIN, "serve", "--port", "0"], { env: cliEnv(home), stdio: ["ignore", "ignore", "pipe"] });
  exited = new Promise((resolve) => child.on("close", resolve));
  // The server says where it listens once it does; server.json holds the port and token.
  await new Promise<void>((resolve, reject) => {
    let stderr = "";
    child.stderr?.on("data", (data: Buffer) => {
      stderr += data.toString();
      if (stderr.includes("Chunkpad API on")) resolve();
    });
    child.on("close", () => reject(new Error(`serve exited early:\n${stderr}`)));
  });
  info = JSON.parse(fs.readFileSync(path.join(home, "data", "server.json"), "utf8")) as typeof info;
});

afterAll(async () => {
  child.kill("SIGTERM");
  await exited;
  fs.rmSync(home, { recursive: true, force: true });
});

describe("chunkpad serve", () => {
  it("writes its port and session token where only the user can read them", () => {
    expect(info.url).toBe(`http://127.0.0.1:${info.port}`);
    expect(info.token).toMatch(/^[0-9a-f]{64}$/);
    expect(fs.statSync(path.join(home, "data", "server.json")).mode & 0o077).toBe(0);
  });

  it("answers reads with the token, and sends no CORS headers", async () => {
    const status = await request("GET", "/api/status", { origin: "https://evil.example" });
    expect(status.status).toBe(200);
    expect(jsonBody(status)).toMatchObject({ folders: 1, documents: 4, embeddedChunks: 0 });
    expect(Object.keys(status.headers).filter((name) => name.startsWith("access-control-"))).toEqual([]);
    const search = await request("GET", `/api/search?q=heron&mode=keyword`);
    expect(search.status).toBe(200);
    const report = jsonBody(search) as { schema: string; results: Array<{ relativePath: string; ref: string }> };
    expect(report.schema).toBe("chunkpad.search/3");
    expect(report.results.map((result) => result.relativePath)).toEqual(["river.md"]);
    const chunk = await request("GET", `/api/chunks/${encodeURIComponent(report.results[0]?.ref ?? "")}`);
    expect(jsonBody(chunk)).toMatchObject({ chunk: { relativePath: "river.md" } });
  });

  it("refuses a foreign Host header (DNS rebinding) before doing anything", async () => {
    const answer = await request("GET", "/api/status", { host: `evil.example:${info.port}` });
    expect(answer.status).toBe(421);
    expect(jsonBody(answer).message).toMatch(/answers only as 127\.0\.0\.1:\d+/);
  });

  it("changes nothing without the token, or from a foreign origin, and does with both right", async () => {
    const body = JSON.stringify({ targets: ["garden.md"], included: false });
    const json = { "content-type": "application/json" };
    const noToken = await bare("POST", "/api/review", json, body);
    expect(noToken.status).toBe(401);
    expect(jsonBody(noToken).message).toMatch(/X-Chunkpad-Token/);
    const wrongToken = await bare("POST", "/api/review", { ...json, "x-chunkpad-token": "0".repeat(64) }, body);
    expect(wrongToken.status).toBe(401);
    const foreign = await request("POST", "/api/review", { ...json, ...token(), origin: "https://evil.example" }, body);
    expect(foreign.status).toBe(403);
    const search = async () => (jsonBody(await request("GET", "/api/search?q=tomatoes&mode=keyword")) as { results: unknown[] }).results;
    expect(await search()).toHaveLength(1);
    const done = await request("POST", "/api/review", { ...json, ...token(), origin: info.url }, body);
    expect(done.status).toBe(200);
    expect(jsonBody(done)).toMatchObject({ schema: "chunkpad.review/1", changed: 1 });
    expect(await search()).toHaveLength(0);
  });

  it("refuses a body over 1 MB with 413, and bad input with the error table's status and next step", async () => {
    // Declared at 2 MB: the server answers 413 from the header, before taking the body.
    const huge = await new Promise<number>((resolve, reject) => {
      const outgoing = http.request(
        { host: "127.0.0.1", port: info.port, method: "POST", path: "/api/review", headers: { host: `127.0.0.1:${info.port}`, "content-type": "application/json", "content-length": String(2 * 1024 * 1024), ...token() } },
        (response) => {
          resolve(response.statusCode ?? 0);
          response.resume();
          outgoing.destroy();
        },
      );
      outgoing.on("error", (error) => (outgoing.destroyed ? undefined : reject(error)));
      outgoing.write('{"targets": ["');
    });
    expect(huge).toBe(413);
    const missing = await request("GET", "/api/search?mode=keyword");
    expect(missing.status).toBe(400);
    expect(jsonBody(missing)).toMatchObject({ code: "INVALID_ARGUMENT", message: expect.stringMatching(/^q: .*openapi\.json/) });
    const gone = await request("GET", `/api/chunks/${encodeURIComponent("abcdef12:nope.md#1")}`);
    expect(gone.status).toBe(404);
    expect(jsonBody(gone)).toMatchObject({ code: "NOT_FOUND", retryable: false });
    const notAdded = await request("GET", `/api/search?q=heron&folder=${encodeURIComponent(path.join(home, "elsewhere"))}`);
    expect(notAdded.status).toBe(404);
    expect(jsonBody(notAdded).code).toBe("FOLDER_NOT_INDEXED");
  });

  it("describes itself in OpenAPI, with parameters from the validation schemas", async () => {
    const document = jsonBody(await request("GET", "/api/openapi.json")) as { openapi: string; paths: Record<string, { get?: { parameters?: Array<{ name: string; required: boolean }> } }> };
    expect(document.openapi).toBe("3.1.0");
    expect(Object.keys(document.paths)).toEqual(expect.arrayContaining(["/api/search", "/api/review", "/api/chunks/{ref}", "/mcp"]));
    expect(document.paths["/api/search"]?.get?.parameters?.find((parameter) => parameter.name === "q")?.required).toBe(true);
  });

  it("serves MCP over Streamable HTTP to the SDK's client, behind the same token", async () => {
    const refused = new Client({ name: "no-token", version: "1" });
    await expect(refused.connect(new StreamableHTTPClientTransport(new URL(`${info.url}/mcp`)))).rejects.toThrow();
    const client = new Client({ name: "chunkpad-test", version: "1" });
    await client.connect(new StreamableHTTPClientTransport(new URL(`${info.url}/mcp`), { requestInit: { headers: token() } }));
    const { tools } = await client.listTools();
    expect(tools.map((tool) => tool.name)).toContain("search");
    const result = (await client.callTool({ name: "search", arguments: { query: "heron", mode: "keyword" } })) as { structuredContent?: { results?: Array<{ relativePath: string }> } };
    expect(result.structuredContent?.results?.map((hit) => hit.relativePath)).toEqual(["river.md"]);
    await client.close();
  });

  it("sends a cited document's original file, PDFs inline, and nothing outside the added folders", async () => {
    const pdf = await request("GET", `/api/documents/paper.pdf/source`);
    expect(pdf.status).toBe(200);
    expect(pdf.headers["content-type"]).toBe("application/pdf");
    expect(Number(pdf.headers["content-length"])).toBe(fs.statSync(path.join(folder, "paper.pdf")).size);
    expect(pdf.headers["content-security-policy"]).toBe("sandbox");
    const note = await request("GET", `/api/documents/${encodeURIComponent("notes/linked.md")}/source`);
    expect(note.status).toBe(200);
    expect(note.headers["content-type"]).toBe("text/plain; charset=utf-8");
    expect(note.body).toContain("This note will become a link.");
    for (const attempt of ["..%2F..%2F..%2Fetc%2Fpasswd", "%2Fetc%2Fpasswd", "..%252F..%252Fetc%252Fpasswd"]) {
      const answer = await request("GET", `/api/documents/${attempt}/source`);
      expect(answer.status, attempt).toBe(404);
      expect(answer.body).not.toContain("root:");
    }
    const secret = path.join(home, "secret.txt");
    fs.writeFileSync(secret, "root:the secret");
    fs.rmSync(path.join(folder, "notes", "linked.md"));
    fs.symlinkSync(secret, path.join(folder, "notes", "linked.md"));
    const escaped = await request("GET", `/api/documents/${encodeURIComponent("notes/linked.md")}/source`);
    expect(escaped.status).toBe(404);
    expect(jsonBody(escaped).message).toMatch(/link that leads out/);
    expect(escaped.body).not.toContain("the secret");
  });

  it("refuses to listen beyond this machine unless told to", async () => {
    const result = await runCli(["serve", "--host", "0.0.0.0", "--port", "0"], { home });
    expect(result.code).toBe(1);
    expect(result.stderr).toMatch(/Not serving on 0\.0\.0\.0.*--allow-remote/);
  });
});
