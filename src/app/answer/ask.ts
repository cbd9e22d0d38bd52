import { ChunkpadError, isChunkpadError } from "../../core/errors.js";
import type { ChatMessage, ChunkRef, FinishReason, TokenUsage } from "../../core/types.js";
import type { NextStep } from "../../core/next-step.js";
import type { DownloadProgress } from "../../hub/index.js";
import type { DownloadOffer, LlmProviderName } from "../../llm/index.js";
import { parseCitations } from "../../rag/citations.js";
import type { CitationLabel } from "../../rag/context.js";
import { REFUSAL_TEXT, type RefusalReason } from "../../rag/guardrail.js";
import { buildAnswerPrompt, type AnswerMode } from "../../rag/prompt.js";
import type { ChatStore, CitedChunk, MessageSources } from "../../store/index.js";
import { decideRefusal } from "../../rag/question-similarity.js";
import type { ChunkpadConfig } from "../settings/config.js";
import type { LlmSetup } from "./llm-setup.js";
import type { SearchMode, SearchOptions, SearchReport, SearchResult } from "../search/search.js";

/**
 * The ask use case: search, show the chunks, and either refuse ("I don't know based on your
 * documents.") without calling the LLM when the best chunk is below the floor, or stream a
 * grounded answer that cites [C1]..[Cn], then check its citations. Question and answer are
 * kept in the chat database; an answer cut off mid-stream is kept and marked incomplete.
 */

export interface AnswerSettings {
  /** Extractive answers at temperature 0; default from the config (generation.mode). */
  strict?: boolean;
  /** Overrides generation.provider for this answer. */
  provider?: LlmProviderName;
  /** Overrides generation.models.{provider} for this answer. */
  model?: string;
  /** Asked before the local model is downloaded; without it nothing is downloaded. */
  consent?: (offer: DownloadOffer) => Promise<boolean> | boolean;
  onDownloadProgress?: (progress: DownloadProgress) => void;
  /** Retries and other things worth telling the user while the answer comes. */
  onNotice?: (message: string) => void;
  signal?: AbortSignal;
}

export interface AskOptions extends SearchOptions, AnswerSettings {
  /** Adds the question and answer to this conversation; default: a new one titled by the question. */
  conversationId?: string;
  /** Earlier turns, oldest first, for a follow-up question. */
  history?: readonly ChatMessage[];
}

export interface AnswerResult {
  question: string;
  /** The answer as the model wrote it (citations as written), or the refusal text. */
  text: string;
  answerMode: AnswerMode;
  refused: boolean;
  refusal?: { reason: RefusalReason; message: string; nextSteps: NextStep[]; bestSimilarity?: number };
  /** The stream was cut off or failed: `text` is what arrived, and `error` says why. */
  incomplete: boolean;
  error?: ChunkpadError;
  finishReason?: FinishReason;
  usage?: TokenUsage;
  /** [C1]..[Cn] as given to the model: label → chunk reference, file, page. */
  labels: CitationLabel[];
  /** The labels the answer cites, in order of first use. */
  citations: CitationLabel[];
  /** Labels the answer cites that were never given ("C9" with five chunks): invented. */
  invalidCitations: string[];
  /** Included chunks left out of the prompt to stay within the context budget. */
  droppedForBudget: ChunkRef[];
  provider: string | null;
  model: string | null;
  conversationId: string | null;
  messageId: string | null;
}

export type AskEvent =
  | { type: "chunks"; search: SearchReport; chunks: SearchResult[] }
  /** `message` says why; `nextSteps` what the user can do about it, each face in its own terms (decision 060). */
  | { type: "refused"; text: string; reason: RefusalReason; message: string; nextSteps: NextStep[] }
  | { type: "answer-start"; provider: string; model: string; temperature: number; labels: CitationLabel[] }
  | { type: "text-delta"; text: string }
  | { type: "done"; answer: AnswerResult };

export interface AskDependencies {
  search: (question: string, options: SearchOptions) => Promise<SearchReport>;
  getConfig: () => ChunkpadConfig;
  llm: Pick<LlmSetup, "select" | "client">;
  chats: () => ChatStore;
  /** A stored question's sources as search results again (a reopened chat); absent: a reopened chat cannot regenerate. */
  restoreSources?: (sources: MessageSources) => Promise<{ searchMode: SearchMode; chunks: SearchResult[] }>;
  /** Rarity weights of the question's search terms for the guardrail (absent: every term counts the same). */
  termWeights?: (question: string) => Promise<number[]>;
}

export interface AnswerInput extends AnswerSettings {
  question: string;
  /** The chunks, with the user's toggles (isIncluded), in the order shown. */
  chunks: readonly SearchResult[];
  /** The search that found them; decides the guardrail's measure. */
  searchMode: SearchMode;
  history?: readonly ChatMessage[];
  conversationId?: string;
  /** False when regenerating: the question is already stored. */
  storeQuestion?: boolean;
}

const TITLE_MAX_CHARS = 80;

