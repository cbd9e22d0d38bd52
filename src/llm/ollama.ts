import { ChunkpadError, isChunkpadError } from "../core/errors.js";
import { detectNetworkFailure } from "../core/network.js";
import type { ChatMessage, ChatOptions, ChatStreamPart, FinishReason, LlmClient } from "../core/types.js";
import { parseRetryAfter, readErrorBody, toChunkpadError } from "./errors.js";
import { readJsonLines } from "./ndjson.js";
import { isAbortError, type HttpProviderOptions } from "./provider-options.js";
import { collectChat, runChatStream } from "./stream-runner.js";

/**
 * Ollama's HTTP API (/api/chat, streamed as newline-delimited JSON) with plain fetch: the
 * `ollama` package cannot take a per-request AbortSignal before the response starts, logs to
 * the console on errors and skips lines it cannot parse, none of which suits us.
 */

export const OLLAMA_DEFAULT_HOST = "http://127.0.0.1:11434";
const OLLAMA_DEFAULT_PORT = "11434";

export interface OllamaClientOptions extends HttpProviderOptions {
  /** "host", "host:port", ":port" or a URL; defaults to OLLAMA_HOST, then 127.0.0.1:11434. */
  host?: string;
  /** Sent as a bearer token, for an Ollama behind a proxy or ollama.com; usually none. */
  apiKey?: string;
}

export interface OllamaModel {
  name: string;
  sizeBytes: number;
  modifiedAt: string;
  family?: string;
  parameterSize?: string;
  quantization?: string;
}

/** OLLAMA_HOST as Ollama itself reads it: scheme and port optional, 0.0.0.0 means this machine. */
export function resolveOllamaHost(host?: string, env: Record<string, string | undefined> = process.env): string {
  const raw = (host || env.OLLAMA_HOST || "").trim();
  if (raw === "") return OLLAMA_DEFAULT_HOST;
  const explicitScheme = raw.includes("://");
  const url = new URL(explicitScheme ? raw : `http://${raw.startsWith(":") ? `127.0.0.1${raw}` : raw}`);
  if (url.port === "" && !explicitScheme) url.port = OLLAMA_DEFAULT_PORT;
  if (url.hostname === "0.0.0.0") url.hostname = "127.0.0.1";
  if (url.hostname === "[::]") url.hostname = "[::1]";
  return url.toString().replace(/\/+$/, "");
}

export function createOllamaClient(options: OllamaClientOptions): LlmClient {
  const host = resolveOllamaHost(options.host, options.env ?? process.env);
  const fetchImpl = options.fetch ?? globalThis.fetch;
  const secrets = options.apiKey ? [options.apiKey] : [];

  function chatStream(messages: ChatMessage[], chatOptions: ChatOptions = {}): AsyncIterable<ChatStreamPart> {
    const model = chatOptions.model ?? options.model;
    const context = { model, url: host, secrets };
    return runChatStream({
      provider: "ollama",
      signal: chatOptions.signal,
      retry: options.retry,
      toError: (thrown) => toOllamaError(thrown, context),
      attempt: async function* () {
        const modelOptions: Record<string, number> = {};
        if (chatOptions.temperature !== undefined) modelOptions.temperature = chatOptions.temperature;
        if (chatOptions.maxTokens !== undefined) modelOptions.num_predict = chatOptions.maxTokens;
        const response = await fetchImpl(`${host}/api/chat`, {
          method: "POST",
          headers: { "content-type": "application/json", ...(options.apiKey ? { authorization: `Bearer ${options.apiKey}` } : {}) },
          body: JSON.stringify({ model, messages, stream: true, options: modelOptions }),
          signal: chatOptions.signal,
        });
        if (!response.ok || !response.body) throw await responseError(response, context);
        for await (const line of readJsonLines(response.body)) {
          const item = line as OllamaChatLine;
          if (typeof item.error === "string") throw toChunkpadError({ provider: "ollama", ...context, providerMessage: item.error }, secrets);
          if (item.message?.content) yield { type: "text-delta", text: item.message.content };
          if (item.done === true) {
            yield {
              type: "finish",
              reason: finishReason(item.done_reason),
              usage: { inputTokens: item.prompt_eval_count, outputTokens: item.eval_count },
            };
            return;
          }
        }
      },
    });
  }

  return {
    provider: "ollama",
    model: options.model,
    chatStream,
    chat: (messages, chatOptions) => collectChat(chatStream(messages, chatOptions)),
  };
}

/** The models installed in an Ollama (GET /api/tags). */
export async function listOllamaModels(
  host?: string,
  fetchImpl: typeof globalThis.fetch = globalThis.fetch,
  options: { env?: Record<string, string | undefined>; signal?: AbortSignal } = {},
): Promise<OllamaModel[]> {
  const base = resolveOllamaHost(host, options.env ?? process.env);
  const context = { model: "", url: base, secrets: [] };
  try {
    const response = await fetchImpl(`${base}/api/tags`, { signal: options.signal });
    if (!response.ok) throw await responseError(response, context);
    const body = (await response.json()) as { models?: OllamaTag[] };
    if (!Array.isArray(body.models)) {
      throw new ChunkpadError("LLM_BAD_RESPONSE", `The server at ${base} answered /api/tags without a model list. Is it Ollama?`);
    }
    return body.models.map((tag) => ({
      name: tag.name ?? tag.model ?? "",
      sizeBytes: tag.size ?? 0,
      modifiedAt: tag.modified_at ?? "",
      ...(tag.details?.family ? { family: tag.details.family } : {}),
      ...(tag.details?.parameter_size ? { parameterSize: tag.details.parameter_size } : {}),
      ...(tag.details?.quantization_level ? { quantization: tag.details.quantization_level } : {}),
    }));
  } catch (error) {
    throw toOllamaError(error, context);
  }
}

interface OllamaChatLine {
  message?: { role?: string; content?: string };
  done?: boolean;
  done_reason?: string;
  prompt_eval_count?: number;
  eval_count?: number;
  error?: unknown;
}

interface OllamaTag {
  name?: string;
  model?: string;
  size?: number;
  modified_at?: string;
  details?: { family?: string; parameter_size?: string; quantization_level?: string };
}

function finishReason(value: string | undefined): FinishReason {
  if (value === undefined || value === "stop") return "stop";
  if (value === "length") return "length";
  return "other";
}

async function responseError(response: Response, context: { model: string; url: string; secrets: string[] }): Promise<ChunkpadError> {
  const text = await response.text().catch(() => "");
  let body: unknown = text;
  try {
    body = JSON.parse(text);
  } catch {
    // Not JSON: keep the text as the message.
  }
  const { message, type } = readErrorBody(body);
  return toChunkpadError(
    {
      provider: "ollama",
      ...context,
      statusCode: response.status,
      providerMessage: message || response.statusText,
      providerType: type,
      retryAfterMs: parseRetryAfter(response.headers),
    },
    context.secrets,
  );
}

function toOllamaError(thrown: unknown, context: { model: string; url: string; secrets: string[] }): ChunkpadError {
  if (isChunkpadError(thrown)) return thrown;
  if (isAbortError(thrown)) return new ChunkpadError("CANCELLED", "The request to Ollama was cancelled.");
  const network = detectNetworkFailure(thrown);
  const base = { provider: "ollama" as const, ...context };
  if (network) return toChunkpadError({ ...base, network, cause: thrown }, context.secrets);
  return toChunkpadError({ ...base, providerMessage: thrown instanceof Error ? thrown.message : String(thrown) }, context.secrets);
}
