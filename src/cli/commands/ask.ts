import { Option, type Command } from "commander";
import {
  ChunkpadError,
  createAnswerCollector,
  describeCitationLocation,
  describeError,
  toAskFailureEvents,
  toAskStreamEvents,
  type AskStreamEvent,
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
import type { CliContext } from "../main.js";
import { formatRelevance, formatResultNumber, formatResultPlace } from "../format-results.js";
import { exitCodeFor, printJson, type CliIo } from "../io.js";
import { askYesNo, canPrompt, type LineReader } from "../prompt.js";
import { addSearchOptions, SEARCH_FLAG_HELP, searchOptionsOf, type SearchFlagHelp, type SearchFlags } from "../search-options.js";
import { explainLine } from "./search.js";

/** `chunkpad ask`, and the printing it shares with `chunkpad chat`. */

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

export function registerAskCommand(program: Command, context: CliContext): void {
  addAnswerOptions(
    program
      .command("ask")
      .description("Answer a question from your documents, with citations ([C1] → file, page, chunk)")
      .argument("<question...>", "the question"),
  )
    .option("--explain", "show each chunk's raw search numbers (distance, bm25, ranks)")
    .option("--json", "print the chunks, answer and citations as JSON on stdout when done")
    .option("--ndjson", "stream the answer as JSON events on stdout, one a line (chunks, text-delta, citation, error, final)")
    .action(async (words: string[], flags: AnswerFlags & { explain?: boolean; json?: boolean; ndjson?: boolean }) => {
      const { io } = context;
      const question = words.join(" ");
      const events = context.chunkpad().ask(question, {
        ...answerOptionsOf(flags),
        ...downloadCallbacks(io, flags.yes === true),
        onNotice: (message) => io.stderr.write(`note: ${message}\n`),
      });
      let error: unknown;
      if (flags.ndjson) {
        error = await streamEvents(io, question, events);
        if (error) io.stderr.write(`chunkpad: ${describeError(error)}\n`);
      } else if (flags.json) {
        const collector = createAnswerCollector(question);
        for await (const event of events) collector.add(event);
        const answer = collector.result();
        printJson(io, answer);
        error = answer.error === null ? undefined : new ChunkpadError(answer.error.code, answer.error.message);
        if (answer.error) io.stderr.write(`chunkpad: ${answer.error.message}\n`);
      } else {
        error = (await printAnswer(io, events, { bar: io.stderr, explain: flags.explain === true }))?.error;
      }
      if (error) context.exitCode = exitCodeFor(error);
    });
}

/**
 * Writes the ask stream as NDJSON wire events. A failure becomes an `error` and a `final`
 * event rather than a half-written stream, so a reader always sees the end; it is returned for
 * the exit code.
 */
async function streamEvents(io: CliIo, question: string, events: AsyncIterable<AskEvent>): Promise<unknown> {
  const collector = createAnswerCollector(question);
  const write = (wireEvents: AskStreamEvent[]) => {
    for (const event of wireEvents) io.stdout.write(`${JSON.stringify(event)}\n`);
  };
  try {
    for await (const event of events) {
      write(toAskStreamEvents(event, collector));
      if (event.type === "done" && event.answer.error) return event.answer.error;
    }
    return undefined;
  } catch (error) {
    write(toAskFailureEvents(error, collector));
    return error;
  }
}

/** Consent and a progress display for the local model's download. */
export function downloadCallbacks(io: CliIo, yes: boolean, lines?: LineReader): Pick<AskOptions, "consent" | "onDownloadProgress"> {
  const progress = createDownloadProgress(io);
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

const NON_TTY_STEP_PERCENT = 10;

/** A redrawn bar on a terminal; otherwise a line every 10%, so logs show the download moving. */
function createDownloadProgress(io: CliIo): (progress: DownloadProgress) => void {
  let lastStep = -1;
  return (progress) => {
    const total = progress.bytesTotal === null ? "?" : formatModelBytes(progress.bytesTotal);
    const text = `downloading ${progress.file}: ${progress.percent}% (${formatModelBytes(progress.bytesDone)} of ${total})`;
    const finished = progress.bytesTotal !== null && progress.bytesDone >= progress.bytesTotal;
    if (io.stderr.isTTY) {
      io.stderr.write(`\r\x1b[2K${text}${finished ? "\n" : ""}`);
      return;
    }
    const step = Math.floor(progress.percent / NON_TTY_STEP_PERCENT);
    if (step === lastStep && !finished) return;
    lastStep = finished ? Infinity : step;
    io.stderr.write(`${text}\n`);
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
      for (const notice of event.search.notices) {
        if (options.seenNotices?.has(notice)) continue;
        options.seenNotices?.add(notice);
        io.stderr.write(`note: ${notice}\n`);
      }
      options.bar.write(formatChunksBar(event.chunks, { mode: event.search.mode, toggles: options.toggles === true, explain: options.explain === true }));
    } else if (event.type === "refused") {
      io.stdout.write(`${event.text}\n`);
      io.stderr.write(`${event.message}${event.reason === "below-similarity-floor" ? " The nearest chunks are listed above." : ""}\n`);
    } else if (event.type === "answer-start") {
      io.stderr.write(`Answering with ${event.provider} (${event.model}) from ${event.labels.length} chunk${event.labels.length === 1 ? "" : "s"}…\n`);
    } else if (event.type === "text-delta") {
      io.stdout.write(event.text);
    } else {
      answer = event.answer;
    }
  }
  if (answer && !answer.refused) io.stdout.write(formatAnswerEnd(answer));
  if (answer?.error) io.stderr.write(`chunkpad: ${answer.error.message}\n`);
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
