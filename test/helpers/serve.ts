import { spawn, type ChildProcess } from "node:child_process";
import fs from "node:fs";
import path from "node:path";
import { BIN, cliEnv } from "./cli.js";

export interface RunningServer {
  child: ChildProcess;
  /** What server.json says: where it listens and its session token (what the CLI and MCP clients send). */
  info: { url: string; port: number; token: string; pid: number };
  /** The link serve printed for the browser (`/?token=…`). */
  launchUrl: string;
  /** fetch on this server with the session token header, as a script or the CLI sends it. */
  api(pathname: string, init?: RequestInit): Promise<Response>;
  /** Everything it wrote to stderr so far. */
  stderr(): string;
  /** Resolves once stderr matches (it may already have). */
  logged(pattern: RegExp): Promise<void>;
  /** SIGTERM (or `signal`), then waits for the exit. */
  stop(signal?: NodeJS.Signals): Promise<void>;
}

/** `chunkpad serve --port 0 [args]` in a child process, started and listening. */
export async function startServe(home: string, options: { args?: string[]; env?: NodeJS.ProcessEnv } = {}): Promise<RunningServer> {
  const child = spawn(process.execPath, [BIN, "serve", "--port", "0", ...(options.args ?? [])], { env: cliEnv(home, options.env), stdio: ["ignore", "ignore", "pipe"] });
  const closed = new Promise<void>((resolve) => child.on("close", () => resolve()));
  let stderr = "";
  const waiters: Array<{ pattern: RegExp; resolve: () => void }> = [];
  child.stderr?.on("data", (data: Buffer) => {
    stderr += data.toString();
    for (const waiter of waiters.filter((candidate) => candidate.pattern.test(stderr))) {
      waiters.splice(waiters.indexOf(waiter), 1);
      waiter.resolve();
    }
  });
  const logged = (pattern: RegExp) => (pattern.test(stderr) ? Promise.resolve() : new Promise<void>((resolve) => waiters.push({ pattern, resolve })));
  const launchLine = /^\s+(http:\/\/\S+\/\?token=[0-9a-f]+)$/m;
  await Promise.race([
    logged(launchLine),
    closed.then(() => {
      throw new Error(`serve exited early:\n${stderr}`);
    }),
  ]);
  const info = JSON.parse(fs.readFileSync(path.join(home, "data", "server.json"), "utf8")) as RunningServer["info"];
  const launchUrl = launchLine.exec(stderr)?.[1] as string;
  return {
    child,
    info,
    launchUrl,
    api: (pathname, init = {}) => fetch(`${info.url}${pathname}`, { ...init, headers: { ...(init.headers as Record<string, string> | undefined), "x-chunkpad-token": info.token } }),
    stderr: () => stderr,
    logged,
    async stop(signal = "SIGTERM") {
      child.kill(signal);
      await closed;
    },
  };
}
