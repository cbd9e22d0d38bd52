// EXPLAIN ANALYZE of the PostgreSQL store's keyword query: `npx tsx bench/postgres-keyword-explain.ts <postgres-url> word...`
// prints the plan of the all-words and the any-word query (prefixes on, limit 40) over whatever
// the database holds (e.g. after bench/cisi-eval.ts with CHUNKPAD_DATABASE_URL set). Prints only.
import pg from "pg";
import { createKeywordMethods } from "../src/store/postgres/keyword.js";
const pool = new pg.Pool({ connectionString: process.argv[2], max: 1 });
const wrapped = {
  query: async (text: string, values?: unknown[]) => {
    if (text.includes("WITH stats AS")) {
      const plan = await pool.query(`EXPLAIN (ANALYZE) ${text}`, values);
      console.log(plan.rows.map((row: Record<string, string>) => row["QUERY PLAN"]).join("\n"));
    }
    return pool.query(text, values);
  },
} as unknown as pg.Pool;
const methods = createKeywordMethods(wrapped);
const words = process.argv.slice(3);
for (const match of ["all", "any"] as const) {
  console.log(`--- ${match}: ${words.join(" ")}`);
  await methods.keywordSearch({ terms: words.map((word) => ({ word, prefix: true })), match, phrases: [], exclude: [] }, { limit: 40 });
}
await pool.end();
