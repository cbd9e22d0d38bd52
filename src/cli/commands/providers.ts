import type { Command } from "commander";
import type { CliContext } from "../context.js";
import { printJson } from "../shared/io.js";

export function registerProvidersCommand(program: Command, context: CliContext): void {
  program
    .command("providers")
    .description("Show the LLM providers: which one answers questions now, their models, keys (where from, never the key) and Ollama's installed models")
    .option("--json", "print machine-readable output on stdout")
    .action(async (flags: { json?: boolean }) => {
      const rows = await context.chunkpad().providers();
      if (flags.json) return printJson(context.io, rows);
      for (const row of rows) {
        const mark = row.selected ? "→" : " ";
        const state = row.ready ? "ready" : "not ready";
        context.io.stdout.write(`${mark} ${row.provider.padEnd(9)} ${row.model}  (${state}) ${row.detail}\n`);
        if (row.installedModels && row.installedModels.length > 0) context.io.stdout.write(`              installed: ${row.installedModels.join(", ")}\n`);
      }
      context.io.stdout.write('\n→ answers questions now. Change it with "chunkpad config set generation.provider <name>" or --provider.\n');
    });
}
