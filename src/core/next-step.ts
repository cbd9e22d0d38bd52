/**
 * What the user can do next, as data. A message from the core says what happened in words that
 * suit every face ("No chunks are embedded yet, so this is a keyword search."); the step says
 * what to do about it, and each face words the step its own way: the CLI as a command to type,
 * the web app as where to click, the HTTP API as this object (decision 060). So no core message
 * names a CLI command or flag, and a person using the web app is never told to open a terminal.
 */
export type NextStep =
  /** Embed the added folders' chunks (`reembed`: drop the vectors another model made first). */
  | { action: "embed"; reembed?: boolean; purpose?: string }
  /** Add a folder of documents (`folder` when one was named). */
  | { action: "add-folder"; folder?: string }
  /** Settle a chunk file edited by hand whose source changed too. */
  | { action: "resolve-conflict"; source: string }
  /** Change one setting: to `value` when one is suggested, else to a value the user picks (or back to its default). */
  | { action: "change-setting"; key: string; value?: string; orUnset?: boolean }
  /** Remove a key the config file should not have. */
  | { action: "unset-setting"; key: string }
  /** See every setting there is. */
  | { action: "list-settings" }
  /** Bring the index up to date with the folders on disk. */
  | { action: "sync" }
  /** Search in another mode (keyword works without vectors; hybrid also finds chunks not embedded). */
  | { action: "search-mode"; mode: "keyword" | "hybrid" }
  /** See the folders added so far. */
  | { action: "list-folders" }
  /** Do it for every added folder, by naming none. */
  | { action: "all-folders"; verb: "sync" | "embed" | "export" | "watch" }
  /** See the documents of the added folders, to name one. */
  | { action: "list-documents" }
  /** Choose and set up the LLM that answers. */
  | { action: "set-up-llm" }
  /** Store an API key for a provider. */
  | { action: "set-api-key"; provider: string }
  /** Move a folder another machine owns to this one, on purpose. */
  | { action: "take-over"; folder: string }
  /** Use an archive Chunkpad's export wrote. */
  | { action: "use-export-archive" }
  /** Say which folder an archive restores into. */
  | { action: "choose-import-folder"; archive: string }
  /** Allow a model's download (it is fetched once, then kept). */
  | { action: "download-model"; model: "embedding" | "rerank" | "llm" }
  /** Import an archive again, embedding its chunks with the configured model. */
  | { action: "import-reembed" }
  /** Choose which model answers for a provider (`generation.models.<provider>` or the question's own model). */
  | { action: "choose-llm-model"; provider: string }
  /** Remove an added folder from the index (its documents stay). */
  | { action: "remove-folder"; folder: string }
  /** Restore an archive into another folder. */
  | { action: "import-elsewhere" }
  /** Point Chunkpad at a reachable hub (`CHUNKPAD_HUB_URL`, or the setting). */
  | { action: "set-hub-url"; model: "embedding" | "llm" }
  /** Download the model's files by other means and give Chunkpad their path. */
  | { action: "use-model-files"; model: "embedding" | "llm" }
  /** Answer with another provider (Ollama or a cloud model). */
  | { action: "choose-provider" }
  /** Give the password of an encrypted document, for this run only. */
  | { action: "give-password" }
  /** Ask the question in other words. */
  | { action: "rephrase" }
  /** Switch at least one of an answer's sources back on, then regenerate the answer. */
  | { action: "switch-sources-on" }
  /** Run the same thing again (what was done is kept). */
  | { action: "try-again"; what: "embed" | "command" };

export type NextStepAction = NextStep["action"];

/** Something a report says beside its results: what happened, and what the user can do about it. */
export interface Notice {
  message: string;
  /** Left out when there is nothing to do. */
  nextSteps?: NextStep[];
}

export function notice(message: string, ...nextSteps: NextStep[]): Notice {
  return nextSteps.length === 0 ? { message } : { message, nextSteps };
}

/**
 * What a user can do about a file that failed with `code` and `message` (a remembered failure keeps
 * only those two): a password opens a document that asked for one, or that got a wrong one; OCR
 * reads a scan while it is off.
 */
export function failureNextSteps(code: string, message: string): NextStep[] {
  const asksForPassword = code === "PARSE_WRONG_PASSWORD" || (code === "PARSE_ENCRYPTED" && /password required/.test(message));
  if (asksForPassword) return [{ action: "give-password" }];
  // The image and scanned-PDF parsers say so when OCR is off (ingest/ocr.ts OCR_OFF_HINT).
  if (/OCR is off/.test(message)) return [{ action: "change-setting", key: "ingest.ocr", value: "auto" }];
  return [];
}

/**
 * A message followed by its steps as one sentence, each step worded by the face's `clause`: the
 * first capitalised, the others as alternatives ("Run …, or set …."). Pure, so the web app bundles
 * it too; the message alone when there is no step.
 */
export function sayWithNextSteps(message: string, steps: readonly NextStep[] | undefined, clause: (step: NextStep) => string): string {
  if (!steps || steps.length === 0) return message;
  const sentence = steps.map(clause).join(", or ");
  const how = `${sentence.charAt(0).toUpperCase()}${sentence.slice(1)}.`;
  if (message === "") return how;
  return /[.!?)"]$/.test(message) ? `${message} ${how}` : `${message}. ${how}`;
}
