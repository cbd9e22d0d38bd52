import { sayWithNextSteps, type NextStep, type Notice } from "../../index.js";
import { quoteForShell } from "./quote.js";

/** Where the CLI says it: a command line, or the chat prompt (whose own commands a step can name). */
export type CliPlace = "command" | "chat";

/** One next step, as the command a CLI user types (decision 060). */
function clause(step: NextStep, place: CliPlace = "command"): string {
  switch (step.action) {
    case "embed":
      return step.reembed ? 're-embed with "chunkpad embed --reembed"' : `run "chunkpad embed"${step.purpose ? ` ${step.purpose}` : ""}`;
    case "add-folder":
      return step.folder === undefined ? 'add a folder with "chunkpad add <folder>"' : `run "chunkpad add ${quoteForShell(step.folder)}" first`;
    case "resolve-conflict":
      return `run "chunkpad resolve ${quoteForShell(step.source)} --keep-mine" to keep your edits, or "--take-fresh" to replace them with fresh chunks`;
    case "change-setting": {
      const set = `"chunkpad config set ${step.key} ${step.value === undefined ? "<value>" : quoteForShell(step.value)}"`;
      return step.orUnset ? `fix it with ${set} or "chunkpad config unset ${step.key}"` : `set it with ${set}`;
    }
    case "unset-setting":
      return `remove it with "chunkpad config unset ${step.key}"`;
    case "list-settings":
      return 'run "chunkpad config list" to see the keys';
    case "sync":
      return 'run "chunkpad sync" to bring the index up to date';
    case "search-mode":
      return step.mode === "keyword" ? 'search by keyword: chunkpad search --mode keyword "..."' : "search with --mode hybrid";
    case "list-documents":
      return '"chunkpad chunks <folder>" lists the documents';
    case "set-up-llm":
      return 'set up a provider: "chunkpad keys set anthropic", "chunkpad keys set openai", or "chunkpad config set generation.provider ollama"';
    case "set-api-key":
      return `set a key with "chunkpad keys set ${step.provider}"`;
    case "take-over":
      return `to move the folder to this machine on purpose (its files must be here too), run "chunkpad add ${quoteForShell(step.folder)} --take-over"`;
    case "use-export-archive":
      return 'use an archive written by "chunkpad export"';
    case "choose-import-folder":
      return `say where to restore it: "chunkpad import ${quoteForShell(step.archive)} --into <folder>"`;
    case "list-folders":
      return '"chunkpad folders" lists the folders you have added';
    case "all-folders":
      return `"chunkpad ${step.verb}" with no folder ${step.verb === "sync" ? "syncs" : step.verb === "embed" ? "embeds" : step.verb === "export" ? "exports" : "watches"} them all`;
    case "download-model":
      if (step.model === "llm") return 'run again with --yes to download it (or answer "y" when asked in a terminal)';
      return step.model === "rerank" ? "run the search again with --yes (or answer the question) to download it" : "run the command again and agree to the download, or pass --yes";
    case "import-reembed":
      return "import with --reembed to embed the chunks again with your model";
    case "choose-llm-model":
      return `pick another with --model or "chunkpad config set generation.models.${step.provider} <model>"`;
    case "remove-folder":
      return `remove it first ("chunkpad remove ${quoteForShell(step.folder)}")`;
    case "import-elsewhere":
      return "import into another folder with --into";
    case "set-hub-url":
      return `point Chunkpad at a reachable hub with the CHUNKPAD_HUB_URL environment variable (or "chunkpad config set ${step.model === "llm" ? "generation" : "embedding"}.hubUrl <url>")`;
    case "use-model-files":
      return step.model === "llm"
        ? "download the .gguf file yourself and pass --provider local --model /path/to/model.gguf"
        : "download the model yourself and pass --model /path/to/model-dir (a folder in the hub layout: config.json, tokenizer.json, tokenizer_config.json, onnx/model.onnx)";
    case "choose-provider":
      return 'use Ollama or a cloud model ("chunkpad config set generation.provider ollama", or --provider)';
    case "give-password":
      return "run again with --password <password>";
    case "rephrase":
      return "ask in other words";
    case "switch-sources-on":
      return place === "chat" ? "switch one on with /toggle <n>, then /regen" : "ask again without excluding every chunk";
    case "try-again":
      return step.what === "embed" ? 'run "chunkpad embed" again to finish the rest' : "run the command again";
  }
}

/** The steps as one sentence ("" when there are none): the first capitalised, the rest as alternatives. */
export const cliNextSteps = (steps: readonly NextStep[] | undefined): string => sayWithNextSteps("", steps, clause);

/** A message with its next steps, as the CLI prints it (at the chat prompt, `place` "chat"). */
export const withCliNextSteps = (message: string, steps: readonly NextStep[] | undefined, place: CliPlace = "command"): string =>
  sayWithNextSteps(message, steps, (step) => clause(step, place));

export const cliNotice = (notice: Notice): string => withCliNextSteps(notice.message, notice.nextSteps);