/** Searches, then answers from what was found (see answerFromChunks). */
export async function* askQuestion(dependencies: AskDependencies, question: string, options: AskOptions = {}): AsyncGenerator<AskEvent> {
  if (question.trim() === "") {
    throw new ChunkpadError("INVALID_ARGUMENT", 'The question is empty. Ask something, for example "What does the contract say about renewal?"');
  }
  const search = await dependencies.search(question, searchOptionsOf(options));
  const chunks = search.results.map((result) => ({ ...result }));
  yield { type: "chunks", search, chunks };
  yield* answerFromChunks(dependencies, { ...options, question, chunks, searchMode: search.mode });
}

/**
 * Answers from chunks already found (also what regenerate runs, without searching again):
 * the guardrail first, then the LLM stream. Errors before the stream (no consent for the
 * local model, a bad provider name) are thrown; errors in the stream end it with an
 * incomplete answer that keeps the text that arrived.
 */
export async function* answerFromChunks(dependencies: AskDependencies, input: AnswerInput): AsyncGenerator<AskEvent> {
  const generation = dependencies.getConfig().generation;
  const answerMode: AnswerMode = input.strict ?? generation.mode === "strict" ? "strict" : "normal";
  const base = { question: input.question, answerMode, invalidCitations: [], citations: [], droppedForBudget: [] };
  const clauseWeights = await dependencies.termWeights?.(input.question);
  const decision = decideRefusal(input.question, input.chunks, input.searchMode, generation.minSimilarity, {
    ...(clauseWeights === undefined ? {} : { clauseWeights }),
    ...(generation.minVectorSimilarity === undefined ? {} : { minVectorSimilarity: generation.minVectorSimilarity }),
  });
  if (decision.refuse) {
    const { message, nextSteps } = refusalMessage(decision, input, generation);
    yield { type: "refused", text: REFUSAL_TEXT, reason: decision.reason, message, nextSteps };
    const stored = await store(dependencies, input, { content: REFUSAL_TEXT, citedChunks: [], provider: null, model: null, incomplete: false });
    const refusal = { reason: decision.reason, message, nextSteps, ...(decision.bestSimilarity === undefined ? {} : { bestSimilarity: decision.bestSimilarity }) };
    const answer: AnswerResult = { ...base, text: REFUSAL_TEXT, refused: true, refusal, incomplete: false, labels: [], provider: null, model: null, ...stored };
    yield { type: "done", answer };
    return;
  }

  const selection = await dependencies.llm.select({ ...(input.provider ? { provider: input.provider } : {}), ...(input.model ? { model: input.model } : {}) });
  const client = await dependencies.llm.client(selection, input);
  const prompt = buildAnswerPrompt({ question: input.question, chunks: input.chunks, mode: answerMode, history: input.history ?? [] });
  const labels = prompt.labels;
  yield { type: "answer-start", provider: client.provider, model: client.model, temperature: prompt.temperature, labels };

  let text = "";
  let error: ChunkpadError | undefined;
  let finishReason: FinishReason | undefined;
  let usage: TokenUsage | undefined;
  try {
    for await (const part of client.chatStream(prompt.messages, { temperature: prompt.temperature, ...(input.signal ? { signal: input.signal } : {}) })) {
      if (part.type === "text-delta") {
        text += part.text;
        yield { type: "text-delta", text: part.text };
      } else if (part.type === "finish") {
        finishReason = part.reason;
        usage = part.usage;
      } else {
        error = part.error;
      }
    }
  } catch (thrown) {
    error = isChunkpadError(thrown) ? thrown : new ChunkpadError("INTERNAL", `The answer failed: ${thrown instanceof Error ? thrown.message : String(thrown)}`, { cause: thrown });
  }
  if (finishReason === "cancelled" && !error) error = new ChunkpadError("CANCELLED", "The answer was cancelled; the partial answer is kept.");
  const incomplete = error !== undefined;
  const cited = parseCitations(text, labels);
  const stored =
    text === "" && incomplete
      ? { conversationId: input.conversationId ?? null, messageId: null }
      : await store(dependencies, input, { content: text, citedChunks: citedChunksOf(input.chunks, labels.map((label) => label.ref)), provider: client.provider, model: client.model, incomplete });
  const answer: AnswerResult = {
    ...base,
    text,
    refused: false,
    incomplete,
    ...(error ? { error } : {}),
    ...(finishReason ? { finishReason } : {}),
    ...(usage ? { usage } : {}),
    labels,
    citations: cited.used,
    invalidCitations: cited.invalid,
    droppedForBudget: prompt.droppedForBudget,
    provider: client.provider,
    model: client.model,
    ...stored,
  };
  yield { type: "done", answer };
}

function searchOptionsOf(options: AskOptions): SearchOptions {
  const { mode, fusion, minScore, maxDistance, limit, folders, documents, pins, cwd } = options;
  // An answer reads chunks, and several from one document are often what it needs: no grouping.
  const picked: SearchOptions = { mode, fusion, minScore, maxDistance, limit, folders, documents, pins, cwd, perDocument: 0 };
  return Object.fromEntries(Object.entries(picked).filter(([, value]) => value !== undefined)) as SearchOptions;
}

