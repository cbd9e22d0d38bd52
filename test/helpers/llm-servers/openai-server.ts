import {
  playText,
  presentedKey,
  retryAfterHeaders,
  sendJson,
  startScriptedServer,
  type RecordedRequest,
  type ScriptedError,
  type ScriptedServer,
} from "./scripted-server.js";

/**
 * Speaks OpenAI Chat Completions at POST /v1/chat/completions: `data: {chat.completion.chunk}`
 * lines (a role chunk, content deltas, a finish_reason chunk, a usage chunk with empty choices
 * when stream_options.include_usage is set), then `data: [DONE]`; in-stream `data: {"error":...}`;
 * error bodies {error: {message, type, param, code}}.
 */
export function startOpenAiServer(): Promise<ScriptedServer> {
  return startScriptedServer(async (request, step, response, writer) => {
    if (request.method !== "POST" || request.path !== "/v1/chat/completions") {
      sendJson(response, 404, { error: { message: `Invalid URL (${request.method} ${request.path})`, type: "invalid_request_error", param: null, code: null } });
      return;
    }
    if (step.reply === "error") {
      const { status, ...error } = openAiError(step.error, request);
      sendJson(response, status, { error: { param: null, ...error } }, retryAfterHeaders(step));
      return;
    }
    const model = String(request.body.model);
    const includeUsage = (request.body.stream_options as { include_usage?: boolean } | undefined)?.include_usage === true;
    const usage = step.usage ?? { inputTokens: 19, outputTokens: step.deltas.length };
    const chunk = (choices: unknown[], extra: Record<string, unknown> = {}) =>
      `data: ${JSON.stringify({
        id: "chatcmpl-Test",
        object: "chat.completion.chunk",
        created: 1_767_225_600,
        model,
        system_fingerprint: "fp_test",
        choices,
        ...(includeUsage ? { usage: null } : {}),
        ...extra,
      })}\n\n`;
    response.writeHead(200, { "content-type": "text/event-stream; charset=utf-8", "cache-control": "no-cache", "x-request-id": "req_test" });
    await playText(step, writer, {
      start: chunk([{ index: 0, delta: { role: "assistant", content: "", refusal: null }, logprobs: null, finish_reason: null }]),
      delta: (text) => chunk([{ index: 0, delta: { content: text }, logprobs: null, finish_reason: null }]),
      finish: (textStep) =>
        chunk([{ index: 0, delta: {}, logprobs: null, finish_reason: textStep.finishReason ?? "stop" }]) +
        (includeUsage
          ? chunk([], {
              usage: {
                prompt_tokens: usage.inputTokens,
                completion_tokens: usage.outputTokens,
                total_tokens: usage.inputTokens + usage.outputTokens,
                prompt_tokens_details: { cached_tokens: 0, audio_tokens: 0 },
                completion_tokens_details: { reasoning_tokens: 0, audio_tokens: 0, accepted_prediction_tokens: 0, rejected_prediction_tokens: 0 },
              },
            })
          : "") +
        "data: [DONE]\n\n",
      error: `data: ${JSON.stringify({ error: { message: "The server had an error while processing your request. Sorry about that!", type: "server_error", param: null, code: null } })}\n\n`,
    });
  });
}

function openAiError(error: ScriptedError, request: RecordedRequest): { status: number; message: string; type: string; code: string | null } {
  const model = String(request.body.model);
  switch (error) {
    case "auth":
      // OpenAI masks most of the key; this server repeats all of it, the worst case.
      return {
        status: 401,
        message: `Incorrect API key provided: ${presentedKey(request)}. You can find your API key at https://platform.openai.com/account/api-keys.`,
        type: "invalid_request_error",
        code: "invalid_api_key",
      };
    case "forbidden":
      return { status: 403, message: "Project does not have access to this model.", type: "invalid_request_error", code: "model_not_allowed" };
    case "model-not-found":
      return { status: 404, message: `The model \`${model}\` does not exist or you do not have access to it.`, type: "invalid_request_error", code: "model_not_found" };
    case "rate-limit":
      return {
        status: 429,
        message: `Rate limit reached for ${model} in organization org-test on requests per min (RPM): Limit 3, Used 3, Requested 1.`,
        type: "requests",
        code: "rate_limit_exceeded",
      };
    case "server":
      return { status: 500, message: "The server had an error while processing your request. Sorry about that!", type: "server_error", code: null };
    case "context-length":
      return {
        status: 400,
        message: "This model's maximum context length is 128000 tokens. However, your messages resulted in 130419 tokens. Please reduce the length of the messages.",
        type: "invalid_request_error",
        code: "context_length_exceeded",
      };
  }
}
