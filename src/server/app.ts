import fs from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { Readable } from "node:stream";
import { WebStandardStreamableHTTPServerTransport } from "@modelcontextprotocol/sdk/server/webStandardStreamableHttp.js";
import { serveStatic } from "@hono/node-server/serve-static";
import { Hono, type Context } from "hono";
import { bodyLimit } from "hono/body-limit";
import type { ContentfulStatusCode } from "hono/utils/http-status";
import { ChunkpadError, errorOutcome, toErrorJson, toPlainJson, toProcessJson, toReviewJson, toSearchJson, type Chunkpad } from "../index.js";
import { createJobManager, type JobManager } from "./jobs.js";
import type { FoldersJson, SettingJson, StatusJson } from "./wire-types.js";
import { registerJobRoutes } from "./job-routes.js";
import { registerDataRoutes } from "./data-routes.js";
import { requireCredential } from "./credential.js";
import { serverHostNames, uploadName } from "./guards.js";
import { createMcpServer } from "../mcp/server.js";
import { chunkEdit, chunkQuery, conflictQuery, documentQuery, embedBody, keyBody, openApiDocument, parsed, resetBody, resolveBody, reviewBody, searchQuery, settingBody } from "./api-shapes.js";

export { TOKEN_HEADER } from "./api-shapes.js";

/**
 * `chunkpad serve`: the HTTP API over the public API, on the user's own machine. Other local
 * accounts and every web page in any browser tab can reach 127.0.0.1, so every request is checked:
 * - Host must name this server (127.0.0.1, localhost or [::1] with its port): a page on another
 *   site that rebinds its DNS name to 127.0.0.1 sends its own host name (DNS rebinding);
 * - a state-changing request (anything but GET and HEAD) from a browser must come from this
 *   server's origin; no CORS headers are ever sent, so other origins cannot read answers either;
 * - every request, reads, pages and /mcp included, needs the credential (credential.ts): the
 *   session token in `X-Chunkpad-Token`, or the cookie the launch URL sets;
 * - bodies over 1 MB are refused (413).
 * Errors answer with the core's error table: status, and {code, message, retryable}.
 */

export interface ServerAppOptions {
  port: number;
  /** The address bound; only loopback unless `remote`. */
  host: string;
  /** The per-run secret every request must carry (header, or the cookie the launch URL sets). */
  token: string;
  remote: boolean;
  version: string;
  /** Where the built web app is (default: dist/web beside this file). */
  webRoot?: string;
}

export const MAX_BODY_BYTES = 1024 * 1024;
const UPLOAD_PATH = /^\/api\/folders\/[^/]+\/files$/;

function refuse(c: Context, status: 403 | 421, message: string) {
  return c.json({ code: "FORBIDDEN", message, retryable: false }, status);
}

