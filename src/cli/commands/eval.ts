import type { Command } from "commander";
import { EVALUATION_METRICS, EVALUATION_MODES, parseEvaluationModes, type EvaluationReport } from "../../index.js";
import type { CliContext } from "../context.js";
import { printJson } from "../shared/io.js";
import { createProgressBar } from "../shared/progress.js";

interface EvalFlags {
  queries: string;
  qrels: string;
  folder: string[];
  modes?: string;
  json?: boolean;
}

export function registerEvalCommand(program: Command, context: CliContext): void {
  program
    .command("eval")
    .description("Measure search quality on BEIR-style queries and relevance judgments: nDCG@10, recall@10, recall@100, MRR@10 per mode")
    .requiredOption("--queries <file>", 'queries: JSON lines {"_id","text"} or TSV id<TAB>text')
    .requiredOption("--qrels <file>", "judgments: query-id<TAB>corpus-id<TAB>score; a corpus id is a document's file name without extension")
    .option("--folder <folder>", "search only this added folder (repeatable)", collect, [])
    .option("--modes <list>", `comma-separated, from ${EVALUATION_MODES.join(", ")}`, EVALUATION_MODES.join(","))
    .option("--json", "print the figures as JSON on stdout")
    .action(async (flags: EvalFlags) => {
      const modes = parseEvaluationModes(flags.modes ?? "");
      const progress = createProgressBar(context.io.stderr as NodeJS.WriteStream, Boolean(context.io.stderr.isTTY) && !flags.json);
      let report: EvaluationReport;
      try {
        report = await context.chunkpad().evaluate({
          queriesPath: flags.queries,
          qrelsPath: flags.qrels,
          modes,
          folders: flags.folder,
          onProgress: (event) => progress.update(event.done, event.total, event.mode),
        });
      } finally {
        progress.stop();
      }
      for (const mode of report.modes) if (mode.skipped) context.io.stderr.write(`note: ${mode.mode} skipped: ${mode.skipped}\n`);
      if (flags.json) return printJson(context.io, report);
      context.io.stdout.write(formatEvaluation(report));
    });
}

export function formatEvaluation(report: EvaluationReport): string {
  const header = ["mode", ...EVALUATION_METRICS];
  const rows = report.modes.map((mode) => [mode.mode, ...EVALUATION_METRICS.map((name) => (mode.metrics ? mode.metrics[name].toFixed(4) : "skipped"))]);
  const widths = header.map((title, column) => Math.max(title.length, ...rows.map((row) => (row[column] ?? "").length)));
  const render = (cells: string[]) => cells.map((cell, column) => (column === 0 ? cell.padEnd(widths[column] ?? 0) : cell.padStart(widths[column] ?? 0))).join("  ");
  const lines = [
    `${report.judgedQueryCount} judged queries (of ${report.queryCount})`,
    render(header),
    ...rows.map(render),
  ];
  return `${lines.join("\n")}\n`;
}

function collect(value: string, previous: string[]): string[] {
  return [...previous, value];
}
