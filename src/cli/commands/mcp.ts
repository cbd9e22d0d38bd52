import type { Command } from "commander";
import type { CliContext } from "../context.js";

/**
 * `chunkpad mcp`: the MCP server on stdio, for AI agents and editors. stdout carries only
 * JSON-RPC from here on; notices go to stderr. Runs until the client closes stdin.
 */
export function registerMcpCommand(program: Command, context: CliContext): void {
  program
    .command("mcp")
    .description("Serve your documents to AI agents over MCP on stdin/stdout (Claude Desktop, Claude Code, Cursor, VS Code…): search, get_chunk, get_document, list_folders, status, and ask when an LLM is set up")
    .action(async () => {
      const [{ StdioServerTransport }, { createMcpServer }] = await Promise.all([import("@modelcontextprotocol/sdk/server/stdio.js"), import("../../mcp/server.js")]);
      const chunkpad = context.chunkpad();
      const providers = await chunkpad.providers();
      const withAsk = providers.some((provider) => provider.selected && provider.ready);
      const server = createMcpServer(chunkpad, { version: context.version, withAsk });
      const transport = new StdioServerTransport(context.io.stdin, context.io.stdout);
      const closed = new Promise<void>((resolve) => {
        server.server.onclose = () => resolve();
        context.io.stdin.once("end", () => void server.close().finally(resolve));
      });
      await server.connect(transport);
      context.io.stderr.write(`chunkpad mcp: serving ${chunkpad.paths.databasePath} on stdio${withAsk ? "" : " (ask is off: no LLM provider is set up)"}\n`);
      // An agent's first searches should not pay for reading the keyword index or loading the model.
      void chunkpad.warmSearch().catch(() => undefined);
      await closed;
    });
}
