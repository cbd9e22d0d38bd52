import type { Command } from "commander";
import { flattenChunkpadConfig, getChunkpadConfigValue } from "../../index.js";
import type { CliContext } from "../main.js";
import { printJson } from "../io.js";

export function registerConfigCommand(program: Command, context: CliContext): void {
  const config = program.command("config").description("Show and change settings (stored in the config file; API keys are never stored here)");

  config
    .command("list")
    .description("List every setting with its value")
    .option("--json", "print machine-readable output on stdout")
    .action((flags: { json?: boolean }) => {
      const chunkpad = context.chunkpad();
      if (flags.json) return printJson(context.io, chunkpad.config);
      for (const row of flattenChunkpadConfig(chunkpad.config)) context.io.stdout.write(`${row.key} = ${JSON.stringify(row.value)}\n`);
    });

  config
    .command("get")
    .description("Print one setting")
    .argument("<key>", 'dotted key, e.g. "search.minScore"')
    .action((key: string) => {
      const value = getChunkpadConfigValue(context.chunkpad().config, key);
      context.io.stdout.write(`${value === undefined ? "(not set)" : JSON.stringify(value)}\n`);
    });

  config
    .command("set")
    .description("Change one setting")
    .argument("<key>", 'dotted key, e.g. "generation.provider"')
    .argument("<value>", "new value")
    .action((key: string, value: string) => {
      const updated = context.chunkpad().setConfig(key, value);
      context.io.stdout.write(`${key} = ${JSON.stringify(getChunkpadConfigValue(updated, key))}\n`);
    });

  config
    .command("unset")
    .description("Return one setting to its default")
    .argument("<key>", "dotted key")
    .action((key: string) => {
      const value = getChunkpadConfigValue(context.chunkpad().unsetConfig(key), key);
      context.io.stdout.write(value === undefined ? `${key} is not set\n` : `${key} = ${JSON.stringify(value)}\n`);
    });

  config
    .command("path")
    .description("Print where Chunkpad keeps its config, database and model cache")
    .action(() => {
      const { paths } = context.chunkpad();
      for (const [name, value] of Object.entries(paths)) context.io.stdout.write(`${name}: ${value}\n`);
    });
}
