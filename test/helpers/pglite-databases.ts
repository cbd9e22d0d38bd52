import fs from "node:fs";
import net from "node:net";
import os from "node:os";
import path from "node:path";
import { PGlite } from "@electric-sql/pglite";
import { vector } from "@electric-sql/pglite-pgvector";
import { PGLiteSocketServer } from "@electric-sql/pglite-socket";

/**
 * Many PostgreSQL databases behind one port, for running the integration tests against the
 * PostgreSQL store: PGlite (+ pgvector) holds one database per instance and one session for all
 * its connections, so each database name a client asks for (in the startup message) gets its own
 * PGlite, served over the wire protocol by pglite-socket, and the connection is piped to it.
 * A new database is a copy of a template folder (initdb once, ~1.5 s a database after that); a
 * database nobody has been connected to for a while is closed (its folder stays, so the next
 * connection reopens it). Test-only: PGlite is a devDependency.
 *
 * What a database costs is most of what the integration tests cost on PostgreSQL (a test home is
 * a database, and there are a few hundred), so: every PGlite shares one compiled WebAssembly
 * module and file bundle (instead of compiling its own), skips the flush after every statement
 * (`relaxedDurability`: a test database need not survive a crash of this process), and starts
 * from a template that already holds Chunkpad's schema when `prepare` makes one (decision 067).
 */
export interface PgliteDatabasesOptions {
  /** Run once on the template (at its URL) before any database is copied from it: Chunkpad's migrations. */
  prepare?: (url: string) => Promise<void>;
}

export interface PgliteDatabases {
  /** postgres://postgres@127.0.0.1:port — append `/<database>` (letters, digits, _). */
  url: string;
  stop(): Promise<void>;
}

interface Database {
  db: PGlite;
  server: PGLiteSocketServer;
  port: number;
  connections: number;
  idle: NodeJS.Timeout | undefined;
}

const SSL_REQUEST = 80877103;
const CANCEL_REQUEST = 80877102;
const IDLE_MS = 15_000;
const PGLITE_PACKAGE = path.join(import.meta.dirname, "..", "..", "node_modules", "@electric-sql", "pglite");

/** Reads the startup packet's `database` (after answering an SSL request with "no"). */
function readStartup(socket: net.Socket): Promise<{ database: string; packet: Buffer }> {
  return new Promise((resolve, reject) => {
    let buffer = Buffer.alloc(0);
    const onData = (data: Buffer) => {
      buffer = Buffer.concat([buffer, data]);
      while (buffer.length >= 8) {
        const length = buffer.readInt32BE(0);
        if (buffer.length < length) return;
        const code = buffer.readInt32BE(4);
        if (code === SSL_REQUEST) {
          socket.write("N");
          buffer = buffer.subarray(8);
          continue;
        }
        socket.off("data", onData);
        if (code === CANCEL_REQUEST) return reject(new Error("cancel requests are not supported"));
        const fields = buffer.subarray(8, length).toString("utf8").split("\0");
        const parameters = new Map<string, string>();
        for (let index = 0; index + 1 < fields.length; index += 2) parameters.set(fields[index] as string, fields[index + 1] as string);
        socket.pause();
        return resolve({ database: parameters.get("database") ?? parameters.get("user") ?? "postgres", packet: buffer });
      }
    };
    socket.on("data", onData);
    socket.on("error", reject);
  });
}

/** What every PGlite of the run shares: its WebAssembly compiled once, and its file bundle. */
type Shared = { pgliteWasmModule: WebAssembly.Module; fsBundle: Blob; relaxedDurability: true };

async function loadShared(): Promise<Shared> {
  const dist = path.join(PGLITE_PACKAGE, "dist");
  const [wasm, bundle] = await Promise.all([fs.promises.readFile(path.join(dist, "pglite.wasm")), fs.promises.readFile(path.join(dist, "pglite.data"))]);
  return { pgliteWasmModule: await WebAssembly.compile(wasm), fsBundle: new Blob([bundle]), relaxedDurability: true };
}

