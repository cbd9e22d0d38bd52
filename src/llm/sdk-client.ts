import type { ChunkpadError } from "../core/errors.js";
import { detectNetworkFailure } from "../core/network.js";
import { isChunkpadError } from "../core/errors.js";
import type { ChatMessage, ChatOptions, ChatStreamPart, LlmClient } from "../core/types.js";
import { parseRetryAfter, readErrorBody, toChunkpadError } from "./errors.js";
import type { HttpProviderOptions } from "./provider-options.js";
import { collectChat, runChatStream } from "./stream-runner.js";

/**
 * What the providers built on an official SDK (Anthropic, OpenAI) share around their own wire
 * format: the base URL, the SDK's settings, the key kept for redaction, retries through
 * runChatStream, and the mapping of the SDK's APIError to a ChunkpadError.
 */

export type SdkProviderName = "anthropic" | "openai";

/** Settings both SDK constructors take. */
export interface SdkSettings {
  apiKey: string;
  baseURL: string;
  fetch?: typeof globalThis.fetch;
  maxRetries: number;
  logLevel: "off";
}

/** One request, as an attempt sees it. */
export interface SdkRequest {
  messages: ChatMessage[];
  chatOptions: ChatOptions;
  model: string;
  /** The server, without a trailing slash. */
  baseURL: string;
  env: Record<string, string | undefined>;
  /** The SDK's settings for this key. */
  settings(apiKey: string): SdkSettings;
  /** Names the keys in use, so that no error repeats them. */
  useSecrets(secrets: string[]): void;
}

/** What the error mapping reads from an SDK's APIError. */
export interface SdkApiErrorFields {
  statusCode: number | undefined;
  headers: { get(name: string): string | null } | undefined;
  /** The parsed error body. */
  body: unknown;
  /** The provider's error type or code, when the SDK read one. */
  providerType?: string;
}

export interface SdkClientSpec {
  provider: SdkProviderName;
  options: HttpProviderOptions & { baseURL?: string };
  /** The environment variable naming another base URL, and the URL used without one. */
  baseUrlVariable: string;
  defaultBaseUrl: string;
  /** One try at the SDK's streaming call: yields text deltas then a finish part, throws what went wrong. */
  attempt(request: SdkRequest): AsyncIterable<ChatStreamPart>;
  /** The fields of the SDK's APIError, or undefined when `thrown` is not one. */
  readApiError(thrown: unknown): SdkApiErrorFields | undefined;
}

export function createSdkClient(spec: SdkClientSpec): LlmClient {
  const { provider, options } = spec;
  const env = options.env ?? process.env;
  const baseURL = (options.baseURL || env[spec.baseUrlVariable] || spec.defaultBaseUrl).replace(/\/+$/, "");
  // Silent SDK: the core never prints; what goes wrong comes back as an error part.
  const settings = (apiKey: string): SdkSettings => ({ apiKey, baseURL, fetch: options.fetch, maxRetries: 0, logLevel: "off" });

  function chatStream(messages: ChatMessage[], chatOptions: ChatOptions = {}): AsyncIterable<ChatStreamPart> {
    const model = chatOptions.model ?? options.model;
    let secrets: string[] = [];
    return runChatStream({
      provider,
      signal: chatOptions.signal,
      retry: options.retry,
      toError: (thrown) => toSdkError(thrown, spec, { model, url: baseURL, secrets }),
      attempt: () =>
        spec.attempt({
          messages,
          chatOptions,
          model,
          baseURL,
          env,
          settings,
          useSecrets: (keys) => {
            secrets = keys;
          },
        }),
    });
  }

  return {
    provider,
    model: options.model,
    chatStream,
    chat: (messages, chatOptions) => collectChat(chatStream(messages, chatOptions)),
  };
}

function toSdkError(thrown: unknown, spec: SdkClientSpec, context: { model: string; url: string; secrets: string[] }): ChunkpadError {
  if (isChunkpadError(thrown)) return thrown;
  const base = { provider: spec.provider, model: context.model, url: context.url };
  const network = detectNetworkFailure(thrown);
  if (network) return toChunkpadError({ ...base, network, cause: thrown }, context.secrets);
  const apiError = spec.readApiError(thrown);
  if (apiError) {
    const body = readErrorBody(apiError.body);
    return toChunkpadError(
      {
        ...base,
        statusCode: apiError.statusCode,
        providerMessage: body.message,
        providerType: apiError.providerType ?? body.type,
        retryAfterMs: parseRetryAfter(apiError.headers),
      },
      context.secrets,
    );
  }
  return toChunkpadError({ ...base, providerMessage: thrown instanceof Error ? thrown.message : String(thrown) }, context.secrets);
}
