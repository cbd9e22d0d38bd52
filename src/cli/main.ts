import { Command, CommanderError } from "commander";
import { isChunkpadError, openChunkpad, redactSecrets, secretsInEnvironment, type Chunkpad } from "../index.js";
import { registerConfigCommand } from "./commands/config.js";
import { registerFolderCommands } from "./commands/folders.js";
import { registerProcessCommands } from "./commands/process.js";
import { registerSearchCommand } from "./commands/search.js";
import { registerReviewCommands } from "./commands/review.js";
import { registerEmbedCommand } from "./commands/embed.js";
import { registerModelCommands } from "./commands/model.js";
import { registerEvalCommand } from "./commands/eval.js";
import { registerAskCommand } from "./commands/ask.js";
import { registerChatCommand } from "./commands/chat.js";
import { registerHistoryCommand } from "./commands/history.js";
import { registerProvidersCommand } from "./commands/providers.js";
import { registerKeysCommands } from "./commands/keys.js";
import { registerResetCommand } from "./commands/reset.js";
import type { CliContext } from "./context.js";
import { exitCodeFor, type CliIo, defaultIo } from "./shared/io.js";

const VERSION = "0.1.0";

/** Values given with --password, so no error message repeats them. */
function passwordArguments(argv: readonly string[]): string[] {
  return argv.flatMap((argument, index) => {
    if (argument.startsWith("--password=")) return [argument.slice("--password=".length)];
    return argument === "--password" && argv[index + 1] !== undefined ? [argv[index + 1] as string] : [];
  });
}

/** Runs the CLI and returns the process exit code. */
export async function main(argv: string[], io: CliIo = defaultIo()): Promise<number> {
  let opened: Chunkpad | undefined;
  const context: CliContext = { io, exitCode: 0, chunkpad: () => (opened ??= openChunkpad({ env: io.env })) };

  const program = new Command()
    .name("chunkpad")
    .description("Chat with your documents, locally: process a folder into editable chunk files, review, embed, search and ask.")
    .version(VERSION)
    .showHelpAfterError("(run with --help for usage)")
    .exitOverride()
    .configureOutput({ writeOut: (text) => io.stdout.write(text), writeErr: (text) => io.stderr.write(text) });

  registerProcessCommands(program, context);
  registerFolderCommands(program, context);
  registerConfigCommand(program, context);
  registerSearchCommand(program, context);
  registerReviewCommands(program, context);
  registerEmbedCommand(program, context);
  registerModelCommands(program, context);
  registerEvalCommand(program, context);
  registerAskCommand(program, context);
  registerChatCommand(program, context);
  registerHistoryCommand(program, context);
  registerProvidersCommand(program, context);
  registerKeysCommands(program, context);
  registerResetCommand(program, context);

  try {
    await program.parseAsync(argv, { from: "user" });
    return context.exitCode;
  } catch (error) {
    if (error instanceof CommanderError) {
      return error.code === "commander.helpDisplayed" || error.code === "commander.version" || error.code === "commander.help" ? 0 : 2;
    }
    const message = isChunkpadError(error) ? error.message : `unexpected error: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}`;
    // The last line of defence: the providers redact their own keys; this catches any other path.
    io.stderr.write(`chunkpad: ${redactSecrets(message, [...secretsInEnvironment(io.env), ...passwordArguments(argv)])}\n`);
    return exitCodeFor(error);
  } finally {
    await opened?.close();
  }
}
