import type { Command } from "commander";
import { ChunkpadError, executeReset, planReset, resetDependencies, type ResetItem } from "../../index.js";
import type { CliContext } from "../context.js";
import { plural, printJson } from "../shared/io.js";
import { askYesNo, canPrompt } from "../shared/prompt.js";

interface ResetFlags {
  models?: boolean;
  keys?: boolean;
  chunkFiles?: boolean;
  yes?: boolean;
  json?: boolean;
}

const LABELS: Record<ResetItem["kind"], string> = {
  database: "database",
  "chat-history": "chat history",
  config: "settings",
  "folder-list": "list of added folders",
  models: "downloaded models",
  "key-file": "stored API keys (file)",
  keychain: "stored API key",
  "chunk-files": "chunk files",
};

export function registerResetCommand(program: Command, context: CliContext): void {
  program
    .command("reset")
    .description("Delete all Chunkpad data (databases, chat history, settings); your documents are never touched")
    .option("--models", "also delete the downloaded models")
    .option("--keys", "also delete the stored API keys (OS keychain and key file)")
    .option("--chunk-files", "also delete the _chunks/ folder of every added folder, hand edits included")
    .option("-y, --yes", "do not ask for confirmation (for scripts)")
    .option("--json", "print what was deleted as JSON on stdout")
    .action(async (flags: ResetFlags) => {
      const { io } = context;
      // Not context.chunkpad(): reset must work when the database or the config is damaged.
      const dependencies = resetDependencies(io.env);
      const plan = await planReset(dependencies, { models: flags.models, keys: flags.keys, chunkFiles: flags.chunkFiles });
      const listing = plan.items.map((item) => `  ${LABELS[item.kind]}: ${item.target}\n`).join("");
      const notes = plan.notes.map((note) => `  note: ${note}\n`).join("");
      if (plan.items.length === 0) {
        if (flags.json) return printJson(io, { deleted: [], failed: [], notes: plan.notes });
        io.stdout.write(`Nothing to delete: Chunkpad has no data here.\n${notes}`);
        return;
      }
      if (!flags.yes) {
        io.stderr.write(`This deletes:\n${listing}${notes}Your documents are not touched.\n`);
        if (!canPrompt(io)) {
          throw new ChunkpadError("INVALID_ARGUMENT", `reset would delete ${plural(plan.items.length, "item")} and needs confirmation: run it on a terminal, or pass --yes.`);
        }
        if (!(await askYesNo(io, "Delete all of this?"))) {
          io.stderr.write("Nothing was deleted.\n");
          context.exitCode = 1;
          return;
        }
      }
      const report = await executeReset(dependencies, plan);
      if (report.failed.length > 0) context.exitCode = 1;
      if (flags.json) return printJson(io, report);
      io.stdout.write(`Deleted:\n${report.deleted.map((item) => `  ${LABELS[item.kind]}: ${item.target}\n`).join("")}`);
      for (const failure of report.failed) io.stdout.write(`  ✗ ${failure.target}: ${failure.reason}\n`);
      io.stdout.write(notes);
    });
}
