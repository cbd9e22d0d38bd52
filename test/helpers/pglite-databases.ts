import fs from "node:fs";
import net from "node:net";
import os from "node:os";
import path from "node:path";
import { PGlite } from "@electric-sql/pglite";
import { vector } from "@electric-sql/pglite-pgvector";
import { PGLiteSocketServer } from "@electric-sql/pglite-socket";
import { pgliteShared, pgliteTemplate } from "../../src/store/postgres/pglite-server.js";
import { RELEASE_PREFIX } from "./cli.js";

/**
 * Many PostgreSQL databases behind one port, for running the integration tests against the
 * PostgreSQL store: PGlite (+ pgvector) holds one database per instance and one session for all
 * its connections, so each database name a client asks for (in the startup message) gets its own
 * PGlite, served over the wire protocol by pglite-socket, and the connection is piped to it.
 * A new database is a copy of a template folder (~1.5 s a database); a
 * database nobody has been connected to for a while is closed (its folder stays, so the next
 * connection reopens it). Test-only: PGlite is a devDependency.
 *
 * What a database costs is most of what the integration tests cost on PostgreSQL (a test home is
 * a database, and there are a few hundred), so: every PGlite shares one compiled WebAssembly
 * module and file bundle (instead of compiling its own), skips the flush after every statement
 * (`relaxedDurability`: a test database need not survive a crash of this process), and starts
 * from a template that already holds Chunkpad's schema when `prepare` makes one (decision 067).
 *
 * A database nobody has connected to for `idleMs` is not closed but recycled (decision 081): its
 * PGlite is put back as the template was (session state discarded, every table emptied and the
 * template's rows put back, then `reset` run, then the schema compared with the template's) and
 * handed to the next new name. Starting a PGlite costs ≈ 0.8 s of this process's one thread, during
 * which it answers no other database; recycling one costs ≈ 0.05 s. A name that was recycled is
 * refused with an error that says so, never answered with an empty database. A PGlite that cannot
 * be put back (a test dropped a table, say) is closed instead, as are idle ones beyond `spare`.
 * A client that asks for the database `release_<name>` says `<name>` is done with (its test file
 * has ended, `releaseTestDatabases`): it is recycled as soon as it has no connection, not `idleMs`
 * later, so the next files' homes take it instead of starting PGlites of their own.
 */
export interface PgliteDatabasesOptions {
  /** Run once on the template (at its URL) before any database is copied from it: Chunkpad's migrations. */
  prepare?: (url: string) => Promise<void>;
  /**
   * SQL that undoes what the application may change in a schema at run time, run when a database
   * is recycled (after its tables are emptied), e.g. dropping a column added on first use.
   */
  reset?: string;
  /** How long a database may go without a connection before it is recycled (default 60 s). */
  idleMs?: number;
  /** How many recycled PGlites wait for a new name at most; idle ones beyond are closed (default 16). */
  spare?: number;
}

export interface PgliteDatabasesStats {
  /** PGlites started (each ≈ 0.8 s of CPU). */
  started: number;
  /** Databases handed a recycled PGlite instead. */
  reused: number;
  /** PGlites put back as the template was, once their database went idle. */
  putBack: number;
  /** Names with a database open now (in use, or idle for less than `idleMs`). */
  live: number;
  /** Recycled PGlites waiting for a new name. */
  spare: number;
  /** PGlites closed: beyond `spare`, or not recyclable. */
  closed: number;
  /** Why the last PGlite that could not be put back could not. */
  lastRecycleError?: string;
}

export interface PgliteDatabases {
  /** postgres://postgres@127.0.0.1:port — append `/<database>` (letters, digits, _). */
  url: string;
  stats(): PgliteDatabasesStats;
  stop(): Promise<void>;
}

interface Database {
  db: PGlite;
  server: PGLiteSocketServer;
  port: number;
  folder: string;
  connections: number;
  idle: NodeJS.Timeout | undefined;
  /** Its test file has ended (`release_<name>`): recycled as soon as its last connection closes. */
  released?: boolean;
}

const SSL_REQUEST = 80877103;
const CANCEL_REQUEST = 80877102;
// Longer than a pool keeps an idle connection (src/store/postgres/connection.ts: 30 s), so a
// running `serve` whose pool let its connection go is not taken for a home that is done.
const IDLE_MS = 60_000;
// A PGlite holds ≈ 76 MB with the template's 32 MB of shared buffers (≈ 180 MB with PostgreSQL's
// default 128 MB), so keeping 16 idle is cheaper than starting them again (decision 082).
const SPARE = 16;
/** A test database is small: PostgreSQL's default 128 MB of shared buffers is memory no test uses. */
const SETTINGS = "shared_buffers = 32MB\n";
/** The schema the application sees: recycling puts it back as in the template. */
const SCHEMA = "public";
/** The template's rows, copied aside when the template is made, put back when a database is recycled. */
const PRISTINE = "chunkpad_test_pristine";
/** And where the template left each sequence. */
const PRISTINE_SEQUENCES = "chunkpad_test_pristine_sequences";

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

