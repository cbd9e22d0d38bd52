import { randomBytes } from "node:crypto";
import { spawn } from "node:child_process";
import fs from "node:fs";
import type { AddressInfo } from "node:net";
import path from "node:path";
import { pathToFileURL } from "node:url";
import type { Command } from "commander";
import { ChunkpadError, ensureNoLiveServer, findLiveServer, launchUrl, registerServer, unregisterServer } from "../../index.js";
import type { CliContext } from "../context.js";
import { parseIntegerOption } from "../shared/io.js";
import { describeWatchEvent } from "../shared/render.js";
import { describeSearchIndexes } from "../shared/search-readiness.js";
import { chooseOpener } from "../shared/app-window.js";

interface ServeFlags {
  port: number;
  host: string;
  allowRemote?: boolean;
  watch?: boolean;
  open?: boolean;
}

const OPEN_PAGE = "open-app.html";
const LOOPBACK = new Set(["127.0.0.1", "localhost", "::1"]);

/**
 * `chunkpad serve`: the HTTP API (and MCP at /mcp) on 127.0.0.1, one process keeping the core
 * open between requests, one per data folder. The session token and the port go to server.json
 * in the data folder (0600), for scripts, MCP clients and a CLI that wants to find the server;
 * a browser gets in through the launch URL printed here (`/?token=…`, exchanged for a cookie).
 */
export function registerServeCommand(program: Command, context: CliContext): void {
  program
    .command("serve")
    .description("Serve the web app, the HTTP API and MCP over HTTP (/mcp) on 127.0.0.1 until Ctrl-C; prints the link that opens the app, and writes the session token to server.json in the data folder")
    .option("--port <port>", "port to listen on (0: any free port)", parseIntegerOption("--port"), 4410)
    .option("--host <address>", "address to bind; anything but loopback also needs --allow-remote", "127.0.0.1")
    .option("--allow-remote", "allow a non-loopback --host (other machines can then reach it; every request still needs the token)")
    .option("--watch", "also keep every added folder in sync as its files change (like chunkpad watch)")
    .option("--open", "open the web app in your browser (the running server's, when this data folder is served already)")
    .action(async (flags: ServeFlags) => {
      const remote = !LOOPBACK.has(flags.host);
      if (remote && !flags.allowRemote) {
        throw new ChunkpadError("INVALID_ARGUMENT", `Not serving on ${flags.host}: other machines could reach your documents. Use the default 127.0.0.1, or add --allow-remote (every request then needs the session token).`);
      }
      const chunkpad = context.chunkpad();
      const dataDir = chunkpad.paths.dataDir;
      // One server per data folder: with --open, a second serve opens the first one's app instead.
      const running = flags.open ? await findLiveServer(dataDir) : null;
      if (running) {
        context.io.stderr.write(`Chunkpad is already serving this data folder at ${running.url} (pid ${running.pid}); opening it in your browser.\n`);
        openInBrowser(launchUrl(running), dataDir);
        return;
      }
      await ensureNoLiveServer(dataDir);
      // Listening for Ctrl-C before anything is announced: a stop that comes at once still cleans up.
      const stopRequested = new Promise<void>((resolve) => {
        const stop = () => {
          process.off("SIGINT", stop);
          process.off("SIGTERM", stop);
          resolve();
        };
        process.once("SIGINT", stop);
        process.once("SIGTERM", stop);
      });
      const [{ serve }, { createServerApp }, { createJobManager }] = await Promise.all([import("@hono/node-server"), import("../../server/app.js"), import("../../server/jobs.js")]);
      const jobs = createJobManager();
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
      // Bound to every address (0.0.0.0, ::): programs on this machine reach it on loopback.
      const wildcard = flags.host === "0.0.0.0" || flags.host === "::";
      const displayHost = wildcard ? "127.0.0.1" : flags.host.includes(":") ? `[${flags.host}]` : flags.host;
      const url = `http://${displayHost}:${port}`;
      try {
        await registerServer(dataDir, { url, port, host: flags.host, token, pid: process.pid });
      } catch (error) {
        server.close();
        throw error;
      }
      const infoFile = path.join(dataDir, "server.json");
      context.io.stderr.write(`Chunkpad API on ${url} (OpenAPI: ${url}/api/openapi.json, MCP: ${url}/mcp); programs send the session token from ${infoFile}. Ctrl-C stops it.\n`);
      if (flags.open) openInBrowser(launchUrl({ url, token }), dataDir);
      context.io.stderr.write(`Open the web app (this link lets your browser in; keep it to yourself):\n    ${launchUrl({ url, token })}\n`);
      if (wildcard) context.io.stderr.write("From another machine, use this machine's address or name in place of 127.0.0.1 (over plain HTTP: only on a network you trust).\n");
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
      await stopRequested;
      watching.abort();
      void jobs.stopAll();
      await new Promise<void>((resolve) => {
        server.close(() => resolve());
        // Event streams stay open as long as their jobs run; at shutdown they end now.
        (server as { closeAllConnections?: () => void }).closeAllConnections?.();
      });
      await watcher;
      // Running jobs stop where they are; process and embed pick up from there next time.
      await jobs.stopAll();
      unregisterServer(dataDir, token);
      // The page --open wrote (here or by a second serve --open) holds this run's token: gone with it.
      fs.rmSync(path.join(dataDir, OPEN_PAGE), { force: true });
    });
}

/**
 * Opens the launch URL in the browser without putting the token on a command line, where every
 * local account can read it (ps): the opener gets a 0600 page in the data folder that forwards
 * to the URL (as Jupyter does). A Chromium-family browser opens it as an app window; $BROWSER,
 * when set, is the opener (shared/app-window.ts).
 */
function openInBrowser(url: string, dataDir: string): void {
  const page = path.join(dataDir, OPEN_PAGE);
  const escaped = url.replace(/&/g, "&amp;").replace(/"/g, "&quot;");
  fs.rmSync(page, { force: true });
  fs.writeFileSync(page, `<!doctype html>\n<meta charset="utf-8"><meta name="referrer" content="no-referrer"><meta http-equiv="refresh" content="0;url=${escaped}">\n<title>Opening Chunkpad</title><a href="${escaped}">Open Chunkpad</a>\n`, { mode: 0o600, flag: "wx" });
  const { command, args } = chooseOpener(pathToFileURL(page).href, { env: process.env, platform: process.platform });
  try {
    spawn(command, args, { detached: true, stdio: "ignore" }).on("error", () => undefined).unref();
  } catch {
    // No opener on this system: the URL is printed above.
  }
}
