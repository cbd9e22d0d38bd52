import { withNextSteps } from "../nextStep.js";
import { useQueryClient } from "@tanstack/react-query";
import { useCallback, useRef, useState } from "react";
import { post, remove } from "../api/client.js";
import type { AnswerChunk, Conversation, Job } from "../api/types.js";
import { fetchConversation, keys } from "./queries.js";
import { followJob } from "./useJobEvents.js";

/** A source of an answer: a chunk the question found, numbered as found, switched on or off. */
export type Source = Omit<AnswerChunk, "relevancePercent" | "section" | "pinned"> & { relevancePercent: number | null };

export interface Turn {
  question: string;
  sources: Source[];
  answer: string;
  /**
   * Which chunk each [C#] of the answer names. The labels number only the chunks the answer
   * was given (switched on, within the budget), so [C2] is not source #2: they come from the
   * server with the final answer, or from the stored conversation.
   */
  labels: Array<{ label: string; ref: string }> | null;
  /** Labels the answer cites that it was never given (an invented [C42]). */
  invalidCitations: string[];
  done: boolean;
  stopped: boolean;
  error: string | null;
  /** MODEL_CONSENT_REQUIRED offers the local model's download. */
  errorCode: string | null;
  /** Download of the local model, in percent, while it runs. */
  download: number | null;
  jobId: string | null;
  /** Reopened with the sources the chat store kept (relevance and toggles as shown). */
  stored?: boolean;
}

export interface AskOptions {
  provider?: string;
  model?: string;
  strict?: boolean;
  pins?: string[];
}

const emptyTurn = (question: string): Turn => ({ question, sources: [], answer: "", labels: null, invalidCitations: [], done: false, stopped: false, error: null, errorCode: null, download: null, jobId: null });