/**
 * Why the question was refused, and what the user can do about it. Below the floor, the suggested
 * floor is the closest chunk's own figure rounded down: the highest floor at which this question
 * is answered (a vector similarity with its own floor, minVectorSimilarity, is not on this scale:
 * no value is suggested then). The message says what the floor is for: lowering it is a choice.
 */
function refusalMessage(
  decision: { reason: RefusalReason; message: string; bestSimilarity?: number },
  input: AnswerInput,
  generation: Pick<ChunkpadConfig["generation"], "minSimilarity" | "minVectorSimilarity">,
): { message: string; nextSteps: NextStep[] } {
  if (decision.reason === "no-included-chunks") {
    return input.chunks.length === 0
      ? { message: "Search found no chunk for this question.", nextSteps: [{ action: "rephrase" }, { action: "add-folder" }] }
      : { message: "Every chunk is switched off.", nextSteps: [{ action: "switch-sources-on" }] };
  }
  if (decision.bestSimilarity === undefined) return { message: decision.message, nextSteps: [{ action: "rephrase" }] };
  const mode = input.searchMode;
  const percent = (value: number) => `${Math.round(value * 100)}%`;
  const measure =
    mode === "keyword"
      ? `The closest chunk holds ${percent(decision.bestSimilarity)} of the question's search words (each weighed by how rare it is in your documents)`
      : `The closest chunk is ${percent(decision.bestSimilarity)} similar to the question`;
  const onFloorScale = mode === "keyword" || generation.minVectorSimilarity === undefined;
  const answeredAt = (Math.floor(decision.bestSimilarity * 100) / 100).toFixed(2);
  return {
    message: `${measure}, below the ${percent(generation.minSimilarity)} answer floor (generation.minSimilarity), under which Chunkpad refuses rather than guess.`,
    nextSteps: [{ action: "rephrase" }, { action: "change-setting", key: "generation.minSimilarity", ...(onFloorScale ? { value: answeredAt } : {}) }],
  };
}

interface AnswerRecord {
  content: string;
  /** The chunks the answer was given, in label order, with their text (history shows it after the document changes). */
  citedChunks: CitedChunk[];
  provider: string | null;
  model: string | null;
  incomplete: boolean;
}

/** Stores the question (unless regenerating) and the answer; the conversation is created on first use. */
async function store(dependencies: AskDependencies, input: AnswerInput, answer: AnswerRecord): Promise<{ conversationId: string; messageId: string }> {
  const chats = dependencies.chats();
  let conversationId = input.conversationId;
  if (conversationId === undefined || (await chats.getConversation(conversationId)) === null) {
    conversationId = (await chats.createConversation({ title: titleOf(input.question), provider: answer.provider, model: answer.model })).id;
  }
  const sources = sourcesOf(input.chunks, input.searchMode);
  if (input.storeQuestion !== false) {
    await chats.addMessage(conversationId, { role: "user", content: input.question, sources });
  } else {
    // Regenerated: the question's sources keep the toggles this answer was given, for a reopened conversation.
    const question = (await chats.getConversation(conversationId))?.messages.findLast((message) => message.role === "user");
    if (question && sources.chunks.length > 0) await chats.updateMessage(question.id, { sources });
  }
  const message = await chats.addMessage(conversationId, { role: "assistant", ...answer });
  if (!message) throw new ChunkpadError("INTERNAL", `The conversation ${conversationId} disappeared while the answer was stored.`);
  return { conversationId, messageId: message.id };
}

/** A question's sources as the chat store keeps them: refs in the order shown, scores, toggles. */
export function sourcesOf(chunks: readonly SearchResult[], searchMode: SearchMode): MessageSources {
  return {
    searchMode,
    chunks: chunks.map((result) => {
      const { chunk: _chunk, isIncluded, ref, documentId: _documentId, documentTitle: _title, relativePath: _path, folderId: _folderId, folderPath: _folderPath, location: _location, section: _section, snippet: _snippet, relevancePercent: _percent, stale: _stale, moreInDocument: _more, ...scores } = result;
      return { ref, included: isIncluded, scores };
    }),
  };
}

function citedChunksOf(chunks: readonly SearchResult[], refs: readonly ChunkRef[]): CitedChunk[] {
  const byRef = new Map(chunks.map((result) => [result.ref, result.chunk]));
  // Labels come from these chunks; one entry per ref either way, so [C2] stays the second.
  return refs.map((ref) => {
    const chunk = byRef.get(ref);
    return { ref, contentHash: chunk?.contentHash ?? "", text: chunk?.content ?? "" };
  });
}

function titleOf(question: string): string {
  const flat = question.replace(/\s+/g, " ").trim();
  return flat.length > TITLE_MAX_CHARS ? `${flat.slice(0, TITLE_MAX_CHARS - 1)}…` : flat;
}
