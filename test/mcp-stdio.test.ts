import { spawn } from "node:child_process";
import fs from "node:fs";
import path from "node:path";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { BIN, cliEnv, makeTempDir, SHARED, writeFile } from "./helpers/cli.js";
import { runCliInProcess } from "./helpers/cli-in-process.js";
import { startOpenAiServer } from "./helpers/llm-servers/openai-server.js";
import type { ScriptedServer } from "./helpers/llm-servers/scripted-server.js";

/**
 * `chunkpad mcp` as an agent meets it: the official SDK's client spawns the real CLI and talks
 * JSON-RPC over its stdin/stdout. One home with one added folder for the whole file.
 */

let home: string;
let folder: string;
let openai: ScriptedServer;
const clients: Client[] = [];

interface TextResult {
  isError?: boolean;
  content: Array<{ type: string; text?: string }>;
  structuredContent?: Record<string, unknown>;
}

async function connect(env: NodeJS.ProcessEnv = {}): Promise<{ client: Client; stderr: () => string; stdoutLines: string[] }> {
  const transport = new StdioClientTransport({ command: process.execPath, args: [BIN, "mcp"], env: cliEnv(home, env) as Record<string, string>, stderr: "pipe" });
  let stderr = "";
  transport.stderr?.on("data", (data: Buffer) => (stderr += data.toString()));
  const client = new Client({ name: "chunkpad-test", version: "1.0.0" });
  await client.connect(transport);
  clients.push(client);
  return { client, stderr: () => stderr, stdoutLines: [] };
}

/** The server most tests talk to: one `chunkpad mcp` for the file, as an agent keeps one for its session. */
let shared: Promise<{ client: Client; stderr: () => string }> | undefined;
const sharedServer = () => (shared ??= connect());

async function call(client: Client, name: string, args: Record<string, unknown> = {}): Promise<TextResult> {
  return (await client.callTool({ name, arguments: args })) as TextResult;
}

beforeAll(async () => {
  home = makeTempDir("mcp");
  folder = path.join(home, "docs");
  writeFile(folder, "river.md", "# Rivers\n\nThe grey heron waits by the river at dawn. Otters swim past the reeds.\n");
  writeFile(folder, "garden/tomatoes.md", "# Tomatoes\n\nWater tomatoes in the morning, never the leaves.\n");
  fs.copyFileSync(path.join(SHARED, "corpus", "pdf.js", "pdfs", "tracemonkey.pdf"), path.join(folder, "tracemonkey.pdf"));
  const added = await runCliInProcess(["add", folder], { home });
  expect(added.code, added.stderr).toBe(0);
  openai = await startOpenAiServer();
});

afterAll(async () => {
  for (const client of clients) await client.close();
  await openai.close();
  fs.rmSync(home, { recursive: true, force: true });
});

