import path from "node:path";
import type { MainStore } from "../../src/store/contract.js";
import { openMainStore } from "../../src/store/index.js";
import { databaseUrlFor, ON_POSTGRES } from "./cli.js";

/**
 * The store a home's Chunkpad uses, opened in the test: the SQLite file in its data folder, or
 * (in the integration-postgres project) its database on the test PostgreSQL server.
 */
export async function openHomeStore(home: string): Promise<MainStore> {
  if (!ON_POSTGRES) return openMainStore({ path: path.join(home, "data", "chunkpad.db") });
  const { openPostgresStore } = await import("../../src/store/postgres/main-store.js");
  return openPostgresStore({ url: databaseUrlFor(home), poolSize: 1 });
}
