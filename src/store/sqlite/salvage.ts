import fs from "node:fs";
import { openSqlite, type SqliteDatabase } from "./driver.js";
import { describeError } from "../../core/errors.js";

export interface SalvagedFolder {
  rootPath: string;
  chunksRootPath: string;
}

/**
 * The added folders as far as a database that may be damaged still tells: opened read-only,
 * without migrations or extensions, reading one small table. Looking changes nothing on disk:
 * the -wal and -shm files a read-only open of a WAL database creates are removed again. A database too damaged for that
 * gives its reason instead (`chunkpad reset` then relies on the folder list beside it).
 */
export function salvageFolders(databasePath: string): { folders: SalvagedFolder[] } | { problem: string } {
  const createdByUs = ["-wal", "-shm"].map((suffix) => `${databasePath}${suffix}`).filter((file) => !fs.existsSync(file));
  let db: SqliteDatabase | undefined;
  try {
    db = openSqlite(databasePath, { readOnly: true });
    const rows = db.prepare<[], { root_path: string; chunks_root_path: string }>("SELECT root_path, chunks_root_path FROM indexed_folders").all();
    return { folders: rows.map((row) => ({ rootPath: row.root_path, chunksRootPath: row.chunks_root_path })) };
  } catch (error) {
    return { problem: describeError(error) };
  } finally {
    db?.close();
    for (const file of createdByUs) fs.rmSync(file, { force: true });
  }
}
