import { InvalidArgumentError, type Command } from "commander";
import { DEFAULT_WRONGFUL_RATE, EVALUATION_METRICS, EVALUATION_MODES, parseEvaluationModes, type EvaluationReport, type GuardrailCalibration } from "../../index.js";
import type { CliContext } from "../context.js";
import { printJson } from "../shared/io.js";
import { createProgressBar } from "../shared/progress.js";

interface EvalFlags {
  queries: string;
  qrels: string;
  folder: string[];
  modes?: string;
  json?: boolean;
  calibrate?: boolean;
  wrongfulRate?: number;
  dryRun?: boolean;
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
    .option("--calibrate", "instead: set the \"I don't know\" floor (generation.minSimilarity) from these questions, which the documents answer")
    .option("--wrongful-rate <fraction>", `with --calibrate: the share of these questions the floor may refuse (default ${DEFAULT_WRONGFUL_RATE})`, parseFraction)
    .option("--dry-run", "with --calibrate: print the floor without writing it to the config")
    .action(async (flags: EvalFlags) => {
      if (flags.calibrate) return await calibrate(context, flags);
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

async function calibrate(context: CliContext, flags: EvalFlags): Promise<void> {
  const progress = createProgressBar(context.io.stderr as NodeJS.WriteStream, Boolean(context.io.stderr.isTTY) && !flags.json);
  let calibration: GuardrailCalibration;
  try {
    calibration = await context.chunkpad().calibrateGuardrail({
      queriesPath: flags.queries,
      qrelsPath: flags.qrels,
      ...(flags.wrongfulRate === undefined ? {} : { wrongfulRate: flags.wrongfulRate }),
      ...(flags.folder.length > 0 ? { folders: flags.folder } : {}),
      onProgress: (event) => progress.update(event.done, event.total, "questions"),
    });
  } finally {
    progress.stop();
  }
  const written = !flags.dryRun;
  if (written) context.chunkpad().setConfig("generation.minSimilarity", String(calibration.floor));
  if (flags.json) return printJson(context.io, { ...calibration, written });
  const percent = (count: number) => `${count}/${calibration.questions} (${Math.round((100 * count) / calibration.questions)}%)`;
  context.io.stdout.write(
    [
      `${calibration.questions} answerable questions; the floor may refuse ${Math.round(calibration.wrongfulRate * 100)}% of them.`,
      `floor ${calibration.floor.toFixed(2)}: refuses ${percent(calibration.refusedAtFloor)}; the floor before, ${calibration.currentFloor.toFixed(2)}, refuses ${percent(calibration.refusedAtCurrentFloor)}.`,
      written ? `generation.minSimilarity is now ${calibration.floor.toFixed(2)} in the config.` : `Not written (--dry-run): chunkpad config set generation.minSimilarity ${calibration.floor.toFixed(2)}`,
      "",
    ].join("\n"),
  );
}

function parseFraction(value: string): number {
  const number = Number(value);
  if (value.trim() === "" || !Number.isFinite(number)) throw new InvalidArgumentError(`"${value}" is not a number; give a fraction such as 0.05.`);
  return number;
}

function collect(value: string, previous: string[]): string[] {
  return [...previous, value];
}
