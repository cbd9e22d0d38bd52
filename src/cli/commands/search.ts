import { cliNotice } from "../shared/next-step.js";
import type { Command } from "commander";
import { toSearchJson, type SearchReport } from "../../index.js";
import type { CliContext } from "../context.js";
import { explainLine, formatRelevance, formatResultNumber, formatResultPlace } from "../shared/render.js";
import { parseIntegerOption, printJson } from "../shared/io.js";
import { createDownloadDisplay, rerankConsentFor } from "../shared/model-download.js";
import { addSearchOptions, searchOptionsOf, type SearchFlags } from "../shared/search-options.js";

export function registerSearchCommand(program: Command, context: CliContext): void {
  addSearchOptions(
    program
      .command("search")
      .description("Search your documents by keyword, by meaning, or both (hybrid, the default once chunks are embedded)")
      .argument("<query...>", 'what to look for; "quoted phrases" and -word to exclude work'),
  )
    .option("--explain", "show each stage's raw numbers (distance, keyword score, ranks)")
    .option("--json", "print every field as JSON on stdout")
    .option("--yes", "agree to download the rerank model if --rerank needs it")
    .option("--per-document <n>", "chunks listed per document; its other matches fold into its first (default from the config: 1; 0 lists every chunk)", parseIntegerOption("--per-document"))
    .action(async (words: string[], flags: SearchFlags & { explain?: boolean; json?: boolean; yes?: boolean; perDocument?: number }) => {
      const query = words.join(" ");
      const download = createDownloadDisplay(context.io, () => "the rerank model");
      const report = await context.chunkpad().search(query, {
        ...searchOptionsOf(flags),
        ...(flags.perDocument === undefined ? {} : { perDocument: flags.perDocument }),
        rerankConsent: rerankConsentFor(context.io, flags.yes === true),
        onRerankModelStatus: (status) => {
          if (status.state === "downloading") download(status);
        },
      });
      for (const notice of report.notices) context.io.stderr.write(`note: ${cliNotice(notice)}\n`);
      if (flags.json) return printJson(context.io, toSearchJson(report));
      context.io.stdout.write(formatSearchReport(report, Boolean(flags.explain)));
    });
}

export function formatSearchReport(report: SearchReport, explain: boolean): string {
  const lines: string[] = [];
  if (explain) {
    const mode = report.fusion ? `${report.mode} (${report.fusion} fusion)` : report.mode;
    const rerank = report.rerank ? ` · reranked ${report.rerank.scored} of ${report.rerank.candidates} with ${report.rerank.model} in ${report.rerank.durationMs} ms` : "";
    lines.push(`mode: ${mode}${report.keywordQuery ? ` · keyword query: ${report.keywordQuery}` : ""}${rerank}`, "");
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
    if (result.moreInDocument && result.moreInDocument.length > 0) {
      const places = result.moreInDocument.slice(0, 4).map((more) => more.location ?? `#${more.ref.slice(more.ref.lastIndexOf("#") + 1)}`);
      const rest = result.moreInDocument.length > 4 ? ", …" : "";
      lines.push(`${indent}+ ${result.moreInDocument.length} more in this document (${places.join(", ")}${rest}); --per-document 0 lists them`);
    }
    if (explain) lines.push(`${indent}${explainLine(result)}`);
    lines.push("");
  });
  return `${lines.join("\n")}`;
}
