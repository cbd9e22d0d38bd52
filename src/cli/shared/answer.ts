import { cliNotice, withCliNextSteps } from "./next-step.js";
import { Option, type Command } from "commander";
import {
  describeCitationLocation,
  formatModelBytes,
  LLM_PROVIDER_NAMES,
  type AnswerResult,
  type AskEvent,
  type AskOptions,
  type DownloadOffer,
  type DownloadProgress,
  type LlmProviderName,
  type SearchMode,
  type SearchResult,
} from "../../index.js";
import { explainLine, formatRelevance, formatResultNumber, formatResultPlace } from "./render.js";
import { plural, type CliIo } from "./io.js";
import { createDownloadDisplay } from "./model-download.js";
import { askYesNo, canPrompt, type LineReader } from "./prompt.js";
import { addSearchOptions, SEARCH_FLAG_HELP, searchOptionsOf, type SearchFlagHelp, type SearchFlags } from "./search-options.js";

/** The flags, consent prompts and printing that `ask` and `chat` share. */

export interface AnswerFlags extends SearchFlags {
  strict?: boolean;
  provider?: LlmProviderName;
  model?: string;
  yes?: boolean;
}

/** The search flags worded for answering. */
const ANSWER_SEARCH_HELP: SearchFlagHelp = {
  ...SEARCH_FLAG_HELP,
  mode: "search by keyword, vector or hybrid (default: hybrid when chunks are embedded, else keyword)",
  fusion: "how hybrid search combines the two rankings (default from the config)",
  minScore: "leave out chunks scoring below this, 0..1 (default from the config: 0.1)",
  maxDistance: "leave out vector hits farther than this cosine distance, 0..2",
  limit: "how many chunks to find (default from the config: 10)",
  document: "search only this document (repeatable)",
  pin: "always give the answer this document's chunks (repeatable)",
};

/** The search and answer flags `ask` and `chat` share. */
export function addAnswerOptions(command: Command): Command {
  return addSearchOptions(command, ANSWER_SEARCH_HELP)
    .option("--strict", "answer only with sentences copied from the chunks (temperature 0); default from generation.mode")
    .addOption(new Option("--provider <provider>", "the LLM to answer with (default: generation.provider, else the first with a key, else local)").choices(LLM_PROVIDER_NAMES))
    .option("--model <model>", "the model to answer with (default: generation.models.<provider>)")
    .option("--yes", "agree to download the local model if it is needed (it is never downloaded without consent)");
}

export function answerOptionsOf(flags: AnswerFlags): AskOptions {
  return {
    ...searchOptionsOf(flags),
    ...(flags.strict ? { strict: true } : {}),
    ...(flags.provider ? { provider: flags.provider } : {}),
    ...(flags.model ? { model: flags.model } : {}),
  };
}

/** Consent and a progress display for the local model's download. */
export function downloadCallbacks(io: CliIo, yes: boolean, lines?: LineReader): Pick<AskOptions, "consent" | "onDownloadProgress"> {
  const progress = createDownloadDisplay<DownloadProgress>(io, (state) => state.file);
  const describe = (offer: DownloadOffer) => `${offer.model.label}, ${formatModelBytes(offer.sizeBytes)}, from ${offer.source}`;
  if (yes) {
    return {
      consent: (offer) => {
        io.stderr.write(`Downloading the local model (${describe(offer)}) into the model cache (--yes).\n`);
        return true;
      },
      onDownloadProgress: progress,
    };
  }
  if (!canPrompt(io)) return {};
  return {
    consent: (offer) =>
      askYesNo(io, `No cloud API key is set up, so answers need the local model: ${describe(offer)}. Download it now?`, lines),
    onDownloadProgress: progress,
  };
}

