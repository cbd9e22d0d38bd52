import OpenAI, { APIError } from "openai";
import type { ChunkpadError } from "../core/errors.js";
import { isChunkpadError } from "../core/errors.js";
import type { ChatMessage, ChatOptions, ChatStreamPart, FinishReason, LlmClient, TokenUsage } from "../core/types.js";
import { detectNetworkFailure, parseRetryAfter, readErrorBody, toChunkpadError } from "./errors.js";
import { missingKeyError, resolveApiKey, type ApiKeySource, type HttpProviderOptions } from "./provider-options.js";
import { collectChat, runChatStream } from "./stream-runner.js";

/**
 * OpenAI Chat Completions, streamed, through the official SDK. Any OpenAI-compatible server
 * (LM Studio, llama.cpp server, vLLM) works by base URL; those need no key, so a placeholder
 * is sent when none is set and the server is not OpenAI's.
 */

export const OPENAI_DEFAULT_BASE_URL = "https://api.openai.com/v1";
const KEY_VARIABLE = "OPENAI_API_KEY";
/** Sent to OpenAI-compatible servers that need no key; the SDK insists on one. */
export const PLACEHOLDER_API_KEY = "chunkpad-no-key";

export interface OpenAiClientOptions extends HttpProviderOptions {
  apiKey?: ApiKeySource;
  /** Defaults to OPENAI_BASE_URL, then https://api.openai.com/v1. */
  baseURL?: string;
}

export function createOpenAiClient(options: OpenAiClientOptions): LlmClient {
  const env = options.env ?? process.env;
  const baseURL = (options.baseURL || env.OPENAI_BASE_URL || OPENAI_DEFAULT_BASE_URL).replace(/\/+$/, "");

  function chatStream(messages: ChatMessage[], chatOptions: ChatOptions = {}): AsyncIterable<ChatStreamPart> {
    const model = chatOptions.model ?? options.model;
    let secrets: string[] = [];
    return runChatStream({
      provider: "openai",
      signal: chatOptions.signal,
      retry: options.retry,
      toError: (thrown) => toOpenAiError(thrown, { model, url: baseURL, secrets }),
      attempt: async function* () {
        const configured = await resolveApiKey(options.apiKey, env, KEY_VARIABLE);
        if (!configured && isOpenAiItself(baseURL)) throw missingKeyError("openai", KEY_VARIABLE);
        const apiKey = configured ?? PLACEHOLDER_API_KEY;
        secrets = configured ? [configured] : [];
        // Silent SDK: the core never prints; what goes wrong comes back as an error part.
        const client = new OpenAI({ apiKey, baseURL, fetch: options.fetch, maxRetries: 0, logLevel: "off" });
        const stream = await client.chat.completions.create(
          {
            model,
            messages: messages.map((message) => ({ role: message.role, content: message.content })),
            stream: true,
            stream_options: { include_usage: true },
            ...(chatOptions.temperature === undefined ? {} : { temperature: chatOptions.temperature }),
            ...(chatOptions.maxTokens === undefined ? {} : { max_tokens: chatOptions.maxTokens }),
          },
          { signal: chatOptions.signal },
        );
        let reason: FinishReason | undefined;
        let usage: TokenUsage | undefined;
        for await (const chunk of stream) {
          if (chunk.usage) usage = { inputTokens: chunk.usage.prompt_tokens, outputTokens: chunk.usage.completion_tokens };
          const choice = chunk.choices[0];
          if (choice?.delta?.content) yield { type: "text-delta", text: choice.delta.content };
          if (choice?.finish_reason) reason = finishReason(choice.finish_reason);
        }
        // The SDK hides [DONE]; a stream that never gave a finish_reason was cut off.
        if (reason !== undefined) yield { type: "finish", reason, ...(usage ? { usage } : {}) };
      },
    });
  }

  return {
    provider: "openai",
    model: options.model,
    chatStream,
    chat: (messages, chatOptions) => collectChat(chatStream(messages, chatOptions)),
  };
}

function isOpenAiItself(baseURL: string): boolean {
  try {
    return new URL(baseURL).hostname === "api.openai.com";
  } catch {
    return false;
  }
}

function finishReason(value: string): FinishReason {
  if (value === "stop") return "stop";
  if (value === "length") return "length";
  return "other";
}

function toOpenAiError(thrown: unknown, context: { model: string; url: string; secrets: string[] }): ChunkpadError {
  if (isChunkpadError(thrown)) return thrown;
  const base = { provider: "openai" as const, model: context.model, url: context.url };
  const network = detectNetworkFailure(thrown);
  if (network) return toChunkpadError({ ...base, network, cause: thrown }, context.secrets);
  if (thrown instanceof APIError) {
    const body = readErrorBody(thrown.error);
    return toChunkpadError(
      {
        ...base,
        statusCode: thrown.status,
        providerMessage: body.message,
        providerType: thrown.code ?? thrown.type ?? body.type,
        retryAfterMs: parseRetryAfter(thrown.headers),
      },
      context.secrets,
    );
  }
  return toChunkpadError({ ...base, providerMessage: thrown instanceof Error ? thrown.message : String(thrown) }, context.secrets);
}
