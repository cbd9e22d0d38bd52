import { withCliNextSteps } from "../shared/next-step.js";
import type { Command } from "commander";
import { ChunkpadError, isChunkpadError, parseProviderName, type ChatSession, type Chunkpad } from "../../index.js";
import type { CliContext } from "../context.js";
import type { CliIo } from "../shared/io.js";
import { createLineReader } from "../shared/prompt.js";
import { addAnswerOptions, answerOptionsOf, downloadCallbacks, formatChunksBar, printAnswer, type AnswerFlags } from "../shared/answer.js";
import { formatConversation } from "../shared/render.js";

/** `chunkpad chat`: questions and slash commands, one per line, from a terminal or a pipe. */

const HELP = `Type a question, or a command:
  /chunks             show the chunks of the last question (number, relevance, on/off)
  /toggle <n>         switch chunk n off or on for the next /regen
  /regen              answer the last question again with the chunks that are on (no new search)
  /pin <document>     always give the answers this document's chunks
  /unpin              forget the pinned documents
  /provider <p> [m]   answer with provider p (anthropic, openai, ollama, local), model m
  /new                start a new conversation
  /history            show this conversation
  /help               show this help
  /quit               leave (so does Ctrl-D)
`;

export function registerChatCommand(program: Command, context: CliContext): void {
  addAnswerOptions(program.command("chat").description("Chat with your documents: follow-up questions, switch chunks off and regenerate"))
    .option("--continue <conversation>", "continue a stored conversation (its id from chunkpad history)")
    .action(async (flags: AnswerFlags & { continue?: string }) => {
      const { io } = context;
      const chunkpad = context.chunkpad();
      const lines = createLineReader(io);
      const conversationId = flags.continue ? (await chunkpad.getConversation(flags.continue)).id : undefined;
      const session = await chunkpad.startChat({
        ...answerOptionsOf(flags),
        ...downloadCallbacks(io, flags.yes === true, lines),
        onNotice: (message) => io.stderr.write(`note: ${message}\n`),
        ...(conversationId ? { conversationId } : {}),
      });
      const interactive = Boolean(io.stdin.isTTY);
      if (interactive) io.stderr.write("Chat with your documents. Ask a question, or /help for commands.\n");
      const view: ChatView = { io, seenNotices: new Set() };
      let failed = false;
      try {
        for (;;) {
          if (interactive) io.stderr.write("> ");
          const line = await lines.next();
          if (line === null) break;
          const input = line.trim();
          if (input === "") continue;
          try {
            const outcome = input.startsWith("/") ? await runCommand(view, chunkpad, session, input) : await answer(view, session.ask(input));
            if (outcome === "quit") break;
            if (outcome === "failed") failed = true;
          } catch (error) {
            if (!isChunkpadError(error)) throw error;
            io.stderr.write(`chunkpad: ${withCliNextSteps(error.message, error.nextSteps)}\n`);
            failed = true;
          }
        }
      } finally {
        lines.close();
      }
      if (failed) context.exitCode = 1;
    });
}

type Outcome = "ok" | "failed" | "quit";

/** The chat's terminal and what it has already said. */
interface ChatView {
  io: CliIo;
  /** Notices (such as "no chunks are embedded yet") are shown once per chat, not after every question. */
  seenNotices: Set<string>;
}

async function answer(view: ChatView, events: ReturnType<ChatSession["ask"]>): Promise<Outcome> {
  const { io } = view;
  const result = await printAnswer(io, events, { bar: io.stdout, toggles: true, seenNotices: view.seenNotices });
  io.stdout.write("\n");
  return result?.error ? "failed" : "ok";
}

/** Calls `announce` once the events start, so nothing is announced when the first step throws. */
async function* announced<Event>(events: AsyncGenerator<Event>, announce: () => void): AsyncGenerator<Event> {
  let first = true;
  for await (const event of events) {
    if (first) announce();
    first = false;
    yield event;
  }
}

async function runCommand(view: ChatView, chunkpad: Chunkpad, session: ChatSession, input: string): Promise<Outcome> {
  const { io } = view;
  const [name = "", ...rest] = input.slice(1).split(/\s+/);
  const argument = rest.join(" ").trim();
  switch (name.toLowerCase()) {
    case "chunks":
      io.stdout.write(formatChunksBar(session.chunks, { toggles: true }));
      return "ok";
    case "toggle": {
      if (!/^\d+$/.test(argument)) {
        throw new ChunkpadError("INVALID_ARGUMENT", "/toggle takes the number of a chunk, as /chunks shows it (for example /toggle 2).");
      }
      const chunk = session.toggle(Number(argument));
      io.stdout.write(`Chunk ${argument} (${chunk.ref}) is now ${chunk.isIncluded ? "on" : "off"}. /regen answers again with the chunks that are on.\n`);
      return "ok";
    }
    case "regen": {
      const on = session.chunks.filter((chunk) => chunk.isIncluded).length;
      // Said once the session agrees to regenerate: before any question it refuses instead.
      return answer(
        view,
        announced(session.regenerate(), () => io.stderr.write(`Regenerating with ${on} of ${session.chunks.length} chunks, without searching again.\n`)),
      );
    }
    case "pin":
      session.pin(argument);
      io.stdout.write(`Pinned: ${session.pins.join(", ")}. The next questions get their chunks first.\n`);
      return "ok";
    case "unpin":
      session.unpin();
      io.stdout.write("No document is pinned now.\n");
      return "ok";
    case "provider": {
      if (argument === "") {
        const current = session.provider;
        const rows = await chunkpad.providers();
        const provider = current.provider ?? rows.find((row) => row.selected)?.provider;
        const model = current.model ?? rows.find((row) => row.provider === provider)?.model;
        const origin = current.provider ? "" : " (from your setup)";
        io.stdout.write(`Provider: ${provider ?? "none"}${model ? `, model ${model}` : ""}${origin}.\n`);
        return "ok";
      }
      const [provider = "", model] = argument.split(/\s+/);
      session.setProvider(parseProviderName(provider), model);
      io.stdout.write(`The next answers come from ${provider}${model ? ` (${model})` : ""}.\n`);
      return "ok";
    }
    case "new":
      session.reset();
      io.stdout.write("New conversation.\n");
      return "ok";
    case "history":
      if (session.conversationId === null) io.stdout.write("Nothing in this conversation yet.\n");
      else io.stdout.write(formatConversation(await chunkpad.getConversation(session.conversationId)));
      return "ok";
    case "help":
      io.stdout.write(HELP);
      return "ok";
    case "quit":
    case "exit":
      return "quit";
    default:
      io.stderr.write(`Unknown command /${name}. /help lists the commands.\n`);
      return "failed";
  }
}
