import { randomBytes, timingSafeEqual } from "node:crypto";
import fs from "node:fs";
import path from "node:path";
import { ChunkpadError } from "../../core/errors.js";
import { serverProof } from "../../core/network.js";
import { localFetch, type LocalFetch, type LocalResponse } from "../../core/local-http.js";

/**
 * server.json in the data folder (0600): where this data folder's `chunkpad serve` listens and
 * its session token, for the CLI, the warm daemon's clients and MCP-over-HTTP clients. One server
 * per data folder (decision 033): a second `serve` finds the first and refuses; a client that
 * finds the file checks that the process lives and that the server at that port proves it knows
 * the token (HMAC of a fresh nonce) before it sends the token there, so a stale file never hands
 * the token to whoever listens on that port now.
 */

export interface ServerInfo {
  url: string;
  port: number;
  host: string;
  token: string;
  pid: number;
}

const HELLO_TIMEOUT_MS = 3000;

export function serverInfoPath(dataDir: string): string {
  return path.join(dataDir, "server.json");
}

/** What server.json says, if it is there and whole. */
export function readServerInfo(dataDir: string): ServerInfo | null {
  let info: Partial<ServerInfo>;
  try {
    info = JSON.parse(fs.readFileSync(serverInfoPath(dataDir), "utf8")) as Partial<ServerInfo>;
  } catch {
    return null;
  }
  if (typeof info.url !== "string" || typeof info.token !== "string" || typeof info.pid !== "number" || typeof info.port !== "number") return null;
  return { url: info.url, port: info.port, host: typeof info.host === "string" ? info.host : "127.0.0.1", token: info.token, pid: info.pid };
}

function processLives(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    // Gone (a server killed without cleaning up), or another user's process: not ours to use.
    return false;
  }
}

type Probe = "ours" | "not-ours" | "no-answer";

/** Asks the server at info.url to prove it holds info.token; the token itself is never sent. */
async function probeServer(info: Pick<ServerInfo, "url" | "token">, fetchImpl: LocalFetch): Promise<Probe> {
  const nonce = randomBytes(16).toString("hex");
  let response: LocalResponse;
  try {
    response = await fetchImpl(`${info.url}/api/hello?nonce=${nonce}`, { signal: AbortSignal.timeout(HELLO_TIMEOUT_MS), redirect: "error" });
  } catch (error) {
    // Nothing listens there (refused): not ours. Listening but silent: perhaps ours, busy.
    return (error as Error).name === "TimeoutError" ? "no-answer" : "not-ours";
  }
  try {
    const body = (await response.json()) as { proof?: unknown };
    if (!response.ok || typeof body.proof !== "string") return "not-ours";
    const expected = Buffer.from(serverProof(info.token, nonce));
    const given = Buffer.from(body.proof);
    return given.length === expected.length && timingSafeEqual(given, expected) ? "ours" : "not-ours";
  } catch {
    return "not-ours";
  }
}

/** True when the server at info.url proves it holds info.token; the token itself is never sent. */
export async function proveServer(info: Pick<ServerInfo, "url" | "token">, fetchImpl: LocalFetch = localFetch): Promise<boolean> {
  return (await probeServer(info, fetchImpl)) === "ours";
}

/** The running server of this data folder, checked (live process, proof of the token); null otherwise or when it is this very process. */
export async function findLiveServer(dataDir: string, fetchImpl: LocalFetch = localFetch): Promise<ServerInfo | null> {
  const info = readServerInfo(dataDir);
  if (info === null || info.pid === process.pid || !processLives(info.pid)) return null;
  return (await proveServer(info, fetchImpl)) ? info : null;
}

/** For a new serve: the file's server is ours and live, gone, or alive but silent (then it is not replaced). */
async function existingServer(dataDir: string): Promise<{ state: "live" | "silent"; info: ServerInfo } | null> {
  const info = readServerInfo(dataDir);
  if (info === null || info.pid === process.pid || !processLives(info.pid)) return null;
  const probe = await probeServer(info, localFetch);
  return probe === "ours" ? { state: "live", info } : probe === "no-answer" ? { state: "silent", info } : null;
}

/** The URL that lets a browser in: the app exchanges the token for a cookie and drops it from the address bar. */
export function launchUrl(info: Pick<ServerInfo, "url" | "token">): string {
  return `${info.url}/?token=${info.token}`;
}

function alreadyServing(existing: { state: "live" | "silent"; info: ServerInfo }, file: string): ChunkpadError {
  const { info } = existing;
  if (existing.state === "silent") {
    return new ChunkpadError("INVALID_ARGUMENT", `${file} names a running process (pid ${info.pid}) whose server at ${info.url} does not answer (busy?). Try again in a moment; if that process is not a Chunkpad server, delete ${file} and start again.`);
  }
  return new ChunkpadError("INVALID_ARGUMENT", `Chunkpad is already serving this data folder at ${info.url} (pid ${info.pid}). Run "chunkpad serve --open" to open it in your browser, or stop it (Ctrl-C in its terminal) before starting another.`);
}

/** Before listening: refuses when this data folder's server runs already (so a second serve never takes over its server.json). */
export async function ensureNoLiveServer(dataDir: string): Promise<void> {
  const existing = await existingServer(dataDir);
  if (existing) throw alreadyServing(existing, serverInfoPath(dataDir));
}

/**
 * Writes server.json (0600) for the server that now listens; a file left by a dead or foreign
 * server is replaced, a live one of ours wins (two serves started at once: the second refuses).
 */
export async function registerServer(dataDir: string, info: ServerInfo): Promise<void> {
  fs.mkdirSync(dataDir, { recursive: true, mode: 0o700 });
  const file = serverInfoPath(dataDir);
  const text = `${JSON.stringify(info, null, 2)}\n`;
  for (let attempt = 0; attempt < 3; attempt += 1) {
    try {
      fs.writeFileSync(file, text, { mode: 0o600, flag: "wx" });
      return;
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== "EEXIST") throw error;
    }
    const existing = await existingServer(dataDir);
    if (existing) throw alreadyServing(existing, file);
    fs.rmSync(file, { force: true });
  }
  throw new ChunkpadError("INVALID_ARGUMENT", `Could not write ${file}: another chunkpad serve keeps replacing it. Stop the other server, then start again.`);
}

/** At stop: removes server.json only while it is still this server's. */
export function unregisterServer(dataDir: string, token: string): void {
  const current = readServerInfo(dataDir);
  if (current !== null && current.token === token) fs.rmSync(serverInfoPath(dataDir), { force: true });
}
