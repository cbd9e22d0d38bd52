import os from "node:os";
import { InvalidArgumentError, type Command } from "commander";
import { ChunkpadError, describeBroadFolder, type AddFolderOptions, type ConflictChoice, type ProcessReport, toProcessJson } from "../../index.js";
import type { CliContext } from "../context.js";
import { lockOptions, NO_WAIT_HELP } from "../shared/locks.js";
import { EXIT_FILES_FAILED, expandHome, parseIntegerOption, plural, printJson, readStdin } from "../shared/io.js";
import { askYesNo, canPrompt } from "../shared/prompt.js";
import { createProgressBar, type ProgressBar } from "../shared/progress.js";
import { formatProcessReport } from "../shared/render.js";

interface ProcessFlags {
  force?: boolean;
  password?: string;
  passwordStdin?: boolean;
  chunkSize?: number;
  overlap?: number;
  timeout?: number;
  yes?: boolean;
  newChunks?: "included" | "excluded";
  json?: boolean;
  wait?: boolean;
  takeOver?: boolean;
}

const FAILED_FILES_HELP = `
Exit codes: 0 every file was processed (conflicts and skipped files are listed but are not failures),
${EXIT_FILES_FAILED} the run finished but some files failed (each is listed with the reason), 1 the folder could not be processed.`;

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
      .option("--password <password>", "password for encrypted documents in this run (visible to other users in ps: prefer --password-stdin)")
      .option("--password-stdin", "read the password for encrypted documents from stdin")
      .option("--chunk-size <tokens>", "target chunk size in tokens, remembered for this folder (default 400)", parseIntegerOption("--chunk-size"))
      .option("--overlap <tokens>", "tokens shared by neighbouring chunks, remembered for this folder (default 60)", parseIntegerOption("--overlap"))
      .option("--timeout <seconds>", "give each file this long to parse in this run (default: ingest.perFileTimeoutSeconds, 120)", parseSecondsOption)
      .option("--yes", "do not ask before adding your whole home folder or the root of the disk")
      .option("--new-chunks <state>", "review state of text new to this folder: included (default) or excluded, remembered for this folder", parseNewChunks)
      .option("--json", "print a machine-readable report on stdout")
      .option("--no-wait", NO_WAIT_HELP)
      .option("--take-over", "make this machine the folder's owner though another machine sharing the database added it (its files must be here)")
      .addHelpText("after", FAILED_FILES_HELP)
      .action(async (folder: string, flags: ProcessFlags) => {
        await confirmBroadFolder(context, folder, flags.yes);
        if (flags.password !== undefined && !flags.passwordStdin) {
          context.io.stderr.write("warning: a password given with --password is visible to other users of this machine (ps, /proc). Use --password-stdin instead.\n");
        }
        const password = flags.passwordStdin ? await readStdin(context.io) : flags.password;
        const chunking = {
          ...(flags.chunkSize === undefined ? {} : { chunkSizeTokens: flags.chunkSize }),
          ...(flags.overlap === undefined ? {} : { chunkOverlapTokens: flags.overlap }),
        };
        const report = await withProgress(context, flags.json, (onProgress) =>
          context.chunkpad().processFolder(folder, {
            force: flags.force,
            password,
            chunking,
            ...timeoutOption(flags),
            ...(flags.newChunks === undefined ? {} : { newChunksIncluded: flags.newChunks === "included" }),
            ...(flags.takeOver ? { takeOver: true } : {}),
            onProgress,
            ...lockOptions(context, flags.wait),
          }),
        );
        printReport(context, report, flags.json);
      });
  }

  program
    .command("resolve")
    .description("Settle one file's conflict between your edited chunk file and its changed source")
    .argument("<file>", "the document (or its chunk file) named in the conflict", expandHome)
    .option("--keep-mine", "keep your edited chunk file; a later change of the source is reported again")
    .option("--take-fresh", "replace your edited chunk file with fresh chunks from the source")
    .option("--password <password>", "password for the document, when it is encrypted")
    .option("--timeout <seconds>", "give the file this long to parse", parseSecondsOption)
    .option("--json", "print a machine-readable report on stdout")
    .addHelpText("after", FAILED_FILES_HELP)
    .action(async (file: string, flags: { keepMine?: boolean; takeFresh?: boolean; password?: string; timeout?: number; json?: boolean }) => {
      if (Boolean(flags.keepMine) === Boolean(flags.takeFresh)) {
        throw new ChunkpadError("INVALID_ARGUMENT", "Say which version to keep: --keep-mine (your edited chunk file) or --take-fresh (fresh chunks from the source).");
      }
      const choice: ConflictChoice = flags.keepMine ? "keep-mine" : "take-fresh";
      const outcome = await withProgress(context, flags.json, (onProgress) =>
        context.chunkpad().resolveConflict(file, choice, { password: flags.password, ...timeoutOption(flags), onProgress }),
      );
      if (!flags.json) {
        const chunkFile = outcome.report.conflicts.find((conflict) => conflict.path === outcome.relativePath)?.chunkFile;
        context.io.stdout.write(
          !outcome.resolved
            ? `${outcome.relativePath} has no conflict to resolve: its chunk file and the index already agree with the source.\n`
            : choice === "keep-mine"
              ? `Kept your edited chunk file for ${outcome.relativePath}; if the source changes again, the conflict is reported again.\n`
              : `Replaced the chunk file of ${outcome.relativePath} with fresh chunks from the source.\n`,
        );
        if (chunkFile !== undefined) context.io.stdout.write(`${outcome.relativePath}: still in conflict (${chunkFile}).\n`);
      }
      printReport(context, outcome.report, flags.json);
    });
}