/** A data folder with an empty database and pgvector: PGlite's template tarball, unpacked. */
async function makeTemplate(folder: string): Promise<void> {
  const db = await PGlite.create({ dataDir: folder, loadDataDir: await pgliteTemplate(), extensions: { vector }, ...(await pgliteShared()) });
  await db.close();
}

/** What a recycled database must match: the tables, columns, types and indexes of the application's schema. */
async function schemaShape(db: PGlite): Promise<string> {
  const result = await db.query<{ shape: string | null }>(
    `SELECT (SELECT string_agg(table_name || '.' || column_name || ' ' || udt_name, ',' ORDER BY table_name, column_name) FROM information_schema.columns WHERE table_schema = $1)
      || ' | ' || (SELECT coalesce(string_agg(indexdef, ',' ORDER BY indexdef), '') FROM pg_indexes WHERE schemaname = $1) AS shape`,
    [SCHEMA],
  );
  return result.rows[0]?.shape ?? "";
}

/** Copies the template's rows aside (in a schema the application never reads), so recycling can put them back. */
async function keepPristineRows(db: PGlite): Promise<void> {
  const tables = (await db.query<{ name: string }>("SELECT tablename AS name FROM pg_tables WHERE schemaname = $1 ORDER BY tablename", [SCHEMA])).rows;
  await db.exec(`CREATE SCHEMA ${PRISTINE}; CREATE SCHEMA ${PRISTINE_SEQUENCES}`);
  for (const { name } of tables) await db.exec(`CREATE TABLE ${PRISTINE}."${name}" AS TABLE ${SCHEMA}."${name}"`);
  await db.query(`CREATE TABLE ${PRISTINE_SEQUENCES}.state AS SELECT sequencename AS name, last_value FROM pg_sequences WHERE schemaname = $1`, [SCHEMA]);
}

/** Puts a database back as the template was, or throws (the caller then closes it). */
async function recycle(db: PGlite, reset: string | undefined, shape: string): Promise<void> {
  // A client that went away mid-transaction leaves the one session in it; then its prepared
  // statements, settings, advisory locks and temporary tables go.
  await db.exec("ROLLBACK");
  await db.exec("DISCARD ALL");
  const tables = (await db.query<{ name: string }>("SELECT tablename AS name FROM pg_tables WHERE schemaname = $1 ORDER BY tablename", [PRISTINE])).rows.map((row) => row.name);
  await db.transaction(async (tx) => {
    if (tables.length > 0) await tx.exec(`TRUNCATE ${tables.map((name) => `${SCHEMA}."${name}"`).join(", ")} RESTART IDENTITY CASCADE`);
    for (const name of tables) await tx.exec(`INSERT INTO ${SCHEMA}."${name}" SELECT * FROM ${PRISTINE}."${name}"`);
    // Each sequence where the template left it: the next id a home gets is the template's next id.
    await tx.query(
      `SELECT setval(format('%I.%I', $1::text, kept.name), coalesce(kept.last_value, seq.start_value), kept.last_value IS NOT NULL)
       FROM ${PRISTINE_SEQUENCES}.state kept JOIN pg_sequences seq ON seq.schemaname = $1 AND seq.sequencename = kept.name`,
      [SCHEMA],
    );
    if (reset !== undefined) await tx.exec(reset);
  });
  const now = await schemaShape(db);
  if (now !== shape) throw new Error(`the recycled database's schema differs from the template's:\n${now}\n${shape}`);
}

/** An ErrorResponse (FATAL, 3D000 invalid_catalog_name) for a client asking for a database that is gone. */
function fatal(message: string): Buffer {
  const fields = Buffer.from(`SFATAL\0VFATAL\0C3D000\0M${message}\0\0`, "utf8");
  const header = Buffer.alloc(5);
  header.write("E", 0);
  header.writeInt32BE(fields.length + 4, 1);
  return Buffer.concat([header, fields]);
}

