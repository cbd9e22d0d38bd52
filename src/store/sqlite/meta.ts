import type { SqliteDatabase } from "./database.js";

/** Keys the app uses in `meta`; anything else is free-form. */
export { META_KEYS } from "../contract.js";

export interface MetaStore {
  getMeta(key: string): string | null;
  setMeta(key: string, value: string): void;
  deleteMeta(key: string): boolean;
}

export function createMetaStore(db: SqliteDatabase): MetaStore {
  const get = db.prepare<[string], string>("SELECT value FROM meta WHERE key = ?").pluck();
  const set = db.prepare("INSERT INTO meta (key, value) VALUES (?, ?) ON CONFLICT (key) DO UPDATE SET value = excluded.value");
  const remove = db.prepare("DELETE FROM meta WHERE key = ?");
  return {
    getMeta: (key) => get.get(key) ?? null,
    setMeta: (key, value) => {
      set.run(key, value);
    },
    deleteMeta: (key) => remove.run(key).changes > 0,
  };
}
