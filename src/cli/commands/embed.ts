import { cliNotice } from "../shared/next-step.js";
import { Option, type Command } from "commander";
import { type EmbedReport, toEmbedJson } from "../../index.js";
import type { CliContext } from "../context.js";
import { expandHome, parseIntegerOption, printJson } from "../shared/io.js";
import { lockOptions, NO_WAIT_HELP } from "../shared/locks.js";
import { consentFor, createEmbedProgress, DTYPES } from "../shared/model-download.js";
import { formatEmbedReport } from "../shared/render.js";

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
      for (const notice of report.notices) io.stderr.write(`note: ${cliNotice(notice)}\n`);
      if (flags.json) return printJson(io, toEmbedJson(report));
      io.stdout.write(formatEmbedReport(report));
    });
}

