import { randomBytes } from "node:crypto";
import { spawn } from "node:child_process";
import fs from "node:fs";
import type { AddressInfo } from "node:net";
import path from "node:path";
import type { Command } from "commander";
import { ChunkpadError } from "../../index.js";
import type { CliContext } from "../context.js";
import { parseIntegerOption } from "../shared/io.js";
import { describeWatchEvent } from "../shared/render.js";
import { describeSearchIndexes } from "../shared/search-readiness.js";

interface ServeFlags {
  port: number;
  host: string;
  allowRemote?: boolean;
  watch?: boolean;
  open?: boolean;
}

const LOOPBACK = new Set(["127.0.0.1", "localhost", "::1"]);

/**
 * `chunkpad serve`: the HTTP API (and MCP at /mcp) on 127.0.0.1, one process keeping the core
 * open between requests. The session token and the port go to server.json in the data folder
 * (0600), for the web app, scripts and a CLI that wants to find the server.
 */
export function registerServeCommand(program: Command, context: CliContext): void {
  program
    .command("serve")
    .description("Serve the HTTP API (and MCP over HTTP at /mcp) on 127.0.0.1 until Ctrl-C; the session token is written to server.json in the data folder")
    .option("--port <port>", "port to listen on (0: any free port)", parseIntegerOption("--port"), 4410)
    .option("--host <address>", "address to bind; anything but loopback also needs --allow-remote", "127.0.0.1")
    .option("--allow-remote", "allow a non-loopback --host; every request then needs the token, reads too")
    .option("--watch", "also keep every added folder in sync as its files change (like chunkpad watch)")
    .option("--open", "open the web app in your browser")
    .action(async (flags: ServeFlags) => {
      const remote = !LOOPBACK.has(flags.host);
      if (remote && !flags.allowRemote) {
        throw new ChunkpadError("INVALID_ARGUMENT", `Not serving on ${flags.host}: other machines could reach your documents. Use the default 127.0.0.1, or add --allow-remote (every request then needs the session token).`);
      }
      const [{ serve }, { createServerApp }, { createJobManager }] = await Promise.all([import("@hono/node-server"), import("../../server/app.js"), import("../../server/jobs.js")]);
      const jobs = createJobManager();
      const chunkpad = context.chunkpad();
      const token = randomBytes(32).toString("hex");
      // The app needs the port it was given (its Host allowlist names it), known only once listening.
      const routes: { handler?: (request: Request) => Response | Promise<Response> } = {};
      const server = serve({ fetch: (request) => (routes.handler ? routes.handler(request) : new Response("starting", { status: 503 })), port: flags.port, hostname: flags.host });
      await new Promise<void>((resolve, reject) => {
        server.once("listening", () => resolve());
        server.once("error", (error: NodeJS.ErrnoException) =>
          reject(error.code === "EADDRINUSE" ? new ChunkpadError("INVALID_ARGUMENT", `Port ${flags.port} is in use (another chunkpad serve?). Pick another with --port, or --port 0 for any free one.`) : error),
        );
      });
      const port = (server.address() as AddressInfo).port;
      const app = createServerApp(chunkpad, { port, host: flags.host, token, remote, version: context.version }, jobs);
      routes.handler = (request) => app.fetch(request);
      const displayHost = flags.host.includes(":") ? `[${flags.host}]` : flags.host;
      const url = `http://${displayHost}:${port}`;
      const infoFile = path.join(chunkpad.paths.dataDir, "server.json");
      fs.mkdirSync(chunkpad.paths.dataDir, { recursive: true, mode: 0o700 });
      fs.writeFileSync(infoFile, `${JSON.stringify({ url, port, host: flags.host, token, pid: process.pid }, null, 2)}\n`, { mode: 0o600 });
      context.io.stderr.write(`Chunkpad API on ${url} (OpenAPI: ${url}/api/openapi.json, MCP: ${url}/mcp); session token in ${infoFile}. Ctrl-C stops it.\n`);
      context.io.stderr.write(`Web app: ${url}\n`);
      if (flags.open) openInBrowser(url);
      // Search gets ready now, not on the first requests: GET /api/status says when (search.ready).
      const warmStarted = performance.now();
      void chunkpad.warmSearch().then(
        (search) => context.io.stderr.write(`Search ready in ${((performance.now() - warmStarted) / 1000).toFixed(1)} s: ${describeSearchIndexes(search)}.\n`),
        (error: unknown) => context.io.stderr.write(`Search warm-up stopped: ${error instanceof Error ? error.message : String(error)}; searches still work, the first ones slower.\n`),
      );
      const watching = new AbortController();
      const watcher = flags.watch
        ? chunkpad.watch([], { signal: watching.signal, onEvent: (event) => context.io.stderr.write(describeWatchEvent(event)) }).catch((error: unknown) => {
          context.io.stderr.write(`watch stopped: ${error instanceof Error ? error.message : String(error)}\n`);
        })
        : Promise.resolve();
      await new Promise<void>((resolve) => {
        const stop = () => {
          process.off("SIGINT", stop);
          process.off("SIGTERM", stop);
          watching.abort();
          void jobs.stopAll();
          server.close(() => resolve());
          // Event streams stay open as long as their jobs run; at shutdown they end now.
          (server as { closeAllConnections?: () => void }).closeAllConnections?.();
        };
        process.once("SIGINT", stop);
        process.once("SIGTERM", stop);
      });
      await watcher;
      // Running jobs stop where they are; process and embed pick up from there next time.
      await jobs.stopAll();
      fs.rmSync(infoFile, { force: true });
    });
}

/** The platform's way to open a URL; a failure only means the user opens it by hand. */
function openInBrowser(url: string): void {
  const command = process.platform === "darwin" ? "open" : process.platform === "win32" ? "cmd" : "xdg-open";
  const args = process.platform === "win32" ? ["/c", "start", "", url] : [url];
  try {
    spawn(command, args, { detached: true, stdio: "ignore" }).on("error", () => undefined).unref();
  } catch {
    // No opener on this system: the URL is printed above.
  }
}
