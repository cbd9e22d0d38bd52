import type { Command } from "commander";
import { toWatchEventJson, type WatchEvent } from "../../index.js";
import type { CliContext } from "../context.js";
import { expandHome, parseIntegerOption } from "../shared/io.js";
import { describeWatchEvent } from "../shared/render.js";
import { consentFor } from "../shared/model-download.js";

interface WatchFlags {
  embed?: boolean;
  yes?: boolean;
  json?: boolean;
  debounce: number;
  maxWait: number;
}

/** `chunkpad watch`: sync added folders whenever their files change, until Ctrl-C. */
export function registerWatchCommand(program: Command, context: CliContext): void {
  program
    .command("watch")
    .description("Keep added folders in sync as files are created, edited, renamed and deleted (process, and embed where the folder is embedded) until Ctrl-C")
    .argument("[folders...]", "added folders to watch (default: every added folder)")
    .option("--embed", "embed folders that have no vectors yet too")
    .option("--yes", "agree to download the embedding model if it is not in the cache yet")
    .option("--json", "print one JSON event per line on stdout (chunkpad.watch/1)")
    .option("--debounce <ms>", "quiet time after the last change before syncing", parseIntegerOption("--debounce"), 300)
    .option("--max-wait <ms>", "longest a change waits for its sync while changes keep coming", parseIntegerOption("--max-wait"), 2000)
    .action(async (folders: string[], flags: WatchFlags) => {
      const { io } = context;
      const controller = new AbortController();
      const stop = () => controller.abort();
      process.once("SIGINT", stop);
      process.once("SIGTERM", stop);
      const write = (event: WatchEvent) => {
        if (flags.json) io.stdout.write(`${JSON.stringify(toWatchEventJson(event))}\n`);
        else io.stdout.write(describeWatchEvent(event));
      };
      try {
        await context.chunkpad().watch(folders.map(expandHome), {
          embed: flags.embed === true,
          consent: consentFor(io, flags.yes === true, "chunkpad watch"),
          debounceMs: flags.debounce,
          maxWaitMs: flags.maxWait,
          signal: controller.signal,
          onEvent: write,
        });
      } finally {
        process.off("SIGINT", stop);
        process.off("SIGTERM", stop);
      }
    });
}
