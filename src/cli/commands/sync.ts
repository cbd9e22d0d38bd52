import { cliNotice } from "../shared/next-step.js";
import type { Command } from "commander";
import { toSyncJson, type SyncReport } from "../../index.js";
import type { CliContext } from "../context.js";
import { EXIT_FILES_FAILED, expandHome, printJson } from "../shared/io.js";
import { lockOptions, NO_WAIT_HELP } from "../shared/locks.js";
import { consentFor, createEmbedProgress } from "../shared/model-download.js";
import { formatEmbedReport, formatProcessReport } from "../shared/render.js";

interface SyncFlags {
  embed?: boolean;
  yes?: boolean;
  json?: boolean;
  wait?: boolean;
}

/** `chunkpad sync`: process what changed, and embed it where the folder has vectors. */
export function registerSyncCommand(program: Command, context: CliContext): void {
  program
    .command("sync")
    .description("Bring added folders up to date in one step: process new and changed documents, and embed what changed in folders that are embedded")
    .argument("[folder]", "an added folder (default: every added folder)", expandHome)
    .option("--embed", "embed folders that have no vectors yet too")
    .option("--yes", "agree to download the embedding model if it is not in the cache yet")
    .option("--json", "print a machine-readable report on stdout")
    .option("--no-wait", NO_WAIT_HELP)
    .action(async (folder: string | undefined, flags: SyncFlags) => {
      const { io } = context;
      const progress = createEmbedProgress(io, { quiet: Boolean(flags.json) });
      let report: SyncReport;
      try {
        report = await context.chunkpad().sync(folder, {
          embed: flags.embed === true,
          consent: consentFor(io, flags.yes === true, "chunkpad sync"),
          onEmbedProgress: progress.report,
          onFolder: ({ rootPath, step }) => {
            if (!flags.json) io.stderr.write(`${step === "embed" ? "syncing (process + embed)" : "syncing (process)"} ${rootPath}\n`);
          },
          ...lockOptions(context, flags.wait),
        });
      } finally {
        progress.stop();
      }
      const failed = report.folders.some((entry) => (entry.processed?.failed.length ?? 0) > 0 || (entry.embedded?.synced.failed ?? 0) > 0);
      if (failed) context.exitCode = EXIT_FILES_FAILED;
      if (flags.json) return printJson(io, toSyncJson(report));
      if (report.folders.length === 0) io.stdout.write('No folders added yet. Run "chunkpad add <folder>" first.\n');
      for (const entry of report.folders) {
        if (entry.notHere) io.stderr.write(`note: ${entry.notHere}\n`);
        if (entry.processed) io.stdout.write(formatProcessReport(entry.processed));
        if (entry.embedded) {
          for (const notice of entry.embedded.notices) io.stderr.write(`note: ${cliNotice(notice)}\n`);
          io.stdout.write(`${entry.rootPath}\n${formatEmbedReport(entry.embedded).replace(/^/gm, "  ").trimEnd()}\n`);
        }
      }
    });
}
