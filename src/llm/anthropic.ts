import Anthropic, { APIError } from "@anthropic-ai/sdk";
import type { ChatMessage, FinishReason, LlmClient } from "../core/types.js";
import {
  DEFAULT_MAX_OUTPUT_TOKENS,
  missingKeyError,
  resolveApiKey,
  type ApiKeySource,
  type HttpProviderOptions,
} from "./provider-options.js";
import { createSdkClient } from "./sdk-client.js";

/** Anthropic's Messages API, streamed, through the official SDK (its own retries off: we retry). */

export const ANTHROPIC_DEFAULT_BASE_URL = "https://api.anthropic.com";
const KEY_VARIABLE = "ANTHROPIC_API_KEY";

export interface AnthropicClientOptions extends HttpProviderOptions {
  apiKey?: ApiKeySource;
  /** Defaults to ANTHROPIC_BASE_URL, then https://api.anthropic.com. */
  baseURL?: string;
}

export function createAnthropicClient(options: AnthropicClientOptions): LlmClient {
  return createSdkClient({
    provider: "anthropic",
    options,
    baseUrlVariable: "ANTHROPIC_BASE_URL",
    defaultBaseUrl: ANTHROPIC_DEFAULT_BASE_URL,
    readApiError: (thrown) =>
      thrown instanceof APIError
        ? { statusCode: thrown.status, headers: thrown.headers, body: thrown.error, providerType: thrown.type ?? undefined }
        : undefined,
    attempt: async function* ({ messages, chatOptions, model, env, settings, useSecrets }) {
      const apiKey = await resolveApiKey(options.apiKey, env, KEY_VARIABLE);
      if (!apiKey) throw missingKeyError("anthropic", KEY_VARIABLE);
      useSecrets([apiKey]);
      const client = new Anthropic(settings(apiKey));
      const { system, turns } = toAnthropicMessages(messages);
      const stream = await client.messages.create(
        {
          model,
          max_tokens: chatOptions.maxTokens ?? DEFAULT_MAX_OUTPUT_TOKENS,
          messages: turns,
          stream: true,
          ...(system ? { system } : {}),
          ...(chatOptions.temperature === undefined ? {} : { temperature: chatOptions.temperature }),
        },
        { signal: chatOptions.signal },
      );
      let inputTokens: number | undefined;
      let outputTokens: number | undefined;
      let reason: FinishReason = "other";
      for await (const event of stream) {
        if (event.type === "message_start") {
          inputTokens = event.message.usage.input_tokens;
          outputTokens = event.message.usage.output_tokens;
        } else if (event.type === "content_block_delta" && event.delta.type === "text_delta") {
          yield { type: "text-delta", text: event.delta.text };
        } else if (event.type === "message_delta") {
          reason = finishReason(event.delta.stop_reason);
          outputTokens = event.usage.output_tokens ?? outputTokens;
        } else if (event.type === "message_stop") {
          yield { type: "finish", reason, usage: { inputTokens, outputTokens } };
          return;
        }
      }
    },
  });
}

/** The system prompt travels apart from the turns; turns alternate, so neighbours of one role merge. */
export function toAnthropicMessages(messages: ChatMessage[]): { system: string; turns: Anthropic.MessageParam[] } {
  const system = messages
    .filter((message) => message.role === "system")
    .map((message) => message.content)
    .join("\n\n");
  const turns: Anthropic.MessageParam[] = [];
  for (const message of messages) {
    if (message.role === "system") continue;
    const last = turns.at(-1);
    if (last && last.role === message.role && typeof last.content === "string") {
      last.content = `${last.content}\n\n${message.content}`;
    } else {
      turns.push({ role: message.role, content: message.content });
    }
  }
  return { system, turns };
}

function finishReason(stopReason: string | null | undefined): FinishReason {
  if (stopReason === "end_turn" || stopReason === "stop_sequence") return "stop";
  if (stopReason === "max_tokens") return "length";
  return "other";
}
