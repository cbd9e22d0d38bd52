import type { Command } from "commander";
import type { ProcessReport } from "../../index.js";
import type { CliContext } from "../main.js";
import { expandHome, parseIntegerOption, plural, printJson, readStdin } from "../io.js";
import { createProgressBar } from "../progress.js";

interface ProcessFlags {
  force?: boolean;
  password?: string;
  passwordStdin?: boolean;
  chunkSize?: number;
  overlap?: number;
  json?: boolean;
}

export function registerProcessCommands(program: Command, context: CliContext): void {
  for (const [name, summary] of [
    ["add", "Add a folder and process it: parse every document into editable chunk files in {folder}/_chunks/ (no model needed)"],
    ["process", "Process an added folder again; only new and changed documents are parsed"],
  ] as const) {
    program
      .command(name)
      .description(summary)
      .argument("<folder>", "folder of documents", expandHome)
      .option("--force", "re-chunk every document and overwrite chunk files you edited by hand")
      .option("--password <password>", "password for encrypted documents in this run")
      .option("--password-stdin", "read the password for encrypted documents from stdin")
      .option("--chunk-size <tokens>", "target chunk size in tokens, remembered for this folder (default 400)", parseIntegerOption("--chunk-size"))
      .option("--overlap <tokens>", "tokens shared by neighbouring chunks, remembered for this folder (default 60)", parseIntegerOption("--overlap"))
      .option("--json", "print a machine-readable report on stdout")
      .action(async (folder: string, flags: ProcessFlags) => {
        const password = flags.passwordStdin ? await readStdin(context.io) : flags.password;
        const progress = createProgressBar(context.io.stderr as NodeJS.WriteStream, Boolean(context.io.stderr.isTTY) && !flags.json);
        const chunking = {
          ...(flags.chunkSize === undefined ? {} : { chunkSizeTokens: flags.chunkSize }),
          ...(flags.overlap === undefined ? {} : { chunkOverlapTokens: flags.overlap }),
        };
        let report: ProcessReport;
        try {
          report = await context.chunkpad().processFolder(folder, {
            force: flags.force,
            password,
            chunking,
            onProgress: (event) => {
              if (event.phase === "process") progress.update(event.done, event.total, event.file);
            },
          });
        } finally {
          progress.stop();
        }
        if (flags.json) printJson(context.io, report);
        else context.io.stdout.write(formatReport(report));
      });
  }
}

export function formatReport(report: ProcessReport): string {
  const lines: string[] = [];
  const seconds = (report.durationMs / 1000).toFixed(1);
  lines.push(`${report.folder.rootPath} → ${report.folder.chunksRootPath}`);
  lines.push(
    `  processed ${report.processed.length}, unchanged ${report.unchanged.length}, edits taken in ${report.editsSynced.length}, ` +
      `skipped ${report.skipped.length}, failed ${report.failed.length}, conflicts ${report.conflicts.length}, removed ${report.removed.length}; ` +
      `${plural(report.chunksWritten, "chunk")} written in ${seconds} s`,
  );
  for (const file of report.processed) {
    const unit = file.format === "pptx" || file.format === "odp" ? "slide" : file.format === "xlsx" || file.format === "ods" ? "sheet" : "page";
    const pages = file.pages ? `, ${plural(file.pages, unit)}` : "";
    lines.push(`  + ${file.path} (${file.format}${pages}): ${plural(file.chunks, "chunk")}`);
  }
  for (const edit of report.editsSynced) {
    lines.push(`  ✎ ${edit.path}: your edited chunk file was taken in (${plural(edit.chunks, "chunk")})`);
    for (const warning of edit.warnings) lines.push(`    note: ${warning}`);
  }
  for (const conflict of report.conflicts) lines.push(`  ! ${conflict.path}: ${conflict.message}`);
  for (const failure of report.failed) lines.push(`  ✗ ${failure.path}: ${failure.message}${failure.unchangedSinceFailure ? " (unchanged since it failed)" : ""}`);
  for (const skip of report.skipped) lines.push(`  - ${skip.relativePath}: skipped, ${skip.reason}`);
  const kept = new Map(report.keptEdits.map((edit) => [edit.path, edit.chunkFile]));
  for (const removed of report.removed) {
    const chunkFile = kept.get(removed);
    lines.push(
      chunkFile === undefined
        ? `  − ${removed}: source gone, chunk file removed`
        : `  − ${removed}: source gone; kept your edited chunk file ${chunkFile} (delete it when you no longer need it)`,
    );
  }
  return `${lines.join("\n")}\n`;
}
