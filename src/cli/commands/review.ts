import type { Command } from "commander";
import { toReviewJson, type ReviewReport } from "../../index.js";
import type { CliContext } from "../context.js";
import { plural, printJson } from "../shared/io.js";

interface ReviewFlags {
  folder: string[];
  json?: boolean;
}

export function registerReviewCommands(program: Command, context: CliContext): void {
  for (const [name, included, summary] of [
    ["exclude", false, "Exclude chunks from search and embedding: by ref, source file, folder of sources, or glob"],
    ["include", true, "Include excluded chunks again: by ref, source file, folder of sources, or glob"],
  ] as const) {
    program
      .command(name)
      .description(summary)
      .argument("<targets...>", 'a ref ({folder id}:{path}#{n}, or {path}#{n}), a source file or folder (inside an added folder, or absolute), or a glob ("reports/*.pdf", "**/*.docx")')
      .option("--folder <folder>", "look only in this added folder (repeatable)", collect, [])
      .option("--json", "print a machine-readable report on stdout")
      .action(async (targets: string[], flags: ReviewFlags) => {
        const report = await context.chunkpad().setIncluded(targets, included, { folders: flags.folder });
        for (const target of report.unmatched) {
          context.io.stderr.write(
            `chunkpad: nothing matches "${target}". Give a chunk ref (see "chunkpad chunks <folder> --chunks"), a source path inside an added folder, or a glob like "reports/*.pdf".\n`,
          );
        }
        if (report.matchedChunks === 0) context.exitCode = 1;
        if (flags.json) return printJson(context.io, toReviewJson(report));
        if (report.matchedChunks > 0) context.io.stdout.write(formatReviewReport(report));
      });
  }
}

export function formatReviewReport(report: ReviewReport): string {
  const verb = report.included ? "Included" : "Excluded";
  const state = report.included ? "included" : "excluded";
  const unchanged = report.matchedChunks - report.changed;
  const lines = [`${verb} ${plural(report.changed, "chunk")}${unchanged > 0 ? ` (${unchanged} already ${state})` : ""}.`];
  for (const target of report.targets) {
    if (target.kind === null || target.kind === "ref") continue;
    lines.push(`  ${target.target}: ${plural(target.files.length, "file")}, ${plural(target.chunkCount, "chunk")}`);
  }
  return `${lines.join("\n")}\n`;
}


function collect(value: string, previous: string[]): string[] {
  return [...previous, value];
}
