import { McpServer, ResourceTemplate } from "@modelcontextprotocol/sdk/server/mcp.js";
import type { CallToolResult } from "@modelcontextprotocol/sdk/types.js";
import { z } from "zod";
import { createAnswerCollector, MAX_NEIGHBOURS, SEARCH_MODES, toErrorJson, toPlainJson, toSearchJson, type Chunkpad, type SearchResult } from "../index.js";

/**
 * Chunkpad for agents: one MCP server over the public API, whatever carries it (stdio from
 * `chunkpad mcp`; Streamable HTTP at /mcp on `chunkpad serve` later). Tools return their result
 * twice, as the MCP spec suggests: as JSON text for any client and as structured content; a
 * failure is a tool error (isError) carrying the error code and the next step.
 */

export interface McpServerOptions {
  version: string;
  /** Registers `ask` (answers with citations); the caller checks that a provider is set up. */
  withAsk: boolean;
}

type ToolResult = CallToolResult;

/** Text in one get_document reply (or document resource): a 115 MB document comes in pages an agent can take. */
const DOCUMENT_PAGE_TEXT_BYTES = 100_000;

function ok(value: unknown): ToolResult {
  const structured = toPlainJson(value) as Record<string, unknown>;
  return { content: [{ type: "text", text: JSON.stringify(structured, null, 2) }], structuredContent: structured };
}

function failed(error: unknown): ToolResult {
  const { code, message, retryable, nextSteps } = toErrorJson(error);
  // An agent reads the next steps as data, as the HTTP API gives them (decision 060).
  const next = nextSteps ? ` Next steps: ${JSON.stringify(nextSteps)}` : "";
  return { isError: true, content: [{ type: "text", text: `${code}: ${message}${retryable ? " (trying again later may work)" : ""}${next}` }] };
}

async function run(work: () => Promise<unknown>): Promise<ToolResult> {
  try {
    return ok(await work());
  } catch (error) {
    return failed(error);
  }
}

/** A search hit as an agent needs it: the whole chunk text, where it comes from, and its ref. */
function hit(result: SearchResult) {
  return {
    ref: result.ref,
    score: Number(result.score.toFixed(4)),
    relevancePercent: result.relevancePercent,
    documentId: result.documentId,
    documentTitle: result.documentTitle,
    source: result.folderPath ? `${result.folderPath}/${result.relativePath}` : result.relativePath,
    relativePath: result.relativePath,
    location: result.location,
    page: result.chunk.page ?? null,
    section: result.section,
    text: result.chunk.content,
  };
}

export function documentUri(documentId: string): string {
  return `chunkpad://document/${encodeURIComponent(documentId)}`;
}

