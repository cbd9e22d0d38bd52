import { withCliNextSteps } from "../shared/next-step.js";
import { type Command } from "commander";
import {
  ChunkpadError,
  createAnswerCollector,
  describeError,
  isChunkpadError,
  toAskFailureEvents,
  toAskStreamEvents,
  type AskStreamEvent,
  type AskEvent,
} from "../../index.js";
import type { CliContext } from "../context.js";
import { exitCodeFor, printJson, type CliIo } from "../shared/io.js";
import { addAnswerOptions, answerOptionsOf, downloadCallbacks, printAnswer, type AnswerFlags } from "../shared/answer.js";

/** `chunkpad ask`, and the printing it shares with `chunkpad chat`. */

export function registerAskCommand(program: Command, context: CliContext): void {
  addAnswerOptions(
    program
      .command("ask")
      .description("Answer a question from your documents, with citations ([C1] → file, page, chunk)")
      .argument("<question...>", "the question"),
  )
    .option("--explain", "show each chunk's raw search numbers (distance, keyword score, ranks)")
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
        if (error) io.stderr.write(`chunkpad: ${isChunkpadError(error) ? withCliNextSteps(error.message, error.nextSteps) : describeError(error)}\n`);
      } else if (flags.json) {
        const collector = createAnswerCollector(question);
        for await (const event of events) collector.add(event);
        const answer = collector.result();
        printJson(io, answer);
        error = answer.error === null ? undefined : new ChunkpadError(answer.error.code, answer.error.message);
        if (answer.error) io.stderr.write(`chunkpad: ${withCliNextSteps(answer.error.message, answer.error.nextSteps)}\n`);
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
