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
 * Speaks Anthropic's Messages API at POST /v1/messages: the SSE event sequence message_start,
 * content_block_start, ping, content_block_delta (text_delta)..., content_block_stop,
 * message_delta {stop_reason, usage}, message_stop; `event: error` frames; and error bodies
 * {type: "error", error: {type, message}} with the statuses Anthropic uses.
 */
export function startAnthropicServer(): Promise<ScriptedServer> {
  return startScriptedServer(async (request, step, response, writer) => {
    if (request.method !== "POST" || request.path !== "/v1/messages") {
      sendJson(response, 404, { type: "error", error: { type: "not_found_error", message: "Not Found" } });
      return;
    }
    if (step.reply === "error") {
      const { status, type, message } = anthropicError(step.error, request);
      sendJson(response, status, { type: "error", error: { type, message }, request_id: "req_011CTest" }, retryAfterHeaders(step));
      return;
    }
    const model = String(request.body.model);
    const usage = step.usage ?? { inputTokens: 25, outputTokens: step.deltas.length };
    response.writeHead(200, { "content-type": "text/event-stream; charset=utf-8", "cache-control": "no-cache", "request-id": "req_011CTest" });
    await playText(step, writer, {
      start:
        frame("message_start", {
          type: "message_start",
          message: {
            id: "msg_01Test",
            type: "message",
            role: "assistant",
            model,
            content: [],
            stop_reason: null,
            stop_sequence: null,
            usage: { input_tokens: usage.inputTokens, cache_creation_input_tokens: 0, cache_read_input_tokens: 0, output_tokens: 1 },
          },
        }) +
        frame("content_block_start", { type: "content_block_start", index: 0, content_block: { type: "text", text: "" } }) +
        frame("ping", { type: "ping" }),
      delta: (text) => frame("content_block_delta", { type: "content_block_delta", index: 0, delta: { type: "text_delta", text } }),
      finish: (textStep) =>
        frame("content_block_stop", { type: "content_block_stop", index: 0 }) +
        frame("message_delta", {
          type: "message_delta",
          delta: { stop_reason: textStep.finishReason === "length" ? "max_tokens" : "end_turn", stop_sequence: null },
          usage: { output_tokens: usage.outputTokens },
        }) +
        frame("message_stop", { type: "message_stop" }),
      error: frame("error", { type: "error", error: { type: "overloaded_error", message: "Overloaded" } }),
    });
  });
}

function frame(event: string, data: unknown): string {
  return `event: ${event}\ndata: ${JSON.stringify(data)}\n\n`;
}

function anthropicError(error: ScriptedError, request: RecordedRequest): { status: number; type: string; message: string } {
  switch (error) {
    case "auth":
      // Worst case on purpose: the body repeats the key it was given.
      return { status: 401, type: "authentication_error", message: `invalid x-api-key: ${presentedKey(request)}` };
    case "forbidden":
      return { status: 403, type: "permission_error", message: "Your API key does not have permission to use the specified resource." };
    case "model-not-found":
      return { status: 404, type: "not_found_error", message: `model: ${String(request.body.model)}` };
    case "rate-limit":
      return { status: 429, type: "rate_limit_error", message: "Number of request tokens has exceeded your per-minute rate limit." };
    case "server":
      return { status: 500, type: "api_error", message: "Internal server error" };
    case "context-length":
      return { status: 400, type: "invalid_request_error", message: "prompt is too long: 208310 tokens > 200000 maximum" };
  }
}
