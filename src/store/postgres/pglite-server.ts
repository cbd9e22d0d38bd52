import fs from "node:fs";
import { createRequire } from "node:module";
import path from "node:path";
import { PGlite } from "@electric-sql/pglite";
import { vector } from "@electric-sql/pglite-pgvector";
import { PGLiteSocketServer } from "@electric-sql/pglite-socket";
import pg from "pg";

/**
 * PGlite (PostgreSQL compiled to WebAssembly) with pgvector, served over the PostgreSQL wire
 * protocol in this process: node-postgres connects to it exactly as to a server. For tests only
 * (excluded from the build; PGlite is a devDependency).
 */
export interface PgliteServer {
  url: string;
  /** Empties the database (a fresh store for the next test). */
  reset(): Promise<void>;
  stop(): Promise<void>;
}

export async function startPgliteServer(): Promise<PgliteServer> {
  const [template, shared] = await Promise.all([pgliteTemplate(), pgliteShared()]);
  const db = await PGlite.create({ loadDataDir: template, extensions: { vector }, ...shared });
  const server = new PGLiteSocketServer({ db, port: 0, host: "127.0.0.1", maxConnections: 100 });
  await server.start();
  const url = `postgres://postgres@${server.getServerConn()}/postgres`;
  return {
    url,
    reset: () => emptyDatabase(url),
    async stop() {
      await server.stop();
      await db.close();
    },
  };
}

/** Drops everything in the database's public schema: a fresh store for the next test. */
export async function emptyDatabase(url: string): Promise<void> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    await client.query("DROP SCHEMA public CASCADE; CREATE SCHEMA public;");
  } finally {
    await client.end();
  }
}

/** PGlite's package folder (it exports no package.json): the folder above its entry that holds one. */
const PGLITE_FOLDER = (() => {
  let folder = path.dirname(createRequire(import.meta.url).resolve("@electric-sql/pglite"));
  while (!fs.existsSync(path.join(folder, "package.json"))) folder = path.dirname(folder);
  return folder;
})();

/** What every PGlite of a process can share: its WebAssembly compiled once, and its file bundle. */
export interface PgliteShared {
  pgliteWasmModule: WebAssembly.Module;
  fsBundle: Blob;
  relaxedDurability: true;
}

let shared: Promise<PgliteShared> | undefined;
/** PGlite's WebAssembly compiled once a process, its file bundle read once; no flush after each statement (a test database need not survive a crash). */
export function pgliteShared(): Promise<PgliteShared> {
  shared ??= (async () => {
    const dist = path.join(PGLITE_FOLDER, "dist");
    const [wasm, bundle] = await Promise.all([fs.promises.readFile(path.join(dist, "pglite.wasm")), fs.promises.readFile(path.join(dist, "pglite.data"))]);
    return { pgliteWasmModule: await WebAssembly.compile(wasm), fsBundle: new Blob([bundle]), relaxedDurability: true as const };
  })();
  return shared;
}

/**
 * An empty database with pgvector, as PGlite's data folder in a tarball, for `loadDataDir`:
 * initdb in WebAssembly costs ≈ 4.2 CPU-s, loading this ≈ 0.85 (decision 099). Made once and kept
 * in node_modules/.cache (so a clone's runs share it, and a fresh install makes it again); a
 * finished one is renamed into place whole, so processes making it at once never read half of one.
 */
export async function pgliteTemplate(): Promise<Blob> {
  const { version } = JSON.parse(fs.readFileSync(path.join(PGLITE_FOLDER, "package.json"), "utf8")) as { version: string };
  const file = path.join(PGLITE_FOLDER, "..", "..", ".cache", "chunkpad-tests", `pglite-${version}-vector.tar.gz`);
  if (!fs.existsSync(file)) {
    const db = await PGlite.create({ extensions: { vector }, ...(await pgliteShared()) });
    try {
      await db.exec("CREATE EXTENSION IF NOT EXISTS vector");
      const dump = Buffer.from(await (await db.dumpDataDir("gzip")).arrayBuffer());
      fs.mkdirSync(path.dirname(file), { recursive: true });
      const building = `${file}.${process.pid}.${Date.now()}`;
      fs.writeFileSync(building, dump);
      fs.renameSync(building, file);
    } finally {
      await db.close();
    }
  }
  return new Blob([fs.readFileSync(file)]);
}
