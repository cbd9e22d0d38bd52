// Does the first result depend on --limit? On a collection made by `npx tsx bench/cisi-eval.ts --keep`:
// `npx tsx bench/limit-stability.ts /tmp/chunkpad-cisi-XXXX [keyword|hybrid]`. Searches every
// query with --limit 1 to 20 and counts the queries whose first result (or first ten, where the
// limit allows) differs between limits. Prints figures only; asserts nothing.
import fs from "node:fs";
import path from "node:path";
import { openChunkpad, type SearchMode } from "../src/index.js";

const work = process.argv[2];
const mode = (process.argv[3] ?? "keyword") as SearchMode;
if (!work) {
  console.error("usage: npx tsx bench/limit-stability.ts <folder kept by bench/cisi-eval.ts --keep> [keyword|hybrid]");
  process.exit(2);
}
const queries = fs
  .readFileSync(path.join(work, "queries.jsonl"), "utf8")
  .split("\n")
  .filter((line) => line.trim() !== "")
  .map((line) => (JSON.parse(line) as { text: string }).text);
const chunkpad = openChunkpad({ env: { ...process.env, CHUNKPAD_HOME: path.join(work, "home") } });
try {
  let firstDiffers = 0;
  let prefixDiffers = 0;
  for (const query of queries) {
    const lists: string[][] = [];
    for (let limit = 1; limit <= 20; limit++) lists.push((await chunkpad.search(query, { mode, limit })).results.map((result) => result.ref));
    const longest = lists[lists.length - 1] ?? [];
    if (new Set(lists.map((list) => list[0])).size > 1) firstDiffers += 1;
    if (lists.some((list) => list.some((ref, index) => longest[index] !== ref))) prefixDiffers += 1;
  }
  console.log(`${mode}: ${queries.length} queries, --limit 1..20: first result differs for ${firstDiffers}; the first k results are not the first k of --limit 20 for ${prefixDiffers}`);
} finally {
  await chunkpad.close();
}
