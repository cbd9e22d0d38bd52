import type { Command } from "commander";
import { ChunkpadError, type ResolvedSetting } from "../../index.js";
import type { CliContext } from "../context.js";
import { printJson, type CliIo } from "../shared/io.js";
import { cliNotice, withCliNextSteps } from "../shared/next-step.js";

export function registerConfigCommand(program: Command, context: CliContext): void {
  const config = program.command("config").description("Show and change settings (the config file keeps only what you set; API keys are never stored here)");

  config
    .command("list")
    .description("List every setting with its effective value and where it comes from (flag, env, config or default)")
    .option("--json", "print machine-readable output on stdout")
    .action((flags: { json?: boolean }) => {
      const { settings, unknownKeys } = context.chunkpad().settings();
      for (const problem of unknownKeys) context.io.stderr.write(`chunkpad: ${cliNotice(problem)}\n`);
      if (settings.some((row) => row.problem !== undefined) || unknownKeys.length > 0) context.exitCode = 1;
      if (flags.json) {
        return printJson(
          context.io,
          settings.map((row) => ({
            key: row.key,
            value: row.value ?? null,
            source: row.source,
            ...(row.variable === undefined ? {} : { variable: row.variable }),
            default: row.setting.default ?? null,
            ...(row.setting.env === undefined ? {} : { env: row.setting.env }),
            ...(row.setting.flag === undefined ? {} : { flag: row.setting.flag }),
            ...(row.problem === undefined ? {} : { problem: row.problem }),
          })),
        );
      }
      const width = Math.max(...settings.map((row) => row.key.length));
      for (const row of settings) {
        if (row.problem !== undefined) {
          context.io.stdout.write(`${row.key.padEnd(width)} = (invalid)  ${describeSource(row)}: ${withCliNextSteps(row.problem, row.source === "config" ? [{ action: "change-setting", key: row.key, orUnset: true }] : [])}\n`);
          continue;
        }
        context.io.stdout.write(`${row.key.padEnd(width)} = ${formatValue(row)}  (${describeSource(row)})\n`);
      }
    });

  config
    .command("get")
    .description("Print one setting's effective value")
    .argument("<key>", 'dotted key, e.g. "search.minScore"')
    .action((key: string) => {
      const row = context.chunkpad().setting(key);
      if (row.problem !== undefined) throw new ChunkpadError("CONFIG_INVALID", row.problem, { nextSteps: row.source === "config" ? [{ action: "change-setting", key: row.key, orUnset: true }] : [] });
      context.io.stdout.write(`${formatValue(row)}\n`);
    });

  config
    .command("set")
    .description("Change one setting in the config file (checked first; only this key is written)")
    .argument("<key>", 'dotted key, e.g. "generation.provider"')
    .argument("<value>", "new value")
    .action((key: string, value: string) => {
      const row = context.chunkpad().setConfig(key, value);
      context.io.stdout.write(`${key} = ${formatValue(row)}\n`);
      noteOverride(context.io, row);
    });

  config
    .command("unset")
    .description("Remove one setting from the config file, so its default applies")
    .argument("<key>", "dotted key")
    .action((key: string) => {
      const row = context.chunkpad().unsetConfig(key);
      if (row === null) {
        context.io.stdout.write(`Removed the unknown key ${key} from the config file.\n`);
        return;
      }
      context.io.stdout.write(row.value === undefined ? `${key} is not set\n` : `${key} = ${formatValue(row)}\n`);
      noteOverride(context.io, row);
    });

  config
    .command("path")
    .description("Print where Chunkpad keeps its config, database and model cache")
    .action(() => {
      const { paths } = context.chunkpad();
      for (const [name, value] of Object.entries(paths)) context.io.stdout.write(`${name}: ${value}\n`);
    });
}

function formatValue(row: ResolvedSetting): string {
  return row.value === undefined ? "(not set)" : JSON.stringify(row.value);
}

function describeSource(row: ResolvedSetting): string {
  return row.source === "env" ? `env ${row.variable ?? ""}`.trim() : row.source;
}

/** The file changed, but an environment variable still decides: say so rather than let the user wonder. */
function noteOverride(io: CliIo, row: ResolvedSetting): void {
  if (row.source === "env") io.stderr.write(`note: the environment variable ${row.variable ?? ""} is set and overrides the config file for ${row.key}.\n`);
}
