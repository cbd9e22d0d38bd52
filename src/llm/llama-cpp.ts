import path from "node:path";
import { isChunkpadError, type ChunkpadError } from "../core/errors.js";
import type { ChatMessage, ChatOptions, ChatStreamPart, LlmClient, ModelStatus } from "../core/types.js";
import { toChunkpadError } from "./errors.js";
import { loadLlamaCppGenerator, type LlamaCppEngineOptions, type LocalGenerator } from "./llama-cpp-engine.js";
import { collectChat, runChatStream } from "./stream-runner.js";

/**
 * A GGUF model (Llama 3.2 Instruct by default) run in-process with node-llama-cpp. The model is
 * loaded on the first question and kept until dispose(); text arrives through onTextChunk and
 * leaves as text-delta parts.
 */

export interface LlamaCppClientOptions extends LlamaCppEngineOptions {
  /** The .gguf file (see local-model.ts for the catalog and the download). */
  modelPath: string;
  /** The name shown for the model; defaults to the file name. */
  model?: string;
  /** Told when loading starts, ends, or fails. */
  onStatus?: (status: ModelStatus) => void;
  /** Replaced in tests; defaults to node-llama-cpp. */
  loadGenerator?: (modelPath: string, options: LlamaCppEngineOptions) => Promise<LocalGenerator>;
}

export interface LocalLlmClient extends LlmClient {
  /** Frees the model's memory; the next question loads it again. */
  dispose(): Promise<void>;
}

export function createLlamaCppClient(options: LlamaCppClientOptions): LocalLlmClient {
  const model = options.model ?? path.basename(options.modelPath, ".gguf");
  const loadGenerator = options.loadGenerator ?? loadLlamaCppGenerator;
  let loading: Promise<LocalGenerator> | undefined;

  function load(): Promise<LocalGenerator> {
    if (!loading) {
      options.onStatus?.({ state: "loading" });
      const { contextSizeTokens, threads, onLog } = options;
      loading = loadGenerator(options.modelPath, { contextSizeTokens, threads, onLog }).then(
        (generator) => {
          options.onStatus?.({ state: "ready" });
          return generator;
        },
        (error: unknown) => {
          // Forget the failure: the file may be replaced before the next question.
          loading = undefined;
          options.onStatus?.({ state: "error", message: error instanceof Error ? error.message : String(error) });
          throw error;
        },
      );
    }
    return loading;
  }

  function chatStream(messages: ChatMessage[], chatOptions: ChatOptions = {}): AsyncIterable<ChatStreamPart> {
    return runChatStream({
      provider: "local",
      signal: chatOptions.signal,
      retry: { maxAttempts: 1 },
      toError: (thrown) => toLocalError(thrown, model, options.modelPath),
      attempt: async function* () {
        const generator = await load();
        // Stops the generation when the consumer leaves early, not only when it aborts.
        const stop = new AbortController();
        const signal = chatOptions.signal ? AbortSignal.any([chatOptions.signal, stop.signal]) : stop.signal;
        try {
          const texts = bridgeCallbacks((onTextChunk) =>
            generator.generate(messages, { temperature: chatOptions.temperature, maxTokens: chatOptions.maxTokens, signal, onTextChunk }),
          );
          let next = await texts.next();
          while (!next.done) {
            yield { type: "text-delta", text: next.value };
            next = await texts.next();
          }
          yield { type: "finish", reason: next.value.reason, usage: next.value.usage };
        } finally {
          stop.abort();
        }
      },
    });
  }

  return {
    provider: "local",
    model,
    chatStream,
    chat: (messages, chatOptions) => collectChat(chatStream(messages, chatOptions)),
    async dispose() {
      const current = loading;
      loading = undefined;
      if (current) await (await current.catch(() => undefined))?.dispose();
    },
  };
}

/** Turns a callback-driven producer into an async iterator of what it pushes, then its result. */
export async function* bridgeCallbacks<Result>(run: (push: (text: string) => void) => Promise<Result>): AsyncGenerator<string, Result> {
  const pending: string[] = [];
  let settled: { ok: true; value: Result } | { ok: false; error: unknown } | undefined;
  let wake: (() => void) | undefined;
  const notify = () => {
    wake?.();
    wake = undefined;
  };
  Promise.resolve()
    .then(() =>
      run((text) => {
        pending.push(text);
        notify();
      }),
    )
    .then(
    (value) => {
      settled = { ok: true, value };
      notify();
    },
    (error: unknown) => {
      settled = { ok: false, error };
      notify();
    },
  );
  for (;;) {
    const text = pending.shift();
    if (text !== undefined) {
      yield text;
      continue;
    }
    if (settled?.ok) return settled.value;
    if (settled) throw settled.error;
    await new Promise<void>((resolve) => {
      wake = resolve;
    });
  }
}

function toLocalError(thrown: unknown, model: string, modelPath: string): ChunkpadError {
  if (isChunkpadError(thrown)) return thrown;
  return toChunkpadError({ provider: "local", model, url: modelPath, providerMessage: thrown instanceof Error ? thrown.message : String(thrown) });
}
