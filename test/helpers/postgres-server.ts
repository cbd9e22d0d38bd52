import { execFileSync, spawnSync } from "node:child_process";
import fs from "node:fs";
import net from "node:net";
import os from "node:os";
import path from "node:path";
import { emptyDatabase } from "../../src/store/postgres/pglite-server.js";

/**
 * A throwaway PostgreSQL cluster (Debian's server, without pgvector: bookworm has no package
 * for it) in a temp folder: initdb, pg_ctl start on a free port, trust on the loopback; stopped
 * and deleted afterwards. The server refuses to run as root, so it runs as the postgres user.
 */
export interface PostgresCluster {
  url: string;
  /** Empties the database (a fresh store for the next test). */
  reset(): Promise<void>;
  stop(): Promise<void>;
}

/** The newest installed server's bin folder, or null when none is installed (apt-get install postgresql). */
export function postgresBin(): string | null {
  const root = "/usr/lib/postgresql";
  if (!fs.existsSync(root)) return null;
  const versions = fs.readdirSync(root).filter((entry) => fs.existsSync(path.join(root, entry, "bin", "initdb"))).sort((a, b) => Number(b) - Number(a));
  return versions[0] === undefined ? null : path.join(root, versions[0], "bin");
}

async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = net.createServer();
    server.listen(0, "127.0.0.1", () => {
      const { port } = server.address() as net.AddressInfo;
      server.close(() => resolve(port));
    });
    server.on("error", reject);
  });
}

function asPostgresUser(command: string, args: string[]): string[] {
  // As root, run as the postgres user; as anyone else, as oneself.
  return process.getuid?.() === 0 ? ["runuser", "-u", "postgres", "--", command, ...args] : [command, ...args];
}

export async function startPostgresCluster(bin: string): Promise<PostgresCluster> {
  const directory = fs.mkdtempSync(path.join(os.tmpdir(), "chunkpad-pg-cluster-"));
  if (process.getuid?.() === 0) execFileSync("chown", ["postgres:postgres", directory]);
  const data = path.join(directory, "data");
  const port = await freePort();
  const run = (command: string, args: string[]) => {
    const [program, ...rest] = asPostgresUser(path.join(bin, command), args);
    const result = spawnSync(program as string, rest, { encoding: "utf8" });
    if (result.status !== 0) throw new Error(`${command} failed: ${result.stderr || result.stdout}`);
  };
  run("initdb", ["-D", data, "-U", "postgres", "--auth=trust", "--no-sync", "-E", "UTF8"]);
  run("pg_ctl", ["-D", data, "-l", path.join(directory, "log"), "-w", "-o", `-p ${port} -k ${directory} -c listen_addresses=127.0.0.1 -c fsync=off`, "start"]);
  const url = `postgres://postgres@127.0.0.1:${port}/postgres`;
  return {
    url,
    reset: () => emptyDatabase(url),
    async stop() {
      try {
        run("pg_ctl", ["-D", data, "-m", "immediate", "-w", "stop"]);
      } finally {
        fs.rmSync(directory, { recursive: true, force: true });
      }
    },
  };
}