/** The chunks bar: number, relevance %, where, and (in chat) whether the answer uses it. */
export function formatChunksBar(chunks: readonly SearchResult[], options: { toggles?: boolean; mode?: SearchMode; explain?: boolean } = {}): string {
  if (chunks.length === 0) return "No chunks found.\n";
  const width = String(chunks.length).length;
  const lines = [`Chunks found${options.mode ? ` (${options.mode} search)` : ""}:`];
  chunks.forEach((chunk, index) => {
    const state = options.toggles ? (chunk.isIncluded ? " [on] " : " [off]") : "";
    const pinned = chunk.pinned ? " (pinned)" : "";
    lines.push(`  ${formatResultNumber(index, width)}${state} ${formatRelevance(chunk)}  ${formatResultPlace(chunk)}${pinned}  ${chunk.ref}`);
    if (options.explain) lines.push(`  ${" ".repeat(width + 2)}${explainLine(chunk)}`);
  });
  return `${lines.join("\n")}\n`;
}

/** Prints an answer as it streams: the chunks bar, the text, then its sources. */
export interface PrintAnswerOptions {
  /** Where the chunks bar goes: stderr for `ask` (stdout keeps the answer), stdout in a chat. */
  bar: CliIo["stdout"];
  /** Show each chunk's on/off state (chat). */
  toggles?: boolean;
  /** Show each chunk's raw search numbers under it (--explain). */
  explain?: boolean;
  /** Notices already shown in this session, not repeated. */
  seenNotices?: Set<string>;
}

export async function printAnswer(io: CliIo, events: AsyncIterable<AskEvent>, options: PrintAnswerOptions): Promise<AnswerResult | undefined> {
  let answer: AnswerResult | undefined;
  for await (const event of events) {
    if (event.type === "chunks") {
      for (const notice of event.search.notices.map(cliNotice)) {
        if (options.seenNotices?.has(notice)) continue;
        options.seenNotices?.add(notice);
        io.stderr.write(`note: ${notice}\n`);
      }
      options.bar.write(formatChunksBar(event.chunks, { mode: event.search.mode, toggles: options.toggles === true, explain: options.explain === true }));
    } else if (event.type === "refused") {
      io.stdout.write(`${event.text}\n`);
      const message = `${event.message}${event.reason === "below-similarity-floor" ? " The nearest chunks are listed above." : ""}`;
      io.stderr.write(`${withCliNextSteps(message, event.nextSteps, options.toggles === true ? "chat" : "command")}\n`);
    } else if (event.type === "answer-start") {
      io.stderr.write(`Answering with ${event.provider} (${event.model}) from ${plural(event.labels.length, "chunk")}…\n`);
    } else if (event.type === "text-delta") {
      io.stdout.write(event.text);
    } else {
      answer = event.answer;
    }
  }
  if (answer && !answer.refused) io.stdout.write(formatAnswerEnd(answer));
  if (answer?.error) io.stderr.write(`chunkpad: ${withCliNextSteps(answer.error.message, answer.error.nextSteps)}\n`);
  return answer;
}

/** What follows the streamed text: the incomplete marker and the sources, invented ones flagged. */
export function formatAnswerEnd(answer: AnswerResult): string {
  const lines: string[] = [];
  if (answer.text !== "" && !answer.text.endsWith("\n")) lines.push("");
  if (answer.incomplete) lines.push(answer.text === "" ? "[no answer]" : "[incomplete: the answer was cut off]");
  if (answer.citations.length > 0 || answer.invalidCitations.length > 0) {
    lines.push("", "Sources:");
    for (const citation of answer.citations) {
      const where = [citation.source, describeCitationLocation(citation), citation.section ? `"${citation.section}"` : undefined];
      lines.push(`  [${citation.label}] ${where.filter(Boolean).join(", ")} · ${citation.ref}`);
    }
    for (const label of answer.invalidCitations) {
      lines.push(`  [${label}?] invented: the answer cites ${label}, but it was given ${givenLabels(answer.labels.length)}; not a real source`);
    }
  } else if (answer.text !== "" && !answer.incomplete) {
    lines.push("", "(The answer cites no chunk.)");
  }
  return `${lines.join("\n")}\n`;
}

function givenLabels(count: number): string {
  if (count === 0) return "no chunks";
  return count === 1 ? "only C1" : `only C1–C${count}`;
}

