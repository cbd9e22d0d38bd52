import { InvalidArgumentError, Option, type Command } from "commander";
import { FUSION_METHODS, SEARCH_MODES, type FusionMethod, type SearchMode, type SearchReport, type SearchResult } from "../../index.js";
import type { CliContext } from "../main.js";
import { parseIntegerOption, printJson } from "../io.js";

interface SearchFlags {
  mode?: SearchMode;
  fusion?: FusionMethod;
  minScore?: number;
  maxDistance?: number;
  limit?: number;
  folder: string[];
  document: string[];
  pin: string[];
  explain?: boolean;
  json?: boolean;
}

export function registerSearchCommand(program: Command, context: CliContext): void {
  program
    .command("search")
    .description("Search your documents by keyword, by meaning, or both (hybrid, the default once chunks are embedded)")
    .argument("<query...>", 'what to look for; "quoted phrases" and -word to exclude work')
    .addOption(new Option("--mode <mode>", "keyword, vector or hybrid (default: hybrid when chunks are embedded, else keyword)").choices(SEARCH_MODES))
    .addOption(new Option("--fusion <method>", "how hybrid search combines the two rankings (default from the config: weighted)").choices(FUSION_METHODS))
    .option("--min-score <fraction>", "drop results scoring below this, 0..1 (default from the config: 0.1)", parseFraction("--min-score", 1))
    .option("--max-distance <distance>", "drop vector hits farther than this cosine distance, 0..2", parseFraction("--max-distance", 2))
    .option("--limit <n>", "how many results (default from the config: 10)", parseIntegerOption("--limit"))
    .option("--folder <folder>", "search only this added folder (repeatable)", collect, [])
    .option("--document <document>", "search only this document: file name, path in its folder, or id (repeatable)", collect, [])
    .option("--pin <document>", "put this document's chunks first, at 100% (repeatable)", collect, [])
    .option("--explain", "show each stage's raw numbers (distance, bm25, ranks)")
    .option("--json", "print every field as JSON on stdout")
    .action(async (words: string[], flags: SearchFlags) => {
      const query = words.join(" ");
      const report = await context.chunkpad().search(query, {
        ...(flags.mode ? { mode: flags.mode } : {}),
        ...(flags.fusion ? { fusion: flags.fusion } : {}),
        ...(flags.minScore === undefined ? {} : { minScore: flags.minScore }),
        ...(flags.maxDistance === undefined ? {} : { maxDistance: flags.maxDistance }),
        ...(flags.limit === undefined ? {} : { limit: flags.limit }),
        folders: flags.folder,
        documents: flags.document,
        pins: flags.pin,
      });
      for (const notice of report.notices) context.io.stderr.write(`note: ${notice}\n`);
      if (flags.json) return printJson(context.io, report);
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
    const number = `${String(index + 1).padStart(width)}.`;
    const percent = `${result.relevancePercent}%`.padStart(4);
    const where = [result.relativePath, result.location].filter(Boolean).join(" ");
    const section = result.section ? ` · ${result.section}` : "";
    lines.push(`${number} ${percent}  ${where}${section}${result.pinned ? "  (pinned)" : ""}  ${result.ref}`);
    const indent = " ".repeat(width + 2);
    lines.push(`${indent}${result.snippet}`);
    if (explain) lines.push(`${indent}${explainLine(result)}`);
    lines.push("");
  });
  return `${lines.join("\n")}`;
}

function explainLine(result: SearchResult): string {
  const parts = [`score ${formatNumber(result.score)}`];
  parts.push(result.distance === undefined ? "vector: not found" : `vector: distance ${formatNumber(result.distance)}, rank ${result.vectorRank}`);
  parts.push(result.bm25 === undefined ? "keyword: not found" : `keyword: bm25 ${formatNumber(result.bm25)}, rank ${result.keywordRank}`);
  if (result.pinned) parts.push("pinned");
  if (result.stale) parts.push("edited since embedding (run chunkpad embed)");
  return parts.join(" · ");
}

/** Four decimals, or three significant digits for tiny values (bm25 in a small folder is near 0). */
function formatNumber(value: number): string {
  return value !== 0 && Math.abs(value) < 0.001 ? value.toExponential(2) : value.toFixed(4);
}

function collect(value: string, previous: string[]): string[] {
  return [...previous, value];
}

function parseFraction(name: string, maximum: number) {
  return (value: string): number => {
    const number = Number(value);
    if (value.trim() === "" || !Number.isFinite(number) || number < 0 || number > maximum) {
      throw new InvalidArgumentError(`${name} takes a number from 0 to ${maximum}, not "${value}"`);
    }
    return number;
  };
}
