import { ChunkpadError } from "../../core/errors.js";
import type { ChatMessage } from "../../core/types.js";
import type { LlmProviderName } from "../../llm/index.js";
import { renderCitations } from "../../rag/citations.js";
import { answerFromChunks, askQuestion, type AnswerSettings, type AskDependencies, type AskEvent } from "./ask.js";
import type { SearchMode, SearchOptions, SearchResult } from "../search/search.js";

/**
 * One chat: questions answered with the conversation so far, the chunks of the last question
 * (the "chunks bar") that the user can switch off and on, and regenerate, which answers the
 * last question again from the current selection without searching again.
 */

export interface ChatSessionOptions extends Omit<SearchOptions, "pins">, AnswerSettings {
  /** Continue this stored conversation; default: a new one starts with the first question. */
  conversationId?: string;
  pins?: readonly string[];
}

export interface ChatSession {
  /** The stored conversation, once the first answer is stored. */
  readonly conversationId: string | null;
  /** The chunks of the last question, in the order shown, with the user's toggles. */
  readonly chunks: readonly SearchResult[];
  /** Documents pinned for the next questions. */
  readonly pins: readonly string[];
  readonly provider: { provider?: LlmProviderName; model?: string };
  /** Searches and answers, with the earlier turns of this conversation in the prompt. */
  ask(question: string): AsyncGenerator<AskEvent>;
  /** Answers the last question again with the current chunk selection; no new search. */
  regenerate(): AsyncGenerator<AskEvent>;
  /** Switches chunk `number` (1-based, as shown) off or on; returns it. */
  toggle(number: number): SearchResult;
  /** Switches on exactly the chunks numbered in `numbers` (1-based, as shown), the others off. */
  setIncluded(numbers: readonly number[]): void;
  pin(document: string): void;
  unpin(): void;
  setProvider(provider: LlmProviderName, model?: string): void;
  /** Starts a new conversation: no history, no chunks. */
  reset(): void;
}

export async function createChatSession(dependencies: AskDependencies, options: ChatSessionOptions = {}): Promise<ChatSession> {
  const { conversationId: initialConversation, pins: initialPins, provider: initialProvider, model: initialModel, ...rest } = options;
  let conversationId: string | null = initialConversation ?? null;
  let chunks: SearchResult[] = [];
  let searchMode: SearchMode = "keyword";
  let pins = [...(initialPins ?? [])];
  let provider: { provider?: LlmProviderName; model?: string } = {
    ...(initialProvider ? { provider: initialProvider } : {}),
    ...(initialModel ? { model: initialModel } : {}),
  };
  /** The turns the model sees: each question with its latest answer, citations removed. */
  let turns: ChatMessage[] = [];
  let lastQuestion: string | undefined;

  if (conversationId !== null) {
    const stored = await dependencies.chats().getConversation(conversationId);
    if (!stored) throw new ChunkpadError("NOT_FOUND", `There is no conversation ${conversationId}. Run "chunkpad history" to list them.`);
    for (const message of stored.messages) {
      if (message.role === "user") turns.push({ role: "user", content: message.content });
      else if (message.role === "assistant") recordAnswer(message.content, turns.at(-1)?.role === "assistant");
    }
    // The last question's sources, with the user's toggles, come back from the chat store: a
    // reopened conversation (another process, a restarted server) regenerates without searching.
    const question = stored.messages.findLast((message) => message.role === "user");
    if (question?.sources && dependencies.restoreSources) {
      ({ searchMode, chunks } = await dependencies.restoreSources(question.sources));
      lastQuestion = question.content;
    }
  }

  function recordAnswer(text: string, replacing: boolean): void {
    // Labels are renumbered for every question, so old [C2]s would point at the wrong excerpts.
    const content = renderCitations(text, [], { renderInvalid: () => "" }).replace(/[ \t]+([.,;:!?])/g, "$1");
    if (replacing) turns[turns.length - 1] = { role: "assistant", content };
    else turns.push({ role: "assistant", content });
  }

  async function* follow(events: AsyncGenerator<AskEvent>, replacing: boolean): AsyncGenerator<AskEvent> {
    for await (const event of events) {
      if (event.type === "chunks") {
        chunks = event.chunks;
        searchMode = event.search.mode;
      }
      if (event.type === "done") {
        if (event.answer.conversationId !== null) conversationId = event.answer.conversationId;
        if (event.answer.text !== "") recordAnswer(event.answer.text, replacing);
      }
      yield event;
    }
  }

  const settings = () => ({ ...rest, ...provider });

  return {
    get conversationId() {
      return conversationId;
    },
    get chunks() {
      return chunks;
    },
    get pins() {
      return pins;
    },
    get provider() {
      return provider;
    },

    async *ask(question) {
      const history = [...turns];
      lastQuestion = question;
      const events = askQuestion(dependencies, question, { ...settings(), pins, history, ...(conversationId ? { conversationId } : {}) });
      // The question joins the turns once it is asked, answered or not.
      let asked = false;
      for await (const event of follow(events, false)) {
        if (!asked && (event.type === "refused" || event.type === "answer-start")) {
          turns.push({ role: "user", content: question });
          asked = true;
        }
        yield event;
      }
    },

    async *regenerate() {
      if (lastQuestion === undefined) {
        throw new ChunkpadError("INVALID_ARGUMENT", "There is no answer to regenerate yet. Ask a question first.");
      }
      const question = lastQuestion;
      // The history before the last question and its answer.
      const lastUser = turns.map((turn) => turn.role).lastIndexOf("user");
      const history = lastUser >= 0 ? turns.slice(0, lastUser) : [...turns];
      const replacing = turns.at(-1)?.role === "assistant";
      const events = answerFromChunks(dependencies, {
        ...settings(),
        question,
        chunks,
        searchMode,
        history,
        storeQuestion: false,
        ...(conversationId ? { conversationId } : {}),
      });
      yield* follow(events, replacing);
    },

    toggle(number) {
      const chunk = chunks[number - 1];
      if (!Number.isInteger(number) || chunk === undefined) {
        const range = chunks.length === 0 ? "There are no chunks yet: ask a question first." : `Give a number from 1 to ${chunks.length}.`;
        throw new ChunkpadError("INVALID_ARGUMENT", `There is no chunk ${number}. ${range}`);
      }
      chunk.isIncluded = !chunk.isIncluded;
      return chunk;
    },

    setIncluded(numbers) {
      const wrong = numbers.filter((number) => !Number.isInteger(number) || number < 1 || number > chunks.length);
      if (wrong.length > 0) {
        const range = chunks.length === 0 ? "There are no chunks yet: ask a question first." : `Give numbers from 1 to ${chunks.length}.`;
        throw new ChunkpadError("INVALID_ARGUMENT", `There is no chunk ${wrong.join(", ")}. ${range}`);
      }
      chunks.forEach((chunk, index) => {
        chunk.isIncluded = numbers.includes(index + 1);
      });
    },

    pin(document) {
      if (document.trim() === "") throw new ChunkpadError("INVALID_ARGUMENT", "Name the document to pin: its file name, its path in the folder, or part of its title.");
      if (!pins.includes(document)) pins = [...pins, document];
    },
    unpin() {
      pins = [];
    },
    setProvider(name, model) {
      provider = { provider: name, ...(model ? { model } : {}) };
    },
    reset() {
      conversationId = null;
      chunks = [];
      turns = [];
      lastQuestion = undefined;
    },
  };
}
