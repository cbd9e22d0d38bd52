// PGlite + pgvector served over the PostgreSQL wire protocol until Ctrl-C, for the benches that
// want a server with pgvector where none is installable (Debian has no pgvector package):
// `npx tsx bench/pglite-serve.ts [data-folder]` prints the URL to give bench/postgres-store.ts or
// CHUNKPAD_DATABASE_URL. PGlite is PostgreSQL 17 compiled to WebAssembly, one session for all
// connections: its figures are an upper bound for a real server's, not a measure of one.
import { PGlite } from "@electric-sql/pglite";
import { vector } from "@electric-sql/pglite-pgvector";
import { PGLiteSocketServer } from "@electric-sql/pglite-socket";

const dataDir = process.argv[2];
const db = await PGlite.create({ ...(dataDir === undefined ? {} : { dataDir }), extensions: { vector } });
const server = new PGLiteSocketServer({ db, port: 0, host: "127.0.0.1", maxConnections: 100 });
await server.start();
console.log(`postgres://postgres@${server.getServerConn()}/postgres?pool_size=1`);
process.on("SIGINT", () => void server.stop().then(() => db.close()).then(() => process.exit(0)));
process.on("SIGTERM", () => void server.stop().then(() => db.close()).then(() => process.exit(0)));
