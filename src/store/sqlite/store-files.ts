import fs from "node:fs";
import path from "node:path";

/** A SQLite database is its file and the journal files beside it. */
const SQLITE_SIDE_FILES = ["", "-wal", "-shm", "-journal"];

/**
 * Every file a SQLite store keeps that exists now: the database, its WAL, shm and journal, and
 * (for the main store) the approximate vector index beside it. Read without opening the
 * database, so reset works on a damaged one.
 */
export function sqliteStoreFiles(databasePath: string): string[] {
  const files = SQLITE_SIDE_FILES.map((suffix) => `${databasePath}${suffix}`).filter((file) => fs.existsSync(file));
  const directory = path.dirname(databasePath);
  const name = path.basename(databasePath);
  const beside = fs.existsSync(directory) ? fs.readdirSync(directory) : [];
  for (const entry of beside.filter((item) => item.startsWith(`${name}.ivf`) || item.startsWith(`${name}.usearch`)).sort()) files.push(path.join(directory, entry));
  return files;
}

/** Deletes a SQLite store's files (after it was closed). */
export async function removeSqliteStoreFiles(databasePath: string): Promise<void> {
  if (databasePath === ":memory:") return;
  for (const file of sqliteStoreFiles(databasePath)) await fs.promises.rm(file, { recursive: true, force: true });
}