export async function startPgliteDatabases({ prepare, reset, idleMs = IDLE_MS, spare = SPARE }: PgliteDatabasesOptions = {}): Promise<PgliteDatabases> {
  const root = fs.mkdtempSync(path.join(os.tmpdir(), "chunkpad-pglite-dbs-"));
  // This run's template: an empty database (unpacked from the tarball kept beside node_modules,
  // not made by initdb, decision 099), with Chunkpad's schema when `prepare` makes it (from this
  // checkout's code, so never kept), and its rows copied aside for recycling.
  const template = path.join(root, "_template");
  const [shared] = await Promise.all([pgliteShared(), makeTemplate(template)]);
  fs.appendFileSync(path.join(template, "postgresql.auto.conf"), SETTINGS);
  const db = await PGlite.create({ dataDir: template, extensions: { vector }, ...shared });
  if (prepare !== undefined) {
    const server = new PGLiteSocketServer({ db, port: 0, host: "127.0.0.1", maxConnections: 10 });
    await server.start();
    try {
      await prepare(`postgres://postgres@${server.getServerConn()}/postgres`);
    } finally {
      await server.stop();
    }
  }
  await keepPristineRows(db);
  await db.close();
  let shape: string | undefined;
  const stats: PgliteDatabasesStats = { started: 0, reused: 0, putBack: 0, live: 0, spare: 0, closed: 0 };
  const databases = new Map<string, Promise<Database>>();
  /** Each live or closed database's folder (a recycled PGlite keeps the folder of the name it was made for). */
  const folders = new Map<string, string>();
  const spares: Database[] = [];
  const recycledNames = new Set<string>();

  const start = async (name: string): Promise<Database> => {
    const folder = folders.get(name) ?? path.join(root, name);
    if (!fs.existsSync(folder)) fs.cpSync(template, folder, { recursive: true });
    folders.set(name, folder);
    const db = await PGlite.create({ dataDir: folder, extensions: { vector }, ...shared });
    shape ??= await schemaShape(db);
    const server = new PGLiteSocketServer({ db, port: 0, host: "127.0.0.1", maxConnections: 100 });
    await server.start();
    stats.started += 1;
    return { db, server, port: Number(server.getServerConn().split(":").pop()), folder, connections: 0, idle: undefined };
  };

  const open = (name: string): Promise<Database> => {
    let opening = databases.get(name);
    if (opening === undefined) {
      if (recycledNames.has(name)) {
        return Promise.reject(new Error(`database "${name}" was recycled for another test (test/helpers/pglite-databases.ts): its test file had ended, or it had no connection for ${idleMs} ms; a test that comes back to a home later must keep a connection open, or the idle time must grow`));
      }
      const recycled = spares.pop();
      if (recycled !== undefined) {
        stats.reused += 1;
        folders.set(name, recycled.folder);
        opening = Promise.resolve(recycled);
      } else {
        opening = start(name);
      }
      databases.set(name, opening);
      opening.catch(() => databases.delete(name));
    }
    return opening;
  };

  const close = async (database: Database) => {
    stats.closed += 1;
    await database.server.stop();
    await database.db.close();
  };

  /** No connection for `idleMs`: recycled for the next new name while there is room, else closed (its folder stays). */
  const retire = async (name: string, database: Database) => {
    databases.delete(name);
    // The next name it is handed to keeps it until its own file ends.
    database.released = false;
    if (spares.length < spare && shape !== undefined) {
      recycledNames.add(name);
      try {
        await recycle(database.db, reset, shape);
        stats.putBack += 1;
        spares.push(database);
        return;
      } catch (error) {
        stats.lastRecycleError = (error as Error).message;
        await close(database);
        fs.rmSync(database.folder, { recursive: true, force: true });
        return;
      }
    }
    await close(database);
  };

  /** A database whose test file has ended: recycled now if nothing is connected, else when the last connection closes. */
  const releaseDatabase = async (name: string) => {
    const database = await databases.get(name)?.catch(() => undefined);
    if (database === undefined || databases.get(name) === undefined) return;
    database.released = true;
    if (database.connections > 0) return;
    clearTimeout(database.idle);
    await retire(name, database);
  };

  const sockets = new Set<net.Socket>();
  const front = net.createServer((socket) => {
    sockets.add(socket);
    socket.on("close", () => sockets.delete(socket));
    socket.on("error", () => socket.destroy());
    void (async () => {
      const { database: name, packet } = await readStartup(socket);
      if (!/^[A-Za-z0-9][A-Za-z0-9_]*$/.test(name)) throw new Error(`bad database name ${name}`);
      if (name.startsWith(RELEASE_PREFIX)) {
        await releaseDatabase(name.slice(RELEASE_PREFIX.length));
        socket.end(fatal("released"));
        return;
      }
      const database = await open(name).catch((error: unknown) => {
        // Said here too: the client's error may end up in a server's log the test never shows.
        console.error(`test PostgreSQL: ${(error as Error).message}`);
        socket.end(fatal((error as Error).message));
        throw error;
      });
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
        if (database.connections === 0) database.idle = setTimeout(() => void retire(name, database), database.released === true ? 0 : idleMs);
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
    stats: () => ({ ...stats, live: databases.size, spare: spares.length }),
    async stop() {
      const closed = new Promise<void>((resolve) => front.close(() => resolve()));
      for (const socket of sockets) socket.destroy();
      await closed;
      for (const [name, opening] of [...databases]) {
        const database = await opening.catch(() => undefined);
        if (database !== undefined) {
          clearTimeout(database.idle);
          databases.delete(name);
          await close(database);
        }
      }
      for (const database of spares.splice(0)) await close(database);
      fs.rmSync(root, { recursive: true, force: true });
    },
  };
}