export function createMcpServer(chunkpad: Chunkpad, options: McpServerOptions): McpServer {
  const server = new McpServer(
    { name: "chunkpad", version: options.version },
    {
      instructions:
        "Chunkpad searches the user's own documents (folders they added: PDFs, Office files, web pages, notes). " +
        "Use `search` first; cite what you use by its `ref` and source. Use `get_chunk` for the text around a hit and `get_document` for whole pages. " +
        "Everything is local; nothing leaves the machine unless the user configured a cloud LLM for `ask`.",
    },
  );

  server.registerTool(
    "search",
    {
      title: "Search the user's documents",
      description:
        "Finds the passages (chunks) of the user's documents that match a question or keywords. Returns chunks best first, each with its full text, " +
        "source file, page or location, a relevance score and a `ref` (e.g. `3f2a9c1b:reports/q3.pdf#4`) to cite it or to fetch its neighbours with get_chunk. " +
        'Modes: "hybrid" (default when the documents are embedded: meaning + keywords), "vector" (meaning only), "keyword" (exact words; "quoted phrases" and -word work in every mode). ' +
        "Narrow with `folders` (paths from list_folders) or `documents` (ids, paths or file names).",
      inputSchema: {
        query: z.string().min(1).max(4000).describe("What to look for, in natural language or keywords."),
        mode: z.enum(SEARCH_MODES).optional().describe('"hybrid", "vector", "keyword", or "auto" (hybrid when embedded, else keyword).'),
        limit: z.number().int().min(1).max(50).optional().describe("How many chunks to return (default 10)."),
        folders: z.array(z.string()).optional().describe("Only these added folders (their paths as list_folders shows them)."),
        documents: z.array(z.string()).optional().describe("Only these documents: ids, paths inside their folder, or file names."),
      },
      annotations: { readOnlyHint: true, openWorldHint: false },
    },
    async ({ query, mode, limit, folders, documents }) =>
      run(async () => {
        const report = await chunkpad.search(query, { ...(mode ? { mode } : {}), ...(limit ? { limit } : {}), ...(folders ? { folders } : {}), ...(documents ? { documents } : {}) });
        const wire = toSearchJson(report);
        return { schema: wire.schema, query: wire.query, mode: wire.mode, keywordQuery: wire.keywordQuery, notices: wire.notices, results: report.results.map(hit) };
      }),
  );

  server.registerTool(
    "get_chunk",
    {
      title: "Read one chunk and the text around it",
      description:
        "Returns the chunk with this `ref` (from search results or citations) and up to `neighbours` chunks before and after it in the same document, " +
        "for the context around a passage. Neighbouring chunks overlap by a few sentences.",
      inputSchema: {
        ref: z.string().min(1).describe("The chunk reference, e.g. 3f2a9c1b:reports/q3.pdf#4."),
        neighbours: z.number().int().min(0).max(MAX_NEIGHBOURS).optional().describe(`Chunks to include on each side (default 1, at most ${MAX_NEIGHBOURS}).`),
      },
      annotations: { readOnlyHint: true, openWorldHint: false },
    },
    async ({ ref, neighbours }) => run(() => chunkpad.readChunk(ref, { neighbours: neighbours ?? 1 })),
  );

  server.registerTool(
    "get_document",
    {
      title: "Read a document or some of its pages",
      description:
        "Returns a document's text: all of it, or the chunks on pages fromPage..toPage (PDFs and other paged formats). " +
        "Name the document by its id (search results carry documentId), its path inside its folder, or its file name. " +
        `A reply holds at most about ${Math.round(DOCUMENT_PAGE_TEXT_BYTES / 1000)} kB of text: when \`nextChunk\` is not null, call again with fromChunk set to it for the rest. ` +
        "Long documents are long: prefer a page range, or search first.",
      inputSchema: {
        document: z.string().min(1).describe("Document id, path inside its folder, or file name."),
        fromPage: z.number().int().min(1).optional().describe("First page (1-based)."),
        toPage: z.number().int().min(1).optional().describe("Last page (inclusive)."),
        fromChunk: z.number().int().min(1).optional().describe("Continue from this chunk number (the previous reply's nextChunk)."),
      },
      annotations: { readOnlyHint: true, openWorldHint: false },
    },
    async ({ document, fromPage, toPage, fromChunk }) =>
      run(async () => {
        const text = await chunkpad.readDocument({
          document,
          ...(fromPage === undefined ? {} : { fromPage }),
          ...(toPage === undefined ? {} : { toPage }),
          ...(fromChunk === undefined ? {} : { fromChunk }),
          maxTextBytes: DOCUMENT_PAGE_TEXT_BYTES,
        });
        // The text once, in `text`: each chunk is listed by where it is, so a reply stays the size of its page.
        const chunks = text.chunks.map(({ ref, ordinal, page, location, section, included }) => ({ ref, ordinal, page, location, section, included }));
        return { ...text, chunks };
      }),
  );

  server.registerTool(
    "list_folders",
    {
      title: "List the added folders",
      description: "The folders the user added to Chunkpad, with how many documents and chunks each holds and how many are embedded (searchable by meaning).",
      inputSchema: {},
      annotations: { readOnlyHint: true, openWorldHint: false },
    },
    async () =>
      run(async () => ({
        folders: (await chunkpad.listFolders()).map((folder) => ({
          id: folder.id,
          path: folder.rootPath,
          documents: folder.documentCount,
          chunks: folder.storedChunkCount,
          included: folder.includedChunkCount,
          embedded: folder.embeddedChunkCount,
          failedFiles: folder.failedCount,
          lastProcessedAt: folder.lastProcessedAt,
        })),
      })),
  );

  server.registerTool(
    "status",
    {
      title: "Chunkpad's state",
      description:
        "What can be searched and how: the added folders and their counts, the embedding model and whether it is on disk (search by meaning needs it), " +
        "and whether `ask` can answer (an LLM provider is set up). Never downloads or loads anything.",
      inputSchema: {},
      annotations: { readOnlyHint: true, openWorldHint: false },
    },
    async () =>
      run(async () => {
        const folders = await chunkpad.listFolders();
        const model = await chunkpad.modelStatus();
        return {
          folders: folders.length,
          documents: folders.reduce((sum, folder) => sum + folder.documentCount, 0),
          chunks: folders.reduce((sum, folder) => sum + folder.storedChunkCount, 0),
          embeddedChunks: folders.reduce((sum, folder) => sum + folder.embeddedChunkCount, 0),
          embeddingModel: { provider: model.provider, model: model.model, state: model.status.state, dimensions: model.dimensions },
          ask: options.withAsk ? "available" : 'not set up: configure an LLM provider ("chunkpad providers" lists them), then restart the MCP server',
        };
      }),
  );

  if (options.withAsk) {
    server.registerTool(
      "ask",
      {
        title: "Answer a question from the user's documents",
        description:
          "Searches the documents, then has the user's configured LLM answer from the chunks found, with [C1]-style citations resolved to files and pages. " +
          'Refuses ("I don\'t know based on your documents") when nothing relevant is found. Prefer `search` when you can read and cite the chunks yourself.',
        inputSchema: {
          question: z.string().min(1).max(4000).describe("The question, in natural language."),
          strict: z.boolean().optional().describe("Answer only with sentences taken from the chunks."),
          folders: z.array(z.string()).optional().describe("Only these added folders."),
        },
        annotations: { readOnlyHint: false, openWorldHint: true },
      },
      async ({ question, strict, folders }) =>
        run(async () => {
          const collector = createAnswerCollector(question);
          for await (const event of chunkpad.ask(question, { ...(strict === undefined ? {} : { strict }), ...(folders ? { folders } : {}) })) collector.add(event);
          return collector.result();
        }),
    );
  }

  server.registerResource(
    "document",
    new ResourceTemplate("chunkpad://document/{documentId}", {
      list: async () => ({
        resources: (await chunkpad.listDocuments()).map((document) => ({
          uri: documentUri(document.id),
          name: document.relativePath,
          title: document.title,
          mimeType: "text/markdown",
          description: `${document.documentType}${document.pageCount ? `, ${document.pageCount} pages` : ""}, ${document.chunkCount} chunks`,
        })),
      }),
    }),
    { title: "A document of an added folder, as text", mimeType: "text/markdown" },
    async (uri, { documentId }) => {
      const text = await chunkpad.readDocument({ document: decodeURIComponent(String(documentId)), maxTextBytes: DOCUMENT_PAGE_TEXT_BYTES });
      const rest = text.nextChunk === null ? "" : `\n\n(${text.totalChunks - text.chunks.length} more chunks: read them with the get_document tool, fromChunk ${text.nextChunk}.)\n`;
      return { contents: [{ uri: uri.href, mimeType: "text/markdown", text: `# ${text.title}\n\n${text.text}\n${rest}` }] };
    },
  );

  return server;
}