describe("chunkpad mcp (stdio)", () => {
  it("lists its tools with descriptions and input schemas, without ask when no LLM is set up", async () => {
    const { client, stderr } = await sharedServer();
    const { tools } = await client.listTools();
    expect(tools.map((tool) => tool.name).sort()).toEqual(["get_chunk", "get_document", "list_folders", "search", "status"]);
    const search = tools.find((tool) => tool.name === "search");
    expect(search?.description).toMatch(/ref/);
    expect(search?.inputSchema.required).toEqual(["query"]);
    expect(stderr()).toMatch(/ask is off/);
  });

  it("searches by keyword and returns the chunk text, source, location and ref", async () => {
    const { client } = await sharedServer();
    const result = await call(client, "search", { query: "heron", mode: "keyword" });
    expect(result.isError).toBeFalsy();
    const results = result.structuredContent?.results as Array<{ ref: string; text: string; source: string; relativePath: string }>;
    expect(results[0]?.relativePath).toBe("river.md");
    expect(results[0]?.text).toContain("grey heron waits");
    expect(results[0]?.source).toBe(path.join(folder, "river.md"));
    expect(results[0]?.ref).toMatch(/^\w+:river\.md#1$/);
    expect(JSON.parse(result.content[0]?.text ?? "{}")).toEqual(result.structuredContent);
  });

  it("fetches a chunk by ref with its neighbours, and a document by page range", async () => {
    const { client } = await sharedServer();
    const found = await call(client, "search", { query: "trace monitoring", mode: "keyword", documents: ["tracemonkey.pdf"], limit: 1 });
    const ref = (found.structuredContent?.results as Array<{ ref: string }>)[0]?.ref ?? "";
    expect(ref).toMatch(/tracemonkey\.pdf#\d+$/);
    const ordinal = Number(ref.split("#")[1]);
    const chunk = await call(client, "get_chunk", { ref, neighbours: 1 });
    expect(chunk.isError).toBeFalsy();
    const view = chunk.structuredContent as { chunk: { ref: string; page: number }; before: Array<{ ordinal: number }>; after: Array<{ ordinal: number }> };
    expect(view.chunk.ref).toBe(ref);
    expect(view.before.map((item) => item.ordinal)).toEqual(ordinal > 1 ? [ordinal - 1] : []);
    expect(view.after.map((item) => item.ordinal)).toEqual([ordinal + 1]);

    const pages = await call(client, "get_document", { document: "tracemonkey.pdf", fromPage: 2, toPage: 3 });
    expect(pages.isError).toBeFalsy();
    const document = pages.structuredContent as { pageCount: number; chunks: Array<{ page: number }>; text: string };
    expect(document.pageCount).toBe(14);
    expect(document.chunks.length).toBeGreaterThan(0);
    expect(document.chunks.every((item) => item.page >= 1 && item.page <= 3)).toBe(true);
    expect(document.chunks.some((item) => item.page === 2)).toBe(true);
    expect(document.text.length).toBeGreaterThan(500);
  });

  it("lists folders and reports status without loading or downloading a model", async () => {
    const { client } = await sharedServer();
    const folders = (await call(client, "list_folders")).structuredContent?.folders as Array<{ path: string; documents: number; embedded: number }>;
    expect(folders).toEqual([expect.objectContaining({ path: folder, documents: 3, embedded: 0 })]);
    const status = (await call(client, "status")).structuredContent as { documents: number; embeddingModel: { state: string }; ask: string };
    expect(status.documents).toBe(3);
    expect(status.embeddingModel.state).toBe("notDownloaded");
    expect(status.ask).toMatch(/not set up/);
  });

  it("answers bad input with a tool error that names the problem and the next step", async () => {
    const { client } = await sharedServer();
    const wrongRef = await call(client, "get_chunk", { ref: "not-a-ref" });
    expect(wrongRef.isError).toBe(true);
    expect(wrongRef.content[0]?.text).toMatch(/^INVALID_ARGUMENT: "not-a-ref" is not a chunk reference\. References look like/);
    const gone = await call(client, "get_chunk", { ref: "abcdef12:nope.md#1" });
    expect(gone.content[0]?.text).toMatch(/^NOT_FOUND: .*search again/);
    const noFolder = await call(client, "search", { query: "heron", folders: [path.join(home, "elsewhere")] });
    expect(noFolder.isError).toBe(true);
    expect(noFolder.content[0]?.text).toMatch(/^FOLDER_NOT_INDEXED: .* has not been added yet\. Next steps: .*"action":"add-folder"/);
    const noPages = await call(client, "get_document", { document: "river.md", fromPage: 1 });
    expect(noPages.content[0]?.text).toMatch(/has no pages/);
    const invalid = await call(client, "search", { query: "" });
    expect(invalid.isError).toBe(true);
  });

  it("writes nothing but JSON-RPC to stdout, and exits 0 when the client closes stdin", async () => {
    const child = spawn(process.execPath, [BIN, "mcp"], { env: cliEnv(home), stdio: ["pipe", "pipe", "pipe"] });
    let stdout = "";
    child.stdout.on("data", (data: Buffer) => (stdout += data.toString()));
    const exited = new Promise<number | null>((resolve) => child.on("close", resolve));
    const send = (message: object) => child.stdin.write(`${JSON.stringify({ jsonrpc: "2.0", ...message })}\n`);
    send({ id: 1, method: "initialize", params: { protocolVersion: "2025-06-18", capabilities: {}, clientInfo: { name: "raw", version: "1" } } });
    send({ method: "notifications/initialized" });
    send({ id: 2, method: "tools/call", params: { name: "search", arguments: { query: "tomatoes", mode: "keyword" } } });
    send({ id: 3, method: "tools/call", params: { name: "status", arguments: {} } });
    // Close stdin once both answers are in: the server finishes and exits.
    await new Promise<void>((resolve) => child.stdout.on("data", () => stdout.split("\n").filter(Boolean).length >= 3 && resolve()));
    child.stdin.end();
    expect(await exited).toBe(0);
    const lines = stdout.split("\n").filter(Boolean);
    const messages = lines.map((line) => JSON.parse(line) as { jsonrpc: string; id?: number; result?: { structuredContent?: { results?: unknown[] } } });
    expect(messages.every((message) => message.jsonrpc === "2.0")).toBe(true);
    // Requests are answered as they finish, not necessarily in order.
    expect(messages.map((message) => message.id).sort()).toEqual([1, 2, 3]);
    expect(messages.find((message) => message.id === 2)?.result?.structuredContent?.results).toHaveLength(1);
  });

  it("lists documents as resources and reads one", async () => {
    const { client } = await sharedServer();
    const { resources } = await client.listResources();
    expect(resources.map((resource) => resource.name).sort()).toEqual(["garden/tomatoes.md", "river.md", "tracemonkey.pdf"]);
    const river = resources.find((resource) => resource.name === "river.md");
    const read = await client.readResource({ uri: river?.uri ?? "" });
    expect((read.contents[0] as { text: string }).text).toContain("grey heron waits");
  });

  it("offers ask when an LLM provider is set up, and answers with citations from it", async () => {
    openai.reset();
    openai.script({ reply: "text", deltas: ["Herons wait by the river ", "at dawn [C1]."] });
    const { client, stderr } = await connect({ OPENAI_BASE_URL: `${openai.url}/v1`, OPENAI_API_KEY: "sk-mcp-test" });
    const { tools } = await client.listTools();
    expect(tools.map((tool) => tool.name)).toContain("ask");
    expect(stderr()).not.toMatch(/ask is off/);
    const answer = await call(client, "ask", { question: "When does the heron wait by the river?" });
    expect(answer.isError).toBeFalsy();
    const result = answer.structuredContent as { answer: string; citations: Array<{ label: string; source: string }>; provider: string };
    expect(result.answer).toBe("Herons wait by the river at dawn [C1].");
    expect(result.provider).toBe("openai");
    expect(result.citations).toEqual([expect.objectContaining({ label: "C1", source: "river.md" })]);
    expect(JSON.stringify(openai.requests[0]?.body.messages)).toContain("grey heron waits");
  });
});

describe("chunkpad mcp get_document on a long document", () => {
  it("returns a bounded page with a continuation, and the continuations cover the whole document", async () => {
    const bigHome = makeTempDir("mcp-long");
    try {
      // Twice what one reply may carry (400 kB, asserted below), so no single reply can hold it.
      const lines = Array.from({ length: 9_000 }, (_, index) => `Ledger entry ${index}: the quartermaster counted ${index % 97} barrels of salted herring and ${index % 13} coils of rope.`);
      writeFile(bigHome, "docs/ledger.txt", `${lines.join("\n")}\nThe final entry closes the ledger.\n`);
      const size = fs.statSync(path.join(bigHome, "docs", "ledger.txt")).size;
      expect(size).toBeGreaterThan(800_000);
      expect((await runCliInProcess(["add", path.join(bigHome, "docs")], { home: bigHome })).code).toBe(0);
      const transport = new StdioClientTransport({ command: process.execPath, args: [BIN, "mcp"], env: cliEnv(bigHome) as Record<string, string>, stderr: "pipe" });
      const client = new Client({ name: "chunkpad-test", version: "1.0.0" });
      await client.connect(transport);
      clients.push(client);

      let fromChunk: number | undefined;
      let text = "";
      let seen = 0;
      let total = 0;
      for (let replies = 0; replies < 100; replies++) {
        const reply = await call(client, "get_document", { document: "ledger.txt", ...(fromChunk === undefined ? {} : { fromChunk }) });
        expect(reply.isError, reply.content[0]?.text).toBeFalsy();
        // One reply is a page an agent can take, never the whole document.
        expect(JSON.stringify(reply).length).toBeLessThan(400_000);
        const page = reply.structuredContent as { text: string; chunks: Array<{ ordinal: number }>; nextChunk: number | null; totalChunks: number };
        if (fromChunk !== undefined) expect(page.chunks[0]?.ordinal).toBe(fromChunk);
        text += page.text;
        seen += page.chunks.length;
        total = page.totalChunks;
        if (page.nextChunk === null) break;
        fromChunk = page.nextChunk;
      }
      expect(fromChunk).toBeGreaterThan(1);
      expect(seen).toBe(total);
      expect(text).toContain("Ledger entry 0:");
      expect(text).toContain("The final entry closes the ledger.");

      const resource = await client.readResource({ uri: `chunkpad://document/${encodeURIComponent("ledger.txt")}` });
      const body = (resource.contents[0] as { text: string }).text;
      expect(body.length).toBeLessThan(200_000);
      expect(body).toMatch(/more chunks: read them with the get_document tool, fromChunk \d+/);
    } finally {
      fs.rmSync(bigHome, { recursive: true, force: true });
    }
  });
});