/** Plain text inside the Markdown an answer is shown as: "<fraction>" stays text, not a tag the sanitizer drops. */
const asMarkdownText = (text: string) => text.replace(/[\\`*_[\]<>#|~]/g, (character) => `\\${character}`);

/** A chunk ref is folderId:relative/path#ordinal. */
export const pathOfRef = (ref: string) => ref.slice(ref.indexOf(":") + 1, ref.lastIndexOf("#") > 0 ? ref.lastIndexOf("#") : undefined);

/**
 * The turns of a stored conversation as they were shown live: the question's sources in the
 * order found (the user message keeps their refs), switched on when the answer was given them,
 * and the answer's labels (the assistant message keeps its refs in label order). A regenerated
 * answer follows the one it replaces; the last one is shown.
 */
export function turnsOf(conversation: Conversation): Turn[] {
  const turns: Turn[] = [];
  for (const message of conversation.messages) {
    if (message.role === "user") {
      // Kept with their relevance and toggles since the chat store keeps them; older questions have refs only.
      const sources = message.shownSources ?? message.chunkRefs.map((ref, index) => ({ number: index + 1, ref, relativePath: pathOfRef(ref), location: null, included: true, relevancePercent: null }));
      turns.push({ ...emptyTurn(message.content), done: true, sources, stored: message.shownSources !== null });
    }
    const turn = turns.at(-1);
    if (message.role !== "assistant" || !turn) continue;
    const given = new Set(message.chunkRefs);
    const cited = new Map(message.citations.map((citation) => [citation.ref, citation.location]));
    turn.answer = message.content;
    turn.labels = message.chunkRefs.map((ref, index) => ({ label: `C${index + 1}`, ref }));
    turn.invalidCitations = message.invalidCitations;
    turn.stopped = message.incomplete;
    if (!turn.stored) turn.sources = turn.sources.map((source) => ({ ...source, included: given.has(source.ref), location: cited.get(source.ref) ?? source.location }));
  }
  return turns;
}

/** The chat: turns, the conversation they belong to, asking, regenerating, stopping. */
export function useChat() {
  const [turns, setTurns] = useState<Turn[]>([]);
  const [conversationId, setConversationId] = useState<string | null>(null);
  const [loadError, setLoadError] = useState<string | null>(null);
  const closeStream = useRef<(() => void) | null>(null);
  /** The options of the last question (provider, model, strict, pins), for asking it again. */
  const lastOptions = useRef<AskOptions>({});
  const client = useQueryClient();
  const update = useCallback((change: (turn: Turn) => Turn) => setTurns((all) => (all.length === 0 ? all : [...all.slice(0, -1), change(all.at(-1) as Turn)])), []);
  const busy = turns.some((turn) => !turn.done);

  const follow = useCallback(
    (job: Job) => {
      update((turn) => ({ ...turn, jobId: job.id }));
      closeStream.current = followJob(job, (event) => {
        switch (event.type) {
          case "chunks":
            update((turn) => ({ ...turn, sources: event.chunks.map((chunk) => ({ number: chunk.number, ref: chunk.ref, relativePath: chunk.relativePath, location: chunk.location, included: chunk.included, relevancePercent: chunk.relevancePercent })) }));
            break;
          case "text-delta":
            update((turn) => ({ ...turn, answer: turn.answer + event.text }));
            break;
          case "refused":
            update((turn) => ({ ...turn, answer: `${event.text} ${asMarkdownText(withNextSteps(event.message, event.nextSteps))}` }));
            break;
          case "final": {
            const answer = event.answer;
            if (answer.conversationId) setConversationId(answer.conversationId);
            update((turn) => ({ ...turn, labels: answer.labels.map((label) => ({ label: label.label, ref: label.ref })), invalidCitations: answer.invalidCitations, ...(answer.refused ? {} : { answer: answer.answer }) }));
            break;
          }
          case "download-progress":
            update((turn) => ({ ...turn, download: event.percent }));
            break;
          case "error":
            update((turn) => ({ ...turn, error: withNextSteps(event.error.message, event.error.nextSteps), errorCode: event.error.code }));
            break;
          case "job-failed":
            update((turn) => ({ ...turn, error: event.error?.message === undefined ? "The answer failed." : withNextSteps(event.error.message, event.error.nextSteps), errorCode: event.error?.code ?? null }));
            break;
          default:
            break;
        }
        if (event.type === "job-done" || event.type === "job-failed" || event.type === "job-cancelled") {
          update((turn) => ({ ...turn, done: true, download: null, jobId: null, stopped: event.type === "job-cancelled" }));
          // The list's message counts and order change with every answer.
          void client.invalidateQueries({ queryKey: keys.conversations });
        }
      });
    },
    [client, update],
  );

  const startAsk = useCallback(
    async (body: Record<string, unknown>) => {
      try {
        follow(await post<Job>("/api/ask", body));
      } catch (failure) {
        update((turn) => ({ ...turn, error: (failure as Error).message, done: true }));
      }
    },
    [follow, update],
  );

  const bodyOf = (question: string, options: AskOptions) => ({
    question,
    ...(conversationId ? { conversationId } : {}),
    ...(options.provider ? { provider: options.provider } : {}),
    ...(options.model?.trim() ? { model: options.model.trim() } : {}),
    ...(options.strict ? { strict: true } : {}),
    ...(options.pins && options.pins.length > 0 ? { pins: options.pins } : {}),
  });

  const send = async (question: string, options: AskOptions) => {
    if (question.trim() === "" || busy) return;
    lastOptions.current = options;
    setTurns((all) => [...all, emptyTurn(question.trim())]);
    await startAsk(bodyOf(question.trim(), options));
  };

  /** The last question again, agreeing to download the local model it needs. */
  const askWithDownload = async (options: AskOptions) => {
    const last = turns.at(-1);
    if (!last) return;
    update((turn) => ({ ...emptyTurn(turn.question), download: 0 }));
    await startAsk({ ...bodyOf(last.question, options), consent: true });
  };

  /** The last question again from the sources left switched on; no new search. */
  const regenerate = async () => {
    const last = turns.at(-1);
    if (!last || !conversationId || busy) return;
    update((turn) => ({ ...turn, answer: "", labels: null, invalidCitations: [], done: false, stopped: false, error: null, errorCode: null }));
    try {
      follow(await post<Job>("/api/regenerate", { conversationId, included: last.sources.filter((source) => source.included).map((source) => source.number) }));
    } catch (failure) {
      update((turn) => ({ ...turn, error: (failure as Error).message, done: true }));
    }
  };

  const stop = async () => {
    const jobId = turns.at(-1)?.jobId;
    if (!jobId) return;
    try {
      await remove(`/api/jobs/${jobId}`);
    } catch (failure) {
      update((turn) => ({ ...turn, error: (failure as Error).message }));
    }
  };

  const toggle = (number: number, included: boolean) => update((turn) => ({ ...turn, sources: turn.sources.map((source) => (source.number === number ? { ...source, included } : source)) }));
  const dismissConsent = () => update((turn) => ({ ...turn, errorCode: null }));

  const open = async (id: string) => {
    closeStream.current?.();
    setLoadError(null);
    try {
      const conversation = await fetchConversation(id);
      setTurns(turnsOf(conversation));
      setConversationId(conversation.id);
    } catch (failure) {
      setLoadError((failure as Error).message);
    }
  };

  const reset = () => {
    closeStream.current?.();
    setTurns([]);
    setConversationId(null);
    setLoadError(null);
  };

  return { turns, conversationId, busy, loadError, lastOptions, send, askWithDownload, regenerate, stop, toggle, dismissConsent, open, reset };
}
