import type pg from "pg";
import { SEARCH_TEXT_VERSION } from "../../core/searchable-text.js";
import { inTransaction } from "./connection.js";
import { rebuildKeywordIndex } from "./keyword-index.js";

/** meta key: the SEARCH_TEXT_VERSION the keyword index's words were made with. */
const SEARCH_TEXT_KEY = "keyword.searchText";

/**
 * The words of the index are made in Node by core/searchable-text.ts; when that changes
 * (decisions 041, 048, 049), an index made before holds words no query now looks for, so it is
 * rebuilt once from the chunks (nothing is lost), as SQLite's migrations 6 and 7 do. A database
 * that never recorded a version was indexed before the first change (CJK words only).
 */
export async function rebuildAfterSearchTextChange(pool: pg.Pool): Promise<void> {
  const current = String(SEARCH_TEXT_VERSION);
  const read = async (client: pg.Pool | pg.PoolClient) => (await client.query<{ value: string }>("SELECT value FROM meta WHERE key = $1", [SEARCH_TEXT_KEY])).rows[0]?.value;
  if ((await read(pool)) === current) return;
  await inTransaction(pool, async (client) => {
    // Writers wait; another server opening at the same moment finds the version recorded.
    await client.query("LOCK TABLE chunks IN SHARE ROW EXCLUSIVE MODE");
    if ((await read(client)) === current) return;
    const holdsChunks = (await client.query("SELECT 1 FROM chunks LIMIT 1")).rows.length > 0;
    if (holdsChunks) await rebuildKeywordIndex(client);
    await client.query("INSERT INTO meta (key, value) VALUES ($1, $2) ON CONFLICT (key) DO UPDATE SET value = EXCLUDED.value", [SEARCH_TEXT_KEY, current]);
  });
}
