import { z } from "zod";
import { ChunkpadError, LLM_PROVIDER_NAMES, MAX_NEIGHBOURS, SEARCH_MODES, SECRET_PROVIDERS, SESSION_TOKEN_HEADER as TOKEN_HEADER, serverProof } from "../index.js";

export { serverProof, TOKEN_HEADER };

/**
 * What `chunkpad serve` accepts: each request body and query as a zod schema (validated with
 * `parsed` in app.ts and job-routes.ts), and the OpenAPI document built from the same schemas.
 */

/** zod's first problem as an INVALID_ARGUMENT the client can act on. */
export function parsed<T>(schema: z.ZodType<T>, value: unknown): T {
  const result = schema.safeParse(value);
  if (result.success) return result.data;
  const issue = result.error.issues[0];
  throw new ChunkpadError("INVALID_ARGUMENT", `${issue?.path.join(".") || "request"}: ${issue?.message ?? "invalid"}. See /api/openapi.json for the request shapes.`);
}

export const searchQuery = z.object({
  q: z.string().min(1, "q (the query) is required").max(4000),
  mode: z.enum(SEARCH_MODES).optional(),
  limit: z.coerce.number().int().min(1).max(100).optional(),
  folder: z.array(z.string()).optional(),
  document: z.array(z.string()).optional(),
});
export const reviewBody = z.object({ targets: z.array(z.string().min(1)).min(1), included: z.boolean(), folders: z.array(z.string()).optional() });
export const embedBody = z.object({
  texts: z.array(z.string().max(100_000)).max(256),
  kind: z.enum(["query", "document"]),
  model: z.string().min(1).optional(),
  dtype: z.enum(["fp32", "q8"]).optional(),
});
export const jobBody = z.object({
  /** local-model: download the local answer model (needs consent), as Settings offers it. */
  kind: z.enum(["process", "embed", "sync", "local-model", "export", "import"]),
  /** An added folder (path or id); process needs one, embed and sync default to every folder. */
  folder: z.string().min(1).optional(),
  /** The user agreed, in the app, to download the embedding model if it is needed. */
  consent: z.boolean().optional(),
  /** embed: drop every vector and embed every added folder again with the configured model (after the model changed). */
  reembed: z.boolean().optional(),
  /** sync: embed folders without vectors too. */
  embed: z.boolean().optional(),
  /** process: the user confirmed adding their whole home folder or the root of the disk (the CLI's --yes). */
  confirmBroadFolder: z.boolean().optional(),
  /** process: the password for the encrypted documents of this run (the app's password prompt); never stored. */
  password: z.string().min(1).max(1000).optional(),
  /** export: the archive to write; import: the archive to read (a path on this computer, "~/" for the home folder). */
  file: z.string().min(1).max(4096).optional(),
  /** export: put the documents themselves in the archive too. */
  withSources: z.boolean().optional(),
  /** import: the folder to restore into (an archive never chooses where its files go). */
  into: z.string().min(1).max(4096).optional(),
});
export const askBody = z.object({
  question: z.string().min(1, "question is required").max(10_000),
  mode: z.enum(SEARCH_MODES).optional(),
  strict: z.boolean().optional(),
  provider: z.enum(LLM_PROVIDER_NAMES).optional(),
  model: z.string().min(1).optional(),
  pins: z.array(z.string()).optional(),
  folders: z.array(z.string()).optional(),
  conversationId: z.string().min(1).optional(),
  /** The user agreed, in the app, to download the local LLM if this answer needs it. */
  consent: z.boolean().optional(),
});
export const chunkEdit = z.object({ text: z.string().min(1).max(200_000), baseHash: z.string().min(1, "baseHash (the contentHash the editor read) is required") });
export const regenerateBody = z.object({
  conversationId: z.string().min(1),
  /** The chunk numbers (1-based, as the chunks event numbered them) to answer from. */
  included: z.array(z.number().int().min(1)),
  /** As the question was asked: the app sends the composer's choices again. */
  strict: z.boolean().optional(),
  provider: z.enum(LLM_PROVIDER_NAMES).optional(),
  model: z.string().min(1).optional(),
});
export const resolveBody = z.object({
  /** The file's path relative to its folder, as the tree names it. */
  file: z.string().min(1),
  choice: z.enum(["keep-mine", "take-fresh"]),
});
export const conflictQuery = z.object({
  /** The file's path relative to its folder, as the tree names it. */
  file: z.string().min(1),
});
export const resetBody = z.object({
  /** Typed by the user: deleting everything needs more than a stray request. */
  confirm: z.literal("delete all data", { message: 'confirm must be "delete all data"' }),
  models: z.boolean().optional(),
  keys: z.boolean().optional(),
  chunkFiles: z.boolean().optional(),
});
export const keyBody = z.object({ provider: z.enum(SECRET_PROVIDERS), key: z.string().min(8, "key looks too short").max(500) });
export const settingBody = z.object({ value: z.union([z.string(), z.number()]) });
export const documentQuery = z.object({ fromPage: z.coerce.number().int().min(1).optional(), toPage: z.coerce.number().int().min(1).optional() });
export const chunkQuery = z.object({ neighbours: z.coerce.number().int().min(0).max(MAX_NEIGHBOURS).optional() });