async function makeTemplate(folder: string): Promise<void> {
  if (fs.existsSync(path.join(folder, "PG_VERSION"))) return;
  const building = `${folder}.${process.pid}`;
  const db = await PGlite.create({ dataDir: building, extensions: { vector } });
  await db.exec("CREATE EXTENSION IF NOT EXISTS vector");
  await db.close();
  fs.rmSync(folder, { recursive: true, force: true });
  fs.renameSync(building, folder);
}

export async function startPgliteDatabases({ prepare }: PgliteDatabasesOptions = {}): Promise<PgliteDatabases> {
  const root = fs.mkdtempSync(path.join(os.tmpdir(), "chunkpad-pglite-dbs-"));
  // The empty template survives runs on one machine (initdb in WebAssembly takes ~10 s).
  const version = (JSON.parse(fs.readFileSync(path.join(PGLITE_PACKAGE, "package.json"), "utf8")) as { version: string }).version;
  const empty = path.join(os.tmpdir(), `chunkpad-pglite-template-${version}`);
  const [shared] = await Promise.all([loadShared(), makeTemplate(empty)]);
  let template = empty;
  if (prepare !== undefined) {
    // This run's template: the empty one with Chunkpad's schema (made from this checkout's code, so never kept).
    template = path.join(root, "_template");
    fs.cpSync(empty, template, { recursive: true });
    const db = await PGlite.create({ dataDir: template, extensions: { vector }, ...shared });
    const server = new PGLiteSocketServer({ db, port: 0, host: "127.0.0.1", maxConnections: 10 });
    await server.start();
    try {
      await prepare(`postgres://postgres@${server.getServerConn()}/postgres`);
    } finally {
      await server.stop();
      await db.close();
    }
  }
  const databases = new Map<string, Promise<Database>>();

  const open = (name: string): Promise<Database> => {
    let opening = databases.get(name);
    if (opening === undefined) {
      opening = (async () => {
        const folder = path.join(root, name);
        if (!fs.existsSync(folder)) fs.cpSync(template, folder, { recursive: true });
        const db = await PGlite.create({ dataDir: folder, extensions: { vector }, ...shared });
        const server = new PGLiteSocketServer({ db, port: 0, host: "127.0.0.1", maxConnections: 100 });
        await server.start();
        const port = Number(server.getServerConn().split(":").pop());
        return { db, server, port, connections: 0, idle: undefined };
      })();
      databases.set(name, opening);
      opening.catch(() => databases.delete(name));
    }
    return opening;
  };

  const close = async (name: string, database: Database) => {
    databases.delete(name);
    await database.server.stop();
    await database.db.close();
  };

  const sockets = new Set<net.Socket>();
  const front = net.createServer((socket) => {
    sockets.add(socket);
    socket.on("close", () => sockets.delete(socket));
    socket.on("error", () => socket.destroy());
    void (async () => {
      const { database: name, packet } = await readStartup(socket);
      if (!/^[A-Za-z0-9][A-Za-z0-9_]*$/.test(name)) throw new Error(`bad database name ${name}`);
      const database = await open(name);
      database.connections += 1;
      clearTimeout(database.idle);
      const backend = net.connect(database.port, "127.0.0.1");
      let released = false;
      const release = () => {
        if (released) return;
        released = true;
        socket.destroy();
        backend.destroy();
        database.connections -= 1;
        if (database.connections === 0) database.idle = setTimeout(() => void close(name, database), IDLE_MS);
      };
      backend.on("error", release);
      backend.on("close", release);
      socket.on("close", release);
      backend.write(packet);
      socket.pipe(backend);
      backend.pipe(socket);
      socket.resume();
    })().catch(() => socket.destroy());
  });
  await new Promise<void>((resolve) => front.listen(0, "127.0.0.1", resolve));
  const { port } = front.address() as net.AddressInfo;

  return {
    url: `postgres://postgres@127.0.0.1:${port}`,
    async stop() {
      const closed = new Promise<void>((resolve) => front.close(() => resolve()));
      for (const socket of sockets) socket.destroy();
      await closed;
      for (const [name, opening] of [...databases]) {
        const database = await opening.catch(() => undefined);
        if (database !== undefined) {
          clearTimeout(database.idle);
          await close(name, database);
        }
      }
      fs.rmSync(root, { recursive: true, force: true });
    },
  };
}