export function createServerApp(chunkpad: Chunkpad, options: ServerAppOptions, jobs: JobManager = createJobManager()): Hono {
  const app = new Hono();
  const port = String(options.port);
  const allowedHosts = new Set(serverHostNames(options.host, options.remote).map((host) => `${host}:${port}`));
  const allowedOrigins = new Set([...allowedHosts].map((host) => `http://${host}`));

  app.use("*", async (c, next) => {
    const host = c.req.header("host") ?? "";
    if (!allowedHosts.has(host.toLowerCase())) return refuse(c, 421, `This Chunkpad server answers only as ${[...allowedHosts].join(" or ")}, not "${host}".`);
    const changes = c.req.method !== "GET" && c.req.method !== "HEAD";
    const origin = c.req.header("origin");
    if (changes && origin !== undefined && !allowedOrigins.has(origin)) return refuse(c, 403, `Requests from ${origin} may not change anything here.`);
    await next();
  });
  app.use("*", requireCredential({ token: options.token, origins: allowedOrigins }));
  const folderById = async (id: string) => {
    const folder = (await chunkpad.listFolders()).find((candidate) => candidate.id === id);
    if (!folder) throw new ChunkpadError("NOT_FOUND", `No added folder has the id ${id}. GET /api/folders lists them.`);
    return folder;
  };
  const tooLarge = (limit: number) => (c: Context) => c.json({ code: "INVALID_ARGUMENT", message: `The request body is larger than ${Math.round(limit / 1024 / 1024)} MB.`, retryable: false }, 413);
  const uploadLimit = () => chunkpad.config.ingest.maxFileSizeMb * 1024 * 1024;
  // Uploads carry a document (up to the ingest size limit); every other body stays small.
  const smallBodyLimit = bodyLimit({ maxSize: MAX_BODY_BYTES, onError: tooLarge(MAX_BODY_BYTES) });
  app.use("*", async (c, next) => {
    // A GET or HEAD request has no body here (@hono/node-server gives it none), and asking for one
    // made a whole web Request and AbortController per search (decision 090).
    if (c.req.method === "GET" || c.req.method === "HEAD") return next();
    if (UPLOAD_PATH.test(c.req.path)) return bodyLimit({ maxSize: uploadLimit(), onError: tooLarge(uploadLimit()) })(c, next);
    return smallBodyLimit(c, next);
  });

  app.onError((error, c) => {
    const outcome = errorOutcome(error);
    return c.json(toErrorJson(error), outcome.httpStatus as ContentfulStatusCode);
  });
  app.notFound((c) => c.json({ code: "NOT_FOUND", message: `No such endpoint: ${c.req.method} ${c.req.path}. See /api/openapi.json.`, retryable: false }, 404));

  app.get("/api/status", async (c) => {
    const folders = await chunkpad.listFolders();
    const model = await chunkpad.modelStatus();
    const status: StatusJson = {
      version: options.version,
      folders: folders.length,
      documents: folders.reduce((sum, folder) => sum + folder.documentCount, 0),
      chunks: folders.reduce((sum, folder) => sum + folder.storedChunkCount, 0),
      embeddedChunks: folders.reduce((sum, folder) => sum + folder.embeddedChunkCount, 0),
      embeddingModel: { provider: model.provider, model: model.model, dtype: model.dtype, state: model.status.state, approximateBytes: model.approximateBytes },
      runningJobs: jobs.list().filter((job) => job.state === "running").map((job) => ({ id: job.id, kind: job.kind, subject: job.subject, events: `/api/jobs/${job.id}/events` })),
      warm: chunkpad.warmModels(),
      search: await chunkpad.searchReadiness(),
    };
    return c.json(status);
  });

  // The warm daemon: another process's texts embedded with a model this server keeps loaded.
  app.post("/api/embed", async (c) => {
    const body = parsed(embedBody, await c.req.json().catch(() => undefined));
    return c.json(await chunkpad.embedForClient(body));
  });

  app.get("/api/folders", async (c) => c.json(toPlainJson({ folders: await chunkpad.listFolders() } satisfies FoldersJson) as object));

  // The web app's document tree and chunk list: a folder's documents, and per chunk its review and embed state.
  app.get("/api/folders/:folder/documents", async (c) => {
    const folder = await folderById(c.req.param("folder"));
    return c.json(toPlainJson({ documents: await chunkpad.listDocuments(folder.id) }) as object);
  });
  // Drag-and-drop upload: one document into the top of an added folder (the app then processes it).
  app.post("/api/folders/:folder/files", async (c) => {
    const folder = await folderById(c.req.param("folder"));
    const name = uploadName(new URL(c.req.url).searchParams.get("name") ?? undefined);
    return c.json(await chunkpad.saveDocument(folder.id, name, new Uint8Array(await c.req.arrayBuffer())), 201);
  });

  app.get("/api/folders/:folder/chunks", async (c) => {
    const folder = await folderById(c.req.param("folder"));
    const document = c.req.query("document");
    return c.json(toPlainJson({ chunks: await chunkpad.chunkStates(folder.rootPath, document === undefined || document === "" ? undefined : document) }) as object);
  });

  // The chunk-file tree with per-file states (new, modified, embedded, excluded, failed, conflict).
  app.get("/api/folders/:folder/tree", async (c) => {
    const folder = await folderById(c.req.param("folder"));
    return c.json(toPlainJson(await chunkpad.chunkTree(folder.rootPath)) as object);
  });

  // Before settling a conflict: the user's chunk file against the chunks a fresh parse would write.
  app.get("/api/folders/:folder/conflict", async (c) => {
    const folder = await folderById(c.req.param("folder"));
    const file = parsed(conflictQuery, c.req.query()).file;
    return c.json(toPlainJson(await chunkpad.conflictDiff(folder.rootPath, file)) as object);
  });

  // Settles one file's conflict (hand-edited chunk file, changed source), as `chunkpad resolve` does.
  app.post("/api/folders/:folder/resolve", async (c) => {
    const folder = await folderById(c.req.param("folder"));
    const body = parsed(resolveBody, await c.req.json().catch(() => undefined));
    const target = path.resolve(folder.rootPath, body.file);
    const inside = path.relative(folder.rootPath, target);
    if (inside === "" || inside.startsWith("..") || path.isAbsolute(inside)) throw new ChunkpadError("INVALID_ARGUMENT", `file: "${body.file}" is not a file inside ${folder.rootPath}; give its path as the tree shows it.`);
    const outcome = await chunkpad.resolveConflict(target, body.choice, { wait: false });
    return c.json({ relativePath: outcome.relativePath, resolved: outcome.resolved, choice: body.choice, process: toProcessJson(outcome.report) });
  });

  app.get("/api/search", async (c) => {
    const query = parsed(searchQuery, { ...c.req.query(), folder: c.req.queries("folder"), document: c.req.queries("document") });
    const report = await chunkpad.search(query.q, {
      ...(query.mode ? { mode: query.mode } : {}),
      ...(query.limit ? { limit: query.limit } : {}),
      ...(query.folder ? { folders: query.folder } : {}),
      ...(query.document ? { documents: query.document } : {}),
    });
    return c.json(toSearchJson(report));
  });

  app.get("/api/chunks/:ref", async (c) => {
    const { neighbours } = parsed(chunkQuery, c.req.query());
    return c.json(toPlainJson(await chunkpad.readChunk(c.req.param("ref"), { neighbours: neighbours ?? 1 })) as object);
  });

  app.put("/api/chunks/:ref", async (c) => {
    const body = parsed(chunkEdit, await c.req.json().catch(() => undefined));
    return c.json(toPlainJson(await chunkpad.editChunk(c.req.param("ref"), body.text, body.baseHash)) as object);
  });

  app.get("/api/documents/:document", async (c) => {
    const pages = parsed(documentQuery, c.req.query());
    return c.json(toPlainJson(await chunkpad.readDocument({ document: c.req.param("document"), ...pages })) as object);
  });

  // The original file a citation points at (a PDF page to render). Named by document, never by
  // path; sent so that it can never run as a page of this origin.
  app.get("/api/documents/:document/source", async (c) => {
    const file = await chunkpad.sourceFile(c.req.param("document"));
    const stream = Readable.toWeb(fs.createReadStream(file.path)) as ReadableStream;
    return new Response(stream, {
      headers: {
        "content-type": file.contentType,
        "content-length": String(file.size),
        "content-disposition": `${file.contentType === "application/octet-stream" ? "attachment" : "inline"}; filename*=UTF-8''${encodeURIComponent(path.basename(file.path))}`,
        "x-content-type-options": "nosniff",
        "content-security-policy": "sandbox",
      },
    });
  });

  app.post("/api/review", async (c) => {
    const body = parsed(reviewBody, await c.req.json().catch(() => undefined));
    const report = await chunkpad.setIncluded(body.targets, body.included, body.folders ? { folders: body.folders } : {});
    return c.json(toReviewJson(report));
  });

  registerJobRoutes(app, chunkpad, jobs);
  registerDataRoutes(app, chunkpad, async (id) => (await folderById(id)).rootPath);

  // Conversations (kept in the chat database), answer providers, and API keys: write-only.
  app.get("/api/conversations", async (c) => c.json(toPlainJson({ conversations: await chunkpad.listConversations() }) as object));
  app.get("/api/conversations/:id", async (c) => c.json(toPlainJson(await chunkpad.getConversation(c.req.param("id"))) as object));
  app.get("/api/providers", async (c) => c.json(toPlainJson({ providers: await chunkpad.providers(), keys: await chunkpad.listApiKeys() }) as object));
  app.post("/api/keys", async (c) => {
    const body = parsed(keyBody, await c.req.json().catch(() => undefined));
    // Never echoed: the answer says where the key is kept, not what it is.
    return c.json(toPlainJson(await chunkpad.setApiKey(body.provider, body.key)) as object);
  });
  app.delete("/api/keys/:provider", async (c) => c.json(toPlainJson(await chunkpad.deleteApiKey(c.req.param("provider"))) as object));

  // Settings, as `chunkpad config` shows and changes them (API keys are never settings).
  const settingJson = (row: ReturnType<Chunkpad["setting"]>): SettingJson => ({
    key: row.key, value: row.value ?? null, source: row.source, problem: row.problem ?? null, description: row.setting.description,
    kind: row.setting.kind, default: row.setting.default ?? null,
  });
  app.get("/api/settings", (c) => c.json({ settings: chunkpad.settings().settings.map(settingJson) }));
  app.put("/api/settings/:key", async (c) => {
    const body = parsed(settingBody, await c.req.json().catch(() => undefined));
    return c.json(settingJson(chunkpad.setConfig(c.req.param("key"), String(body.value))));
  });
  app.delete("/api/settings/:key", (c) => {
    const row = chunkpad.unsetConfig(c.req.param("key"));
    return c.json(row === null ? { key: c.req.param("key"), removed: true } : settingJson(row));
  });

  // Settings → Clear all data: what `chunkpad reset` deletes, from the app. Not while a job runs.
  app.post("/api/reset", async (c) => {
    const body = parsed(resetBody, await c.req.json().catch(() => undefined));
    const running = jobs.list().filter((job) => job.state === "running");
    if (running.length > 0) throw new ChunkpadError("FOLDER_BUSY", `${running.length} job${running.length === 1 ? " is" : "s are"} still running (${running.map((job) => job.kind).join(", ")}); cancel ${running.length === 1 ? "it" : "them"} or wait, then clear the data.`);
    const report = await chunkpad.clearAllData({ models: body.models === true, keys: body.keys === true, chunkFiles: body.chunkFiles === true });
    return c.json(toPlainJson(report) as object);
  });

  // The folder picker: the folders inside one folder (never files, never hidden ones).
  app.get("/api/browse", async (c) => c.json(await chunkpad.listFolderChoices(c.req.query("path"))));

  app.get("/api/openapi.json", (c) => c.json(openApiDocument(options.version)));

  // The web app (built into dist/web): static files, and index.html for every other page. The
  // page holds no secret: its requests carry the cookie the launch URL set.
  const webRoot = options.webRoot ?? fileURLToPath(new URL("../web/", import.meta.url));
  const securityHeaders = {
    "content-security-policy": "default-src 'self'; script-src 'self'; style-src 'self' 'unsafe-inline'; img-src 'self' data: blob:; connect-src 'self'; font-src 'self'; frame-ancestors 'none'; base-uri 'none'; form-action 'self'; object-src 'none'",
    "x-content-type-options": "nosniff",
    "referrer-policy": "no-referrer",
  };
  // Built files through @hono/node-server's serveStatic (it refuses "..", encoded or not); hashed names never change.
  if (fs.existsSync(webRoot)) {
    app.use("/assets/*", serveStatic({
      root: webRoot,
      onFound: (_file, c) => {
        c.header("cache-control", "public, max-age=31536000, immutable");
        for (const [name, value] of Object.entries(securityHeaders)) c.header(name, value);
      },
    }));
  }
  app.get("/assets/*", (c) => c.json({ code: "NOT_FOUND", message: `No such file: ${c.req.path}.`, retryable: false }, 404));
  app.get("*", (c) => {
    if (c.req.path.startsWith("/api/") || c.req.path === "/mcp") return c.json({ code: "NOT_FOUND", message: `No such endpoint: GET ${c.req.path}. See /api/openapi.json.`, retryable: false }, 404);
    const index = path.join(webRoot, "index.html");
    if (!fs.existsSync(index)) {
      return c.text("The web app is not built. Run \"npm run build\" in the Chunkpad folder, then reload.", 503);
    }
    return new Response(fs.readFileSync(index, "utf8"), { headers: { "content-type": "text/html; charset=utf-8", "cache-control": "no-store", ...securityHeaders } });
  });

  // MCP over Streamable HTTP: the same server as `chunkpad mcp`, one per request (stateless).
  app.all("/mcp", async (c) => {
    const providers = await chunkpad.providers();
    const server = createMcpServer(chunkpad, { version: options.version, withAsk: providers.some((provider) => provider.selected && provider.ready) });
    const transport = new WebStandardStreamableHTTPServerTransport({ sessionIdGenerator: undefined, enableJsonResponse: true });
    await server.connect(transport);
    return transport.handleRequest(c.req.raw);
  });

  return app;
}

/** The API as OpenAPI 3.1, its parameters and bodies generated from the same zod schemas that validate them. */