/** The OpenAPI document served at /api/openapi.json. */
export function openApiDocument(version: string) {
  const parameters = (schema: z.ZodObject, where: "query" | "path") =>
    Object.entries(schema.shape).map(([name, field]) => ({ name, in: where, required: !(field as z.ZodType).safeParse(undefined).success, schema: z.toJSONSchema(field as z.ZodType, { unrepresentable: "any" }) }));
  const error = { description: "An error from the core's error table", content: { "application/json": { schema: { type: "object", properties: { code: { type: "string" }, message: { type: "string" }, retryable: { type: "boolean" } } } } } };
  const ok = (description: string) => ({ description, content: { "application/json": { schema: { type: "object" } } } });
  return {
    openapi: "3.1.0",
    info: { title: "Chunkpad", version, description: `Local API of chunkpad serve. Every request needs the ${TOKEN_HEADER} header (the token is in server.json while the server runs), or the cookie the launch URL sets; only /api/hello answers without it.` },
    paths: {
      "/api/hello": { get: { summary: "Open without a credential: the server proves it holds the session token (HMAC-SHA256 of the nonce), so a client checks a port before it sends the token there", parameters: [{ name: "nonce", in: "query", required: true, schema: { type: "string", pattern: "^[0-9a-f]{32,128}$" } }], responses: { 200: ok("server, pid, proof"), default: error } } },
      "/api/status": { get: { summary: "Counts, the embedding model's state, and whether search is ready (search.ready: the keyword index is read and the vector index and query model are loaded)", responses: { 200: ok("Status"), default: error } } },
      "/api/folders": { get: { summary: "Added folders with live counts", responses: { 200: ok("Folders"), default: error } } },
      "/api/jobs": {
        get: { summary: "Jobs started on this server, newest first", responses: { 200: ok("jobs"), default: error } },
        post: { summary: "Start a process, embed or sync job; follow it at /api/jobs/{id}/events", requestBody: { content: { "application/json": { schema: z.toJSONSchema(jobBody) } } }, responses: { 202: ok("the job"), default: error } },
      },
      "/api/jobs/{id}": {
        get: { summary: "A job's state and result", parameters: [{ name: "id", in: "path", required: true, schema: { type: "string" } }], responses: { 200: ok("the job"), default: error } },
        delete: { summary: "Cancel a running job", parameters: [{ name: "id", in: "path", required: true, schema: { type: "string" } }], responses: { 202: ok("the job"), default: error } },
      },
      "/api/jobs/{id}/events": { get: { summary: "Server-sent events of a job from its start (or after Last-Event-ID): progress, answer tokens, then job-done, job-failed or job-cancelled", parameters: [{ name: "id", in: "path", required: true, schema: { type: "string" } }], responses: { 200: { description: "text/event-stream" }, default: error } } },
      "/api/ask": { post: { summary: "Ask a question as a job: chunks, text-delta, citation, final events (chunkpad.answer/3)", requestBody: { content: { "application/json": { schema: z.toJSONSchema(askBody) } } }, responses: { 202: ok("the job"), default: error } } },
      "/api/regenerate": { post: { summary: "Answer a conversation's last question again from its chunks, only the numbers in included switched on (no new search); a job like /api/ask", requestBody: { content: { "application/json": { schema: z.toJSONSchema(regenerateBody) } } }, responses: { 202: ok("the job"), default: error } } },
      "/api/conversations": { get: { summary: "Stored conversations, newest first", responses: { 200: ok("conversations"), default: error } } },
      "/api/conversations/{id}": { get: { summary: "A conversation with its messages and citations", parameters: [{ name: "id", in: "path", required: true, schema: { type: "string" } }], responses: { 200: ok("conversation"), default: error } } },
      "/api/providers": { get: { summary: "Answer providers (which is selected and ready) and where each API key comes from (never the key)", responses: { 200: ok("providers, keys"), default: error } } },
      "/api/keys": { post: { summary: "Store an API key (write-only: the answer says where it is kept)", requestBody: { content: { "application/json": { schema: z.toJSONSchema(keyBody) } } }, responses: { 200: ok("key description"), default: error } } },
      "/api/browse": { get: { summary: "Folders inside a folder, for the folder picker", parameters: [{ name: "path", in: "query", required: false, schema: { type: "string" } }], responses: { 200: ok("path, parent, folders"), default: error } } },
      "/api/settings": { get: { summary: "Every setting with its effective value and where it comes from (flag, env, config, default)", responses: { 200: ok("settings"), default: error } } },
      "/api/settings/{key}": {
        put: { summary: "Write one setting to the config file (validated)", parameters: [{ name: "key", in: "path", required: true, schema: { type: "string" } }], requestBody: { content: { "application/json": { schema: z.toJSONSchema(settingBody) } } }, responses: { 200: ok("the setting"), default: error } },
        delete: { summary: "Remove one setting from the config file (its default applies again)", parameters: [{ name: "key", in: "path", required: true, schema: { type: "string" } }], responses: { 200: ok("the setting"), default: error } },
      },
      "/api/folders/{id}/files": { post: { summary: "Upload one document (the raw bytes; ?name=file.pdf) into an added folder; never overwrites", parameters: [{ name: "id", in: "path", required: true, schema: { type: "string" } }, { name: "name", in: "query", required: true, schema: { type: "string" } }], responses: { 201: ok("folderId, relativePath, bytes"), default: error } } },
      "/api/folders/{id}/tree": { get: { summary: "The folder's chunk-file tree, each file with its chunk states and any failure or conflict", parameters: [{ name: "id", in: "path", required: true, schema: { type: "string" } }], responses: { 200: ok("chunk tree"), default: error } } },
      "/api/folders/{id}/resolve": { post: { summary: "Settle one file's conflict: keep the edited chunk file or take fresh chunks", parameters: [{ name: "id", in: "path", required: true, schema: { type: "string" } }], requestBody: { content: { "application/json": { schema: z.toJSONSchema(resolveBody) } } }, responses: { 200: ok("relativePath, resolved, process report"), default: error } } },
      "/api/folders/{id}/conflict": { get: { summary: "Before settling a conflict: the edited chunk file against the chunks a fresh parse would write, line by line", parameters: [{ name: "id", in: "path", required: true, schema: { type: "string" } }, ...parameters(conflictQuery, "query")], responses: { 200: ok("ConflictDiff: mine, fresh, failure, lines, counts"), default: error } } },
      "/api/reset": { post: { summary: "Delete Chunkpad's data as chunkpad reset does (documents are never touched); refused while a job runs", requestBody: { content: { "application/json": { schema: z.toJSONSchema(resetBody) } } }, responses: { 200: ok("deleted, failed, notes"), default: error } } },
      "/api/embed": { post: { summary: "Embed texts with the model this server keeps loaded (the warm daemon CLI verbs use)", requestBody: { content: { "application/json": { schema: z.toJSONSchema(embedBody) } } }, responses: { 200: ok("fingerprint, dimensions, maxTokens, vectors (base64 float32)"), default: error } } },
      "/api/search": { get: { summary: "Keyword, vector or hybrid search (chunkpad.search/3)", parameters: parameters(searchQuery, "query"), responses: { 200: ok("chunkpad.search/3"), default: error } } },
      "/api/chunks/{ref}": { put: { summary: "Replace a chunk's text in its chunk file (409 when it changed since baseHash)", requestBody: { content: { "application/json": { schema: z.toJSONSchema(chunkEdit) } } }, responses: { 200: ok("Chunk"), default: error } }, get: { summary: "A chunk with its neighbours", parameters: [{ name: "ref", in: "path", required: true, schema: { type: "string" } }, ...parameters(chunkQuery, "query")], responses: { 200: ok("Chunk"), default: error } } },
      "/api/documents/{document}": { get: { summary: "A document's text, or pages of it", parameters: [{ name: "document", in: "path", required: true, schema: { type: "string" } }, ...parameters(documentQuery, "query")], responses: { 200: ok("Document text"), default: error } } },
      "/api/documents/{document}/source": { get: { summary: "The original file of an indexed document (PDFs inline, never as HTML)", parameters: [{ name: "document", in: "path", required: true, schema: { type: "string" } }], responses: { 200: { description: "The file" }, default: error } } },
      "/api/review": { post: { summary: "Include or exclude chunks (chunkpad.review/1)", requestBody: { required: true, content: { "application/json": { schema: z.toJSONSchema(reviewBody) } } }, responses: { 200: ok("chunkpad.review/1"), default: error } } },
      "/mcp": { post: { summary: "MCP over Streamable HTTP (stateless, JSON responses)", responses: { 200: ok("JSON-RPC response") } } },
    },
  };
}
