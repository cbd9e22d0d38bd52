import path from "node:path";
import type { Command } from "commander";
import { ChunkpadError, toExportJson, toImportJson } from "../../index.js";
import type { CliContext } from "../context.js";
import { expandHome, plural, printJson } from "../shared/io.js";
import { lockOptions, NO_WAIT_HELP } from "../shared/locks.js";
import { consentFor, createEmbedProgress } from "../shared/model-download.js";
import { formatEmbedReport } from "../shared/render.js";
import { canPrompt, createLineReader } from "../shared/prompt.js";

interface ExportFlags {
  folder?: string[];
  withSources?: boolean;
  json?: boolean;
}

interface ImportFlags {
  into?: string;
  reembed?: boolean;
  yes?: boolean;
  json?: boolean;
  wait?: boolean;
}

const collect = (value: string, previous: string[] | undefined): string[] => [...(previous ?? []), expandHome(value)];

/** `chunkpad export` and `chunkpad import`: an index as one portable file. */
export function registerArchiveCommands(program: Command, context: CliContext): void {
  program
    .command("export")
    .description("Write added folders to one portable archive: documents' metadata, chunks, review state, chunk files and vectors (sources only with --with-sources)")
    .argument("<file>", "the archive to write (a zip)", expandHome)
    .option("--folder <folder>", "an added folder to export (repeat for more; default: every added folder)", collect)
    .option("--with-sources", "put the source documents in the archive too")
    .option("--json", "print a machine-readable report on stdout")
    .action(async (file: string, flags: ExportFlags) => {
      const { io } = context;
      const report = await context.chunkpad().exportArchive(file, { ...(flags.folder ? { folders: flags.folder } : {}), withSources: flags.withSources === true });
      if (flags.json) return printJson(io, toExportJson(report));
      io.stdout.write(`Exported ${plural(report.folders.length, "folder")} to ${report.file} (${(report.bytes / 1024 / 1024).toFixed(1)} MB)${report.embeddingModel ? `, vectors by ${report.embeddingModel}` : ""}:\n`);
      for (const folder of report.folders) {
        const sources = folder.sources > 0 ? `, ${plural(folder.sources, "source file")}` : "";
        io.stdout.write(`  ${folder.rootPath}: ${plural(folder.documents, "document")}, ${plural(folder.chunks, "chunk")}, ${plural(folder.vectors, "vector")}, ${plural(folder.chunkFiles, "chunk file")}${sources}\n`);
      }
    });

  program
    .command("import")
    .description("Restore an archive written by export: its folders are added here with their chunks, review state and vectors")
    .argument("<file>", "an archive written by chunkpad export", expandHome)
    .option("--into <folder>", "where to restore: the folder for an archive of one folder, or the folder to hold one subfolder per archived folder (asked on a terminal when missing)", expandHome)
    .option("--reembed", "embed the chunks again with the configured model instead of taking the archive's vectors (needed when the models differ)")
    .option("--yes", "agree to download the embedding model if --reembed needs it")
    .option("--json", "print a machine-readable report on stdout")
    .option("--no-wait", NO_WAIT_HELP)
    .action(async (file: string, flags: ImportFlags) => {
      const { io } = context;
      // The archive never chooses where its files go: the user says, or is asked on a terminal.
      let into = flags.into;
      if (into === undefined && canPrompt(io)) {
        io.stderr.write(`Restore ${file} into which folder? `);
        const lines = createLineReader(io);
        try {
          into = (await lines.next())?.trim() || undefined;
        } finally {
          lines.close();
        }
        if (into === undefined) throw new ChunkpadError("INVALID_ARGUMENT", "No folder given; nothing was imported. Say where with --into <folder>.");
        into = expandHome(into);
      }
      const progress = createEmbedProgress(io, { quiet: Boolean(flags.json) });
      let result;
      try {
        // Resolved here, against the folder the user typed the command in.
        result = await context.chunkpad().importArchive(path.resolve(file), {
          ...(into === undefined ? {} : { into: into.trim() === "" ? into : path.resolve(into) }),
          reembed: flags.reembed === true,
          consent: consentFor(io, flags.yes === true, "chunkpad import --reembed"),
          onProgress: progress.report,
          ...lockOptions(context, flags.wait),
        });
      } finally {
        progress.stop();
      }
      const { report, embedded } = result;
      if (flags.json) return printJson(io, toImportJson({ ...report, embedded }));
      io.stdout.write(`Imported ${plural(report.folders.length, "folder")} from ${report.file}:\n`);
      for (const folder of report.folders) {
        io.stdout.write(
          `  ${folder.rootPath}: ${plural(folder.documents, "document")}, ${plural(folder.chunks, "chunk")} (${folder.excluded} excluded), ${plural(folder.vectors, "vector")}, ` +
            `${plural(folder.chunkFilesWritten, "chunk file")} written${folder.sourcesWritten > 0 ? `, ${plural(folder.sourcesWritten, "source file")} written` : ""}\n`,
        );
        if (folder.sourcesMissing.length > 0) {
          io.stdout.write(`    ${plural(folder.sourcesMissing.length, "document")} without ${folder.sourcesMissing.length === 1 ? "its source file" : "their source files"} here (searchable; the original cannot be opened): ${folder.sourcesMissing.slice(0, 5).join(", ")}${folder.sourcesMissing.length > 5 ? ", …" : ""}\n`);
        }
      }
      for (const change of report.configChanged) io.stderr.write(`note: ${change.key} is now ${change.value}, the model that made the archive's vectors (you had not chosen one)\n`);
      if (report.vectorsSkipped) io.stderr.write(`note: vectors not imported: ${report.vectorsSkipped}\n`);
      if (embedded) io.stdout.write(formatEmbedReport(embedded));
    });
}
