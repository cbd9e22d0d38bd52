import type { SqliteDatabase } from "./database.js";

const writeVersions = new WeakMap<SqliteDatabase, () => string>();

/**
 * A value that changes whenever the database may have changed: after a write through this
 * connection (total_changes) or through any other (data_version). Caches of figures derived
 * from the tables (row counts, coverage) stay valid while it stays the same.
 */
export function createWriteVersion(db: SqliteDatabase): () => string {
  // One per connection, shared by every cache on it (keyword, vector and review counts).
  let version = writeVersions.get(db);
  if (version === undefined) {
    const dataVersion = db.prepare<[], number>("PRAGMA data_version").pluck();
    const totalChanges = db.prepare<[], number>("SELECT total_changes()").pluck();
    version = () => `${dataVersion.get() ?? 0}:${totalChanges.get() ?? 0}`;
    writeVersions.set(db, version);
  }
  return version;
}

/** A map of derived figures emptied whenever the database may have changed. */
export function createVersionedCache<Value>(version: () => string, maxEntries = 10_000): { get(key: string, compute: () => Value): Value } {
  let seen = "";
  const entries = new Map<string, Value>();
  return {
    get(key, compute) {
      const now = version();
      if (now !== seen) {
        seen = now;
        entries.clear();
      }
      if (entries.has(key)) return entries.get(key) as Value;
      const value = compute();
      if (entries.size >= maxEntries) entries.clear();
      entries.set(key, value);
      return value;
    },
  };
}