/** The longest per-file time limit: a day. Longer ones overflow the timer (which then fires at once) and are surely a typo. */
const MAX_TIMEOUT_SECONDS = 24 * 60 * 60;

function parseSecondsOption(value: string): number {
  const seconds = Number(value);
  if (value.trim() === "" || !Number.isFinite(seconds) || seconds < 1 || seconds > MAX_TIMEOUT_SECONDS) {
    throw new InvalidArgumentError(`--timeout takes a number of seconds from 1 to ${MAX_TIMEOUT_SECONDS} (a day), not "${value}"; the default is 120`);
  }
  return seconds;
}

function timeoutOption(flags: { timeout?: number }): Pick<AddFolderOptions, "timeoutSeconds"> {
  return flags.timeout === undefined ? {} : { timeoutSeconds: flags.timeout };
}

async function withProgress<T>(context: CliContext, json: boolean | undefined, run: (onProgress: NonNullable<AddFolderOptions["onProgress"]>) => Promise<T>): Promise<T> {
  const progress: ProgressBar = createProgressBar(context.io.stderr as NodeJS.WriteStream, Boolean(context.io.stderr.isTTY) && !json);
  try {
    return await run((event) => {
      if (event.phase === "process") progress.update(event.done, event.total, event.file);
    });
  } finally {
    progress.stop();
  }
}

function printReport(context: CliContext, report: ProcessReport, json: boolean | undefined): void {
  if (json) printJson(context.io, toProcessJson(report));
  else context.io.stdout.write(formatProcessReport(report));
  if (report.failed.length > 0) {
    context.exitCode = EXIT_FILES_FAILED;
    if (!json) context.io.stderr.write(`chunkpad: ${plural(report.failed.length, "file")} failed (listed with ✗ above); exit code ${EXIT_FILES_FAILED}.\n`);
  }
}

/** Adding the root of the disk or the whole home folder is almost always a slip: ask, or require --yes. */
async function confirmBroadFolder(context: CliContext, folder: string, yes: boolean | undefined): Promise<void> {
  if (yes) return;
  const broad = describeBroadFolder(folder, context.io.env.HOME ?? os.homedir());
  if (broad === undefined) return;
  const { target, what } = broad;
  const question = `${target} is ${what}: Chunkpad would parse every document under it and write a _chunks/ folder there. Continue?`;
  if (canPrompt(context.io) && (await askYesNo(context.io, question))) return;
  throw new ChunkpadError(
    "INVALID_ARGUMENT",
    `Not adding ${target}: it is ${what}. Add a folder of documents instead (e.g. "chunkpad add ~/Documents/reports"), or run again with --yes if you really mean it.`,
  );
}

function parseNewChunks(value: string): "included" | "excluded" {
  if (value === "included" || value === "excluded") return value;
  throw new InvalidArgumentError(`--new-chunks takes "included" or "excluded", not "${value}"`);
}
