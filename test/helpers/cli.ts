import { spawn } from "node:child_process";
import { createHash } from "node:crypto";
import fs from "node:fs";
import net from "node:net";
import os from "node:os";
import path from "node:path";

export const REPO_ROOT = path.resolve(import.meta.dirname, "../..");
export const SHARED = path.resolve(REPO_ROOT, "../shared");
export const BIN = path.join(REPO_ROOT, "bin", "chunkpad.js");

export interface CliResult {
  code: number;
  stdout: string;
  stderr: string;
}

/**
 * The `integration-postgres` project's server (test/global-setup-postgres.ts), when this run has
 * one: each Chunkpad home then keeps its store in a PostgreSQL database of its own.
 */
export const TEST_POSTGRES = process.env.CHUNKPAD_TEST_POSTGRES;
export const ON_POSTGRES = TEST_POSTGRES !== undefined;

/** The database names this test file's homes were given (released when the file ends). */
const databasesInUse = new Set<string>();
/** The database name that asks the test server to recycle `<name>` (test/helpers/pglite-databases.ts). */
export const RELEASE_PREFIX = "release_";

/** The database a home's Chunkpad uses on the test PostgreSQL server (one per home, as one per machine). */
export function databaseUrlFor(home: string): string {
  const name = `h${createHash("sha256").update(path.resolve(home)).digest("hex").slice(0, 20)}`;
  databasesInUse.add(name);
  return `${TEST_POSTGRES as string}/${name}?pool_size=1`;
}

/**
 * Tells the test PostgreSQL server that this file's homes are done with (test/setup-postgres.ts,
 * after each file): it recycles each database once its last connection closes, instead of a
 * minute later, for the next files' homes.
 */
export async function releaseTestDatabases(): Promise<void> {
  const names = [...databasesInUse];
  databasesInUse.clear();
  if (TEST_POSTGRES !== undefined) await releaseDatabases(TEST_POSTGRES, names);
}

/** Asks the server at `serverUrl` to recycle each database: a startup message for `release_<name>`, answered with an error and a close. */
export async function releaseDatabases(serverUrl: string, names: string[]): Promise<void> {
  const { hostname, port } = new URL(serverUrl);
  await Promise.all(
    names.map(
      (name) =>
        new Promise<void>((resolve) => {
          const fields = Buffer.from(`user\0postgres\0database\0${RELEASE_PREFIX}${name}\0\0`);
          const header = Buffer.alloc(8);
          header.writeInt32BE(8 + fields.length, 0);
          header.writeInt32BE(196_608, 4); // protocol 3.0
          const socket = net.connect(Number(port), hostname, () => socket.write(Buffer.concat([header, fields])));
          socket.on("error", () => resolve());
          socket.on("close", () => resolve());
          socket.resume();
        }),
    ),
  );
}

/** The environment a CLI child process runs in: nothing of the caller's but PATH, all state under `home`. */
export function cliEnv(home: string, env?: NodeJS.ProcessEnv): NodeJS.ProcessEnv {
  const store = ON_POSTGRES ? { CHUNKPAD_DATABASE_URL: databaseUrlFor(home) } : {};
  return { PATH: process.env.PATH, HOME: home, CHUNKPAD_HOME: home, ...store, ...env };
}

/** Runs the real CLI (bin/chunkpad.js over the built dist/) in a child process. */
export function runCli(args: string[], options: { home: string; input?: string; env?: NodeJS.ProcessEnv; cwd?: string; nodeArgs?: string[] }): Promise<CliResult> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [...(options.nodeArgs ?? []), BIN, ...args], {
      cwd: options.cwd ?? REPO_ROOT,
      env: cliEnv(options.home, options.env),
      stdio: ["pipe", "pipe", "pipe"],
    });
    let stdout = "";
    let stderr = "";
    child.stdout.on("data", (data: Buffer) => (stdout += data.toString()));
    child.stderr.on("data", (data: Buffer) => (stderr += data.toString()));
    child.on("error", reject);
    child.on("close", (code) => resolve({ code: code ?? -1, stdout, stderr }));
    child.stdin.end(options.input ?? "");
  });
}

/** Parses --json output, failing with the CLI's stderr when it is not JSON. */
export function json<T = unknown>(result: CliResult): T {
  try {
    return JSON.parse(result.stdout) as T;
  } catch {
    throw new Error(`not JSON (exit ${result.code}):\n${result.stdout}\n--- stderr ---\n${result.stderr}`);
  }
}

export function makeTempDir(prefix: string): string {
  return fs.mkdtempSync(path.join(os.tmpdir(), `chunkpad-${prefix}-`));
}

export function writeFile(root: string, relativePath: string, content: string | Uint8Array): string {
  const target = path.join(root, relativePath);
  fs.mkdirSync(path.dirname(target), { recursive: true });
  fs.writeFileSync(target, content);
  return target;
}

/** Three small documents about a river (notes.md, report.txt, garden/tomatoes.md): three chunks. */
export function writeSampleDocuments(folder: string): void {
  writeFile(folder, "notes.md", "# Field notes\n\nThe heron waits by the river at dawn.\n\n## Weather\n\nRain all week, and the river rose over its banks.\n");
  writeFile(folder, "report.txt", "Quarterly report.\n\nRevenue grew in the northern region thanks to the aardvark campaign.\n");
  writeFile(folder, "garden/tomatoes.md", "# Tomatoes\n\nTomatoes need full sun and steady watering to ripen well near the river.\n");
}

/** Moves a file's mtime forward so size+mtime checks see a change even within one second. */
export function touchLater(filePath: string, seconds = 5): void {
  const stats = fs.statSync(filePath);
  const later = new Date(stats.mtimeMs + seconds * 1000);
  fs.utimesSync(filePath, later, later);
}
