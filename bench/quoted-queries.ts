// What quoting does to keyword search, on a collection made by `npx tsx bench/cisi-eval.ts --keep`:
// `npx tsx bench/quoted-queries.ts /tmp/chunkpad-cisi-XXXX`. Runs every judged query as typed,
// with a stray `"` at its end, wholly quoted, and with its first word quoted, and prints nDCG@10,
// recall@100 and how many queries found nothing. Prints figures only; asserts nothing.
import fs from "node:fs";
import path from "node:path";
import { openChunkpad } from "../src/index.js";

const work = process.argv[2];
if (!work) {
  console.error("usage: npx tsx bench/quoted-queries.ts <folder kept by bench/cisi-eval.ts --keep>");
  process.exit(2);
}

const variants: Record<string, (query: string) => string> = {
  "as typed": (query) => query,
  'stray "': (query) => `${query}"`,
  "all quoted": (query) => `"${query.replaceAll('"', "")}"`,
  "first word quoted": (query) => query.replace(/[\p{L}\p{N}]{4,}/u, (word) => `"${word}"`),
};

const queries = fs
  .readFileSync(path.join(work, "queries.jsonl"), "utf8")
  .split("\n")
  .filter((line) => line.trim() !== "")
  .map((line) => JSON.parse(line) as { _id: string; text: string });
const chunkpad = openChunkpad({ env: { ...process.env, CHUNKPAD_HOME: path.join(work, "home") } });
try {
  console.log("variant              nDCG@10  recall@100  empty");
  for (const [name, change] of Object.entries(variants)) {
    const file = path.join(work, `queries-${name.replaceAll(/\W+/g, "-")}.jsonl`);
    fs.writeFileSync(file, queries.map((query) => JSON.stringify({ _id: query._id, text: change(query.text) })).join("\n"));
    const report = await chunkpad.evaluate({ queriesPath: file, qrelsPath: path.join(work, "qrels.tsv"), modes: ["keyword"] });
    let empty = 0;
    for (const query of queries) if ((await chunkpad.search(change(query.text), { mode: "keyword", limit: 10 })).results.length === 0) empty += 1;
    const metrics = report.modes[0]?.metrics;
    console.log(`${name.padEnd(19)}  ${(metrics?.["nDCG@10"] ?? 0).toFixed(4).padStart(7)}  ${(metrics?.["recall@100"] ?? 0).toFixed(4).padStart(10)}  ${String(empty).padStart(5)}/${queries.length}`);
  }
} finally {
  await chunkpad.close();
}
