import { Option, type Command } from "commander";
import { type EmbedProgress, type EmbedReport, toEmbedJson } from "../../index.js";
import type { CliContext } from "../context.js";
import { expandHome, parseIntegerOption, plural, printJson, type CliIo } from "../shared/io.js";
import { createProgressBar } from "../shared/progress.js";
import { lockOptions, NO_WAIT_HELP } from "../shared/locks.js";
import { consentFor, createDownloadDisplay, DTYPES, LINE_STEP_PERCENT } from "../shared/model-download.js";

interface EmbedFlags {
  model?: string;
  dtype?: "fp32" | "q8";
  yes?: boolean;
  reembed?: boolean;
  batchSize?: number;
  json?: boolean;
  wait?: boolean;
}

export function registerEmbedCommand(program: Command, context: CliContext): void {
  program
    .command("embed")
    .description("Embed the included chunks that are new or changed (and drop vectors of excluded ones), so search works by meaning too")
    .argument("[folder]", "an added folder (default: every added folder)", expandHome)
    .option("--model <model>", "catalog name (bge-base-en-v1.5), hub id (owner/name) or a local model directory; remembered in the config")
    .addOption(new Option("--dtype <dtype>", "model weights: fp32, or q8 (quantized: smaller and faster)").choices(DTYPES))
    .option("--yes", "agree to download the embedding model if it is not in the cache yet")
    .option("--reembed", "drop every vector and embed all included chunks again (after changing the model)")
    .option("--batch-size <n>", "chunks per embedding call and per commit (default from the config: 16)", parseIntegerOption("--batch-size"))
    .option("--json", "print a machine-readable report on stdout")
    .option("--no-wait", NO_WAIT_HELP)
    .action(async (folder: string | undefined, flags: EmbedFlags) => {
      const { io } = context;
      const controller = new AbortController();
      const interrupt = () => {
        io.stderr.write('\nStopping after the current batch (press Ctrl-C again to quit at once; "chunkpad embed" picks up where it stopped).\n');
        controller.abort();
      };
      process.once("SIGINT", interrupt);
      const progress = createEmbedProgress(io, { quiet: Boolean(flags.json) });
      let report: EmbedReport;
      try {
        report = await context.chunkpad().embed({
          ...(folder === undefined ? {} : { folder }),
          ...(flags.model === undefined ? {} : { model: flags.model }),
          ...(flags.dtype === undefined ? {} : { dtype: flags.dtype }),
          ...(flags.batchSize === undefined ? {} : { batchSize: flags.batchSize }),
          reembed: flags.reembed === true,
          consent: consentFor(io, flags.yes === true),
          onProgress: progress.report,
          signal: controller.signal,
          ...lockOptions(context, flags.wait),
        });
      } finally {
        progress.stop();
        process.off("SIGINT", interrupt);
      }
      for (const notice of report.notices) io.stderr.write(`note: ${notice}\n`);
      if (flags.json) return printJson(io, toEmbedJson(report));
      io.stdout.write(formatEmbedReport(report));
    });
}

export interface EmbedProgressDisplay {
  report(event: EmbedProgress): void;
  stop(): void;
}

/**
 * Download (bytes and %), then "loading", then chunks done/total with chunks/s, on stderr: a
 * redrawn bar on a terminal, else a line every 10% so logs show the run moving. `quiet` (--json)
 * keeps only the download lines, which are rare and worth seeing in a log.
 */
export function createEmbedProgress(io: CliIo, { quiet }: { quiet: boolean }): EmbedProgressDisplay {
  const tty = Boolean(io.stderr.isTTY);
  const bar = createProgressBar(io.stderr as NodeJS.WriteStream, tty && !quiet);
  const download = createDownloadDisplay(io);
  let lastStep = -1;
  return {
    report(event) {
      if (event.phase === "model") {
        if (event.status.state === "downloading") download(event.status);
        else if (event.status.state === "loading" && !quiet) io.stderr.write("Loading the embedding model…\n");
        return;
      }
      if (event.phase !== "embed" || quiet) return;
      const rate = `${Math.round(event.chunksPerSecond)} chunks/s`;
      if (tty) return bar.update(event.done, event.total, rate);
      const percent = event.total === 0 ? 100 : Math.floor((event.done / event.total) * 100);
      const step = Math.floor(percent / LINE_STEP_PERCENT);
      if (event.done === 0 || (step === lastStep && event.done < event.total)) return;
      lastStep = step;
      io.stderr.write(`embedded ${event.done}/${event.total} chunks (${percent}%), ${rate}\n`);
    },
    stop: () => bar.stop(),
  };
}

export function formatEmbedReport(report: EmbedReport): string {
  const lines: string[] = [];
  const details = [report.dtype, report.dimensions ? `${report.dimensions} dims` : null].filter(Boolean).join(", ");
  const model = `${report.model}${details ? ` (${details})` : ""}`;
  const seconds = (report.durationMs / 1000).toFixed(1);
  const { synced } = report;
  if (synced.editsTakenIn > 0) lines.push(`Took in your edits to ${plural(synced.editsTakenIn, "chunk file")}.`);
  if (synced.documentsProcessed > 0) lines.push(`Processed ${plural(synced.documentsProcessed, "new or changed document")} first.`);
  if (synced.sourcesRemoved > 0) lines.push(`Removed ${plural(synced.sourcesRemoved, "deleted document")}.`);
  if (report.reembed) lines.push("Dropped every vector (--reembed) to embed again.");
  const excluded = report.excluded > 0 ? `, excluded ${report.excluded}` : "";
  if (report.nothingToDo) {
    const state = report.unchanged === 0 ? "no chunks are included" : `${report.unchanged === 1 ? "the included chunk is" : `all ${report.unchanged} included chunks are`} embedded with ${model}`;
    lines.push(`Nothing to embed: ${state}${report.excluded > 0 ? ` (${report.excluded} excluded)` : ""}.`);
  } else {
    const rate = report.chunksPerSecond === null ? "" : `, ${Math.round(report.chunksPerSecond)} chunks/s`;
    lines.push(`Embedded ${plural(report.embedded, "chunk")}, removed ${report.removed}, unchanged ${report.unchanged}${excluded} with ${model} in ${seconds} s${rate}.`);
  }
  for (const change of report.configChanged) lines.push(`${change.key} is now ${change.value} in the config, so search uses the same model.`);
  return `${lines.join("\n")}\n`;
}

