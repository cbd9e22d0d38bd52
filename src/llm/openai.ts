import OpenAI, { APIError } from "openai";
import type { FinishReason, LlmClient, TokenUsage } from "../core/types.js";
import { missingKeyError, resolveApiKey, type ApiKeySource, type HttpProviderOptions } from "./provider-options.js";
import { createSdkClient } from "./sdk-client.js";

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
  return createSdkClient({
    provider: "openai",
    options,
    baseUrlVariable: "OPENAI_BASE_URL",
    defaultBaseUrl: OPENAI_DEFAULT_BASE_URL,
    readApiError: (thrown) =>
      thrown instanceof APIError
        ? { statusCode: thrown.status, headers: thrown.headers, body: thrown.error, providerType: thrown.code ?? thrown.type }
        : undefined,
    attempt: async function* ({ messages, chatOptions, model, baseURL, env, settings, useSecrets }) {
      const configured = await resolveApiKey(options.apiKey, env, KEY_VARIABLE);
      if (!configured && isOpenAiItself(baseURL)) throw missingKeyError("openai", KEY_VARIABLE);
      useSecrets(configured ? [configured] : []);
      const client = new OpenAI(settings(configured ?? PLACEHOLDER_API_KEY));
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
