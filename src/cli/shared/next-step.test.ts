import { describe, expect, it } from "vitest";
import type { NextStep, NextStepAction } from "../../index.js";
import { nextStepsText } from "../../../web/src/nextStep.js";
import { cliNextSteps, withCliNextSteps } from "./next-step.js";

/** One step of every kind: a new kind without an example here is a type error. */
const EXAMPLES: { [Action in NextStepAction]: Extract<NextStep, { action: Action }> } = {
  embed: { action: "embed", purpose: "to search them by meaning too" },
  "add-folder": { action: "add-folder", folder: "/home/me/My Docs" },
  "resolve-conflict": { action: "resolve-conflict", source: "/home/me/docs/a b.pdf" },
  "change-setting": { action: "change-setting", key: "search.rerank", value: "off" },
  "unset-setting": { action: "unset-setting", key: "bogus.key" },
  "list-settings": { action: "list-settings" },
  sync: { action: "sync" },
  "search-mode": { action: "search-mode", mode: "keyword" },
  "list-folders": { action: "list-folders" },
  "all-folders": { action: "all-folders", verb: "sync" },
  "list-documents": { action: "list-documents" },
  "set-up-llm": { action: "set-up-llm" },
  "set-api-key": { action: "set-api-key", provider: "openai" },
  "take-over": { action: "take-over", folder: "/srv/docs" },
  "use-export-archive": { action: "use-export-archive" },
  "choose-import-folder": { action: "choose-import-folder", archive: "backup.zip" },
  "download-model": { action: "download-model", model: "llm" },
  "import-reembed": { action: "import-reembed" },
  "choose-llm-model": { action: "choose-llm-model", provider: "ollama" },
  "remove-folder": { action: "remove-folder", folder: "/srv/docs" },
  "import-elsewhere": { action: "import-elsewhere" },
  "set-hub-url": { action: "set-hub-url", model: "embedding" },
  "use-model-files": { action: "use-model-files", model: "embedding" },
  "choose-provider": { action: "choose-provider" },
  "give-password": { action: "give-password" },
  rephrase: { action: "rephrase" },
  "switch-sources-on": { action: "switch-sources-on" },
  "try-again": { action: "try-again", what: "embed" },
};
const CLI_COMMAND = /\bchunkpad [a-z]+|--[a-z]/;

describe("next steps, worded by each face (decision 060)", () => {
  it("the CLI says a command a user can type, quoting paths the shell would split", () => {
    expect(withCliNextSteps("No chunks are embedded yet.", [EXAMPLES.embed])).toBe('No chunks are embedded yet. Run "chunkpad embed" to search them by meaning too.');
    expect(cliNextSteps([EXAMPLES["resolve-conflict"]])).toBe(`Run "chunkpad resolve '/home/me/docs/a b.pdf' --keep-mine" to keep your edits, or "--take-fresh" to replace them with fresh chunks.`);
    expect(cliNextSteps([{ action: "embed", reembed: true }, { action: "change-setting", key: "embedding.model", value: "bge-small-en-v1.5" }])).toBe(
      'Re-embed with "chunkpad embed --reembed", or set it with "chunkpad config set embedding.model bge-small-en-v1.5".',
    );
    expect(cliNextSteps([])).toBe("");
    // At the chat prompt a step can name the chat's own commands; on a command line it cannot.
    expect(withCliNextSteps("Every chunk is switched off.", [EXAMPLES["switch-sources-on"]], "chat")).toBe("Every chunk is switched off. Switch one on with /toggle <n>, then /regen.");
    expect(withCliNextSteps("Every chunk is switched off.", [EXAMPLES["switch-sources-on"]])).toBe("Every chunk is switched off. Ask again without excluding every chunk.");
    for (const step of [EXAMPLES.embed, EXAMPLES["add-folder"], EXAMPLES["change-setting"], EXAMPLES.sync, EXAMPLES["take-over"], EXAMPLES["set-api-key"]]) {
      expect(cliNextSteps([step])).toMatch(CLI_COMMAND);
    }
  });

  it("the web app names a place to click, never a command or a flag, for every kind of step", () => {
    for (const step of Object.values(EXAMPLES)) {
      const text = nextStepsText([step]);
      expect(text, step.action).not.toBe("");
      expect(text, step.action).not.toMatch(CLI_COMMAND);
    }
    expect(nextStepsText([EXAMPLES["change-setting"]])).toBe("Change it in Settings → Search → “Rerank” (search.rerank) to off.");
    expect(nextStepsText([EXAMPLES.embed])).toBe("Embed the folder (Documents → Embed selected) to search them by meaning too.");
  });
});
