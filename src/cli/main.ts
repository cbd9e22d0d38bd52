import fs from "node:fs";
import { Command, CommanderError } from "commander";
import { isChunkpadError, openChunkpad, redactSecrets, secretsInEnvironment, type Chunkpad } from "../index.js";
import type { CliContext } from "./context.js";
import { exitCodeFor, type CliIo, defaultIo } from "./shared/io.js";
import { withCliNextSteps } from "./shared/next-step.js";

/** The package version: one place (package.json), read when the CLI starts. */
const VERSION = (JSON.parse(fs.readFileSync(new URL("../../package.json", import.meta.url), "utf8")) as { version: string }).version;

/** Values given with --password, so no error message repeats them. */
function passwordArguments(argv: readonly string[]): string[] {
  return argv.flatMap((argument, index) => {
    if (argument.startsWith("--password=")) return [argument.slice("--password=".length)];
    return argument === "--password" && argv[index + 1] !== undefined ? [argv[index + 1] as string] : [];
  });
}

type Register = (program: Command, context: CliContext) => void;

/**
 * Each command's module with the verbs it defines, in help order. A run loads only the module
 * of its verb (a keyword search never loads the code of embed, ask or chat); help, no verb or an
 * unknown verb load them all, so the overview and "did you mean" stay complete.
 */
export const COMMANDS: ReadonlyArray<{ verbs: readonly string[]; load: () => Promise<Register> }> = [
  { verbs: ["add", "process", "resolve"], load: async () => (await import("./commands/process.js")).registerProcessCommands },
  { verbs: ["status"], load: async () => (await import("./commands/status.js")).registerStatusCommand },
  { verbs: ["folders", "chunks", "remove"], load: async () => (await import("./commands/folders.js")).registerFolderCommands },
  { verbs: ["config"], load: async () => (await import("./commands/config.js")).registerConfigCommand },
  { verbs: ["search"], load: async () => (await import("./commands/search.js")).registerSearchCommand },
  { verbs: ["include", "exclude"], load: async () => (await import("./commands/review.js")).registerReviewCommands },
  { verbs: ["embed"], load: async () => (await import("./commands/embed.js")).registerEmbedCommand },
  { verbs: ["sync"], load: async () => (await import("./commands/sync.js")).registerSyncCommand },
  { verbs: ["export", "import"], load: async () => (await import("./commands/archive.js")).registerArchiveCommands },
  { verbs: ["watch"], load: async () => (await import("./commands/watch.js")).registerWatchCommand },
  { verbs: ["model"], load: async () => (await import("./commands/model.js")).registerModelCommands },
  { verbs: ["eval"], load: async () => (await import("./commands/eval.js")).registerEvalCommand },
  { verbs: ["ask"], load: async () => (await import("./commands/ask.js")).registerAskCommand },
  { verbs: ["chat"], load: async () => (await import("./commands/chat.js")).registerChatCommand },
  { verbs: ["history"], load: async () => (await import("./commands/history.js")).registerHistoryCommand },
  { verbs: ["providers"], load: async () => (await import("./commands/providers.js")).registerProvidersCommand },
  { verbs: ["keys"], load: async () => (await import("./commands/keys.js")).registerKeysCommands },
  { verbs: ["reset"], load: async () => (await import("./commands/reset.js")).registerResetCommand },
  { verbs: ["migrate"], load: async () => (await import("./commands/migrate.js")).registerMigrateCommand },
  { verbs: ["mcp"], load: async () => (await import("./commands/mcp.js")).registerMcpCommand },
  { verbs: ["serve"], load: async () => (await import("./commands/serve.js")).registerServeCommand },
];

async function registerCommands(program: Command, context: CliContext, argv: readonly string[]): Promise<void> {
  // The program itself has only --help and --version, so the first word that is not a flag is the verb.
  const verb = argv.find((argument) => !argument.startsWith("-"));
  const own = COMMANDS.find((entry) => verb !== undefined && entry.verbs.includes(verb));
  for (const entry of own ? [own] : COMMANDS) (await entry.load())(program, context);
}

/** Runs the CLI and returns the process exit code. */
export async function main(argv: string[], io: CliIo = defaultIo()): Promise<number> {
  let opened: Chunkpad | undefined;
  const verb = argv.find((argument) => !argument.startsWith("-"));
  // Every verb but serve uses the model of a running server when there is one (the warm daemon).
  const useServer = verb !== "serve";
  // The servers search many times: they keep the keyword index in memory (decision 031).
  const keywordIndexInMemory = verb === "serve" || verb === "mcp";
  // A one-off command loads the query model in its own thread: a worker's start costs more than the model (issue 22).
  const queryModelInThread = !keywordIndexInMemory;
  const context: CliContext = { io, version: VERSION, exitCode: 0, chunkpad: () => (opened ??= openChunkpad({ env: io.env, useServer, keywordIndexInMemory, queryModelInThread })) };

  const program = new Command()
    .name("chunkpad")
    .description("Chat with your documents, locally: process a folder into editable chunk files, review, embed, search and ask.")
    .version(VERSION)
    .showHelpAfterError("(run with --help for usage)")
    .exitOverride()
    .configureOutput({ writeOut: (text) => io.stdout.write(text), writeErr: (text) => io.stderr.write(text) });

  await registerCommands(program, context, argv);

  try {
    await program.parseAsync(argv, { from: "user" });
    return context.exitCode;
  } catch (error) {
    if (error instanceof CommanderError) {
      return error.code === "commander.helpDisplayed" || error.code === "commander.version" || error.code === "commander.help" ? 0 : 2;
    }
    const message = isChunkpadError(error) ? withCliNextSteps(error.message, error.nextSteps) : `unexpected error: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}`;
    // The last line of defence: the providers redact their own keys; this catches any other path.
    io.stderr.write(`chunkpad: ${redactSecrets(message, [...secretsInEnvironment(io.env), ...passwordArguments(argv)])}\n`);
    return exitCodeFor(error);
  } finally {
    await opened?.close();
  }
}
