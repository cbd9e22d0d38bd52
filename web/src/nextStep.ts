/**
 * A next step from the server, said as where to click in this app (decision 060). The server's
 * messages name no command; the CLI words the same steps as commands, this app as places.
 */
import type { NextStep } from "./api/types.js";
import { SECTIONS, SETTING_LABELS } from "./views/settings/labels.js";
// The one pure function of the core the app bundles: how a message and its steps make a sentence.
import { sayWithNextSteps } from "../../src/core/next-step.js";

/** Where a setting is: its section and the label it has there (the key too, which the help shows). */
function settingPlace(key: string): string {
  const known = SETTING_LABELS[key];
  if (known === undefined) return `Settings (${key})`;
  const section = SECTIONS.find((candidate) => candidate.id === known.section)?.label ?? "Settings";
  return `Settings → ${section} → “${known.label}” (${key})`;
}

function clause(step: NextStep): string {
  switch (step.action) {
    case "embed":
      return step.reembed ? "embed every folder again with this model (Documents → Embed selected → Re-embed every folder)" : `embed the folder (Documents → Embed selected)${step.purpose ? ` ${step.purpose}` : ""}`;
    case "add-folder":
      return step.folder === undefined ? "add a folder (Documents → Add a folder)" : `add ${step.folder} first (Documents → Add a folder)`;
    case "resolve-conflict":
      return "open the file in Documents and keep your edit or take the fresh chunks";
    case "change-setting":
      return `change it in ${settingPlace(step.key)}${step.value === undefined ? "" : ` to ${step.value}`}${step.orUnset ? ", or reset it to its default there" : ""}`;
    case "unset-setting":
      return `remove “${step.key}” from the config file`;
    case "list-settings":
      return "Settings lists every setting";
    case "sync":
      return "sync (Settings → Data → Sync now)";
    case "search-mode":
      return `search in the ${step.mode === "keyword" ? "Keyword" : "Hybrid"} mode`;
    case "list-documents":
      return "the Documents view lists them";
    case "list-folders":
      return "the sidebar lists the folders you added";
    case "all-folders":
      return "leave the folder out to do it for every folder";
    case "set-up-llm":
      return "choose a provider in Settings → Answers";
    case "set-api-key":
      return `add a ${step.provider} key in Settings → Answers`;
    case "take-over":
      return "process it on the machine that owns it";
    case "use-export-archive":
      return "choose an archive Chunkpad exported (Settings → Data → Export)";
    case "choose-import-folder":
      return "fill in “Restore into folder” (Settings → Data → Import)";
    case "download-model":
      return step.model === "llm" ? "download the local model when the app asks" : step.model === "rerank" ? "allow the rerank model's download" : "allow the model's download when the app asks (Documents → Embed selected)";
    case "import-reembed":
      return "switch the embedding model in Settings → Embeddings to the archive's";
    case "choose-llm-model":
      return `pick another model in the composer, or set the ${step.provider} model in Settings → Answers`;
    case "remove-folder":
      return "remove the folder first (Settings → Data)";
    case "import-elsewhere":
      return "restore into another folder";
    case "set-hub-url":
      return `point Chunkpad at a reachable hub in Settings → ${step.model === "llm" ? "Answers" : "Embeddings"} (hub URL)`;
    case "use-model-files":
      return step.model === "llm" ? "download the .gguf file yourself and give its path as the local model in Settings → Answers" : "download the model folder yourself and give its path as the model in Settings → Embeddings";
    case "choose-provider":
      return "choose Ollama or a cloud provider in Settings → Answers";
    case "give-password":
      return "enter its password in the file's view";
    case "rephrase":
      return "ask in other words";
    case "switch-sources-on":
      return "switch a source on under Sources, then choose Regenerate";
    case "try-again":
      return "try again: what was done is kept";
  }
}

/** The steps as one sentence ("" when there are none). */
export const nextStepsText = (steps: readonly NextStep[] | undefined): string => sayWithNextSteps("", steps, clause);

/** A message from the server with its next steps, as this app says it. */
export const withNextSteps = (message: string, steps: readonly NextStep[] | undefined): string => sayWithNextSteps(message, steps, clause);
