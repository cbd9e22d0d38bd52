/**
 * Markdown parse cost (Step 1's largest share on markdown, issue 22): CPU time of the markdown
 * parser's tree with GFM's autolink literals always on (as before) and only where one can occur,
 * on the repository's own markdown (links and addresses: parsed with autolinks either way) and on
 * prose without links (CISI abstracts as markdown sections, as much of a notes folder is).
 * Then the blocks Step 1 takes from a file: micromark's whole tree against the line scanner (each
 * block with inline markup parsed on its own, the rest read by the scanner), on the same texts.
 * `npx tsx bench/markdown-parse.ts [rounds=3]`. Prints figures only.
 */
import fs from "node:fs";
import path from "node:path";
import { markdownBlocks, markdownBlocksByTree, parseMarkdown } from "../src/ingest/parsers/markdown.js";
import { parseSmartDocuments } from "../src/search/smart-format.js";

const ROUNDS = Number(process.argv[2] ?? 3);
const repoMarkdown = [path.resolve("README.md"), ...fs.readdirSync("docs/decisions").map((name) => path.resolve("docs/decisions", name))].map((file) => fs.readFileSync(file, "utf8"));
const abstracts = parseSmartDocuments(fs.readFileSync(path.resolve("../shared/ir/cisi/CISI.ALL"), "utf8"));
const prose = Array.from({ length: 100 }, (_, file) =>
  [`# Notes ${file}`, ...abstracts.slice(file * 10, file * 10 + 10).flatMap((abstract, index) => [`## ${abstract.title || `Part ${index + 1}`}`, abstract.text])].join("\n\n"),
);

function cpuMs(texts: string[], autolinks: "always" | "when-possible"): number {
  let best = Number.POSITIVE_INFINITY;
  for (let round = 0; round < ROUNDS; round++) {
    const started = process.cpuUsage();
    for (const text of texts) parseMarkdown(text, { autolinks });
    const used = process.cpuUsage(started);
    best = Math.min(best, (used.user + used.system) / 1000);
  }
  return best;
}

console.log(`markdown parse, CPU ms (best of ${ROUNDS}): autolinks always → only where possible`);
for (const [label, texts] of [["repository markdown (has links)", repoMarkdown], ["prose without links (100 files)", prose]] as const) {
  const megabytes = texts.reduce((sum, text) => sum + Buffer.byteLength(text), 0) / 1e6;
  const always = cpuMs(texts, "always");
  const possible = cpuMs(texts, "when-possible");
  console.log(`  ${label.padEnd(34)} ${megabytes.toFixed(2)} MB: ${always.toFixed(0)} → ${possible.toFixed(0)} ms (${(always / possible).toFixed(1)}×)`);
}

function blocksCpuMs(texts: string[], read: (text: string) => unknown): number {
  let best = Number.POSITIVE_INFINITY;
  for (let round = 0; round < ROUNDS; round++) {
    const started = process.cpuUsage();
    for (const text of texts) read(text);
    const used = process.cpuUsage(started);
    best = Math.min(best, (used.user + used.system) / 1000);
  }
  return best;
}

console.log(`\nmarkdown to blocks, CPU ms (best of ${ROUNDS}): micromark's tree → line scanner`);
for (const [label, texts] of [["repository markdown (has links)", repoMarkdown], ["prose without links (100 files)", prose]] as const) {
  const tree = blocksCpuMs(texts, markdownBlocksByTree);
  const scanned = blocksCpuMs(texts, markdownBlocks);
  console.log(`  ${label.padEnd(34)} ${tree.toFixed(0)} → ${scanned.toFixed(0)} ms (${(tree / scanned).toFixed(1)}×)`);
}
