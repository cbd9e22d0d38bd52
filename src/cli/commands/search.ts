import type { Command } from "commander";
import { toSearchJson, type SearchReport, type SearchResult } from "../../index.js";
import type { CliContext } from "../main.js";
import { formatRelevance, formatResultNumber, formatResultPlace } from "../format-results.js";
import { printJson } from "../io.js";
import { addSearchOptions, searchOptionsOf, type SearchFlags } from "../search-options.js";

export function registerSearchCommand(program: Command, context: CliContext): void {
  addSearchOptions(
    program
      .command("search")
      .description("Search your documents by keyword, by meaning, or both (hybrid, the default once chunks are embedded)")
      .argument("<query...>", 'what to look for; "quoted phrases" and -word to exclude work'),
  )
    .option("--explain", "show each stage's raw numbers (distance, bm25, ranks)")
    .option("--json", "print every field as JSON on stdout")
    .action(async (words: string[], flags: SearchFlags & { explain?: boolean; json?: boolean }) => {
      const query = words.join(" ");
      const report = await context.chunkpad().search(query, searchOptionsOf(flags));
      for (const notice of report.notices) context.io.stderr.write(`note: ${notice}\n`);
      if (flags.json) return printJson(context.io, toSearchJson(report));
      context.io.stdout.write(formatSearchReport(report, Boolean(flags.explain)));
    });
}

export function formatSearchReport(report: SearchReport, explain: boolean): string {
  const lines: string[] = [];
  if (explain) {
    const mode = report.fusion ? `${report.mode} (${report.fusion} fusion)` : report.mode;
    lines.push(`mode: ${mode}${report.keywordQuery ? ` · keyword query: ${report.keywordQuery}` : ""}`, "");
  }
  if (report.results.length === 0) {
    lines.push(`No results for "${report.query}". Try other or fewer words, or a lower --min-score.`);
    return `${lines.join("\n")}\n`;
  }
  const width = String(report.results.length).length;
  report.results.forEach((result, index) => {
    const pinned = result.pinned ? "  (pinned)" : "";
    lines.push(`${formatResultNumber(index, width)} ${formatRelevance(result)}  ${formatResultPlace(result)}${pinned}  ${result.ref}`);
    const indent = " ".repeat(width + 2);
    lines.push(`${indent}${result.snippet}`);
    if (explain) lines.push(`${indent}${explainLine(result)}`);
    lines.push("");
  });
  return `${lines.join("\n")}`;
}

/** One result's raw numbers (--explain), shared with the chunks bar of `ask`. */
export function explainLine(result: SearchResult): string {
  const parts = [`score ${formatNumber(result.score)}`];
  const vector = result.notEmbedded ? "vector: not embedded (scored at its keyword rank)" : "vector: not found";
  parts.push(result.distance === undefined ? vector : `vector: distance ${formatNumber(result.distance)}, rank ${result.vectorRank}`);
  parts.push(result.bm25 === undefined ? "keyword: not found" : `keyword: bm25 ${formatNumber(result.bm25)}, rank ${result.keywordRank}`);
  if (result.pinned) parts.push("pinned");
  if (result.stale) parts.push("edited since embedding (run chunkpad embed)");
  return parts.join(" · ");
}

/** Four decimals, or three significant digits for tiny values (bm25 in a small folder is near 0). */
function formatNumber(value: number): string {
  return value !== 0 && Math.abs(value) < 0.001 ? value.toExponential(2) : value.toFixed(4);
}
