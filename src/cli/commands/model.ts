import { Option, type Command } from "commander";
import type { CliContext } from "../context.js";
import { printJson } from "../shared/io.js";
import { formatModelReport } from "../shared/render.js";
import { consentFor, createDownloadDisplay, DTYPES } from "../shared/model-download.js";

interface ModelFlags {
  model?: string;
  dtype?: "fp32" | "q8";
  yes?: boolean;
  json?: boolean;
}

/** `chunkpad model status|download`: the embedding model's state, and a download ahead of the first embed. */
export function registerModelCommands(program: Command, context: CliContext): void {
  const model = program.command("model").description("The embedding model: where it stands (status) and getting it ahead of time (download)");
  const common = (command: Command) =>
    command
      .option("--model <model>", "catalog name, hub id or local model directory (default from the config)")
      .addOption(new Option("--dtype <dtype>", "fp32, or q8 (quantized)").choices(DTYPES))
      .option("--json", "print a machine-readable report on stdout");
  const request = (flags: ModelFlags) => ({
    ...(flags.model === undefined ? {} : { model: flags.model }),
    ...(flags.dtype === undefined ? {} : { dtype: flags.dtype }),
  });

  common(model.command("status").description("Show whether the embedding model is downloaded (no network, nothing loaded)")).action(async (flags: ModelFlags) => {
    const report = await context.chunkpad().modelStatus(request(flags));
    if (flags.json) return printJson(context.io, report);
    context.io.stdout.write(formatModelReport(report));
  });

  common(model.command("download").description("Download the embedding model into the model cache (asks first; --yes for scripts)"))
    .option("--yes", "agree to the download without asking")
    .action(async (flags: ModelFlags) => {
      const download = createDownloadDisplay(context.io);
      const report = await context.chunkpad().downloadModel({
        ...request(flags),
        consent: consentFor(context.io, flags.yes === true, "chunkpad model download"),
        onStatus: (status) => {
          if (status.state === "downloading") download(status);
        },
      });
      if (flags.json) return printJson(context.io, report);
      context.io.stdout.write(formatModelReport(report));
    });
}
