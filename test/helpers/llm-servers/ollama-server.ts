import {
  playText,
  retryAfterHeaders,
  sendJson,
  startScriptedServer,
  type RecordedRequest,
  type ScriptedError,
  type ScriptedServer,
} from "./scripted-server.js";

/**
 * Speaks Ollama's HTTP API: POST /api/chat streamed as newline-delimited JSON (one
 * {message: {role, content}, done: false} per delta, then {done: true, done_reason,
 * prompt_eval_count, eval_count, durations}); errors as {error: "..."} bodies or lines;
 * GET /api/tags lists `installedModels`.
 */
export interface OllamaServerOptions {
  installedModels?: string[];
}

export function startOllamaServer(options: OllamaServerOptions = {}): Promise<ScriptedServer> {
  const installed = options.installedModels ?? ["llama3.2:latest", "qwen2.5:7b"];
  return startScriptedServer(async (request, step, response, writer) => {
    if (request.method === "GET" && request.path === "/api/tags") {
      sendJson(response, 200, { models: installed.map(tag) });
      return;
    }
    if (request.method !== "POST" || request.path !== "/api/chat") {
      response.writeHead(404, { "content-type": "text/plain" });
      response.end("404 page not found");
      return;
    }
    if (step.reply === "error") {
      const { status, message } = ollamaError(step.error, request);
      sendJson(response, status, { error: message }, retryAfterHeaders(step));
      return;
    }
    const model = String(request.body.model);
    const usage = step.usage ?? { inputTokens: 26, outputTokens: step.deltas.length };
    const line = (content: string, extra: Record<string, unknown> = {}) =>
      `${JSON.stringify({ model, created_at: "2026-01-01T00:00:00.000000000Z", message: { role: "assistant", content }, done: false, ...extra })}\n`;
    response.writeHead(200, { "content-type": "application/x-ndjson" });
    await playText(step, writer, {
      start: "",
      delta: (text) => line(text),
      finish: (textStep) =>
        line("", {
          done: true,
          done_reason: textStep.finishReason ?? "stop",
          total_duration: 4_883_583_458,
          load_duration: 1_334_875,
          prompt_eval_count: usage.inputTokens,
          prompt_eval_duration: 342_546_000,
          eval_count: usage.outputTokens,
          eval_duration: 4_535_599_000,
        }),
      error: `${JSON.stringify({ error: "an error was encountered while running the model: unexpected EOF" })}\n`,
    });
  });
}

function tag(name: string) {
  return {
    name,
    model: name,
    modified_at: "2026-01-01T00:00:00.000000000Z",
    size: 2_019_393_189,
    digest: "a80c4f17acd55265feec403c7aef86be0c25983ab279d83f3bcd3abbcb5b8b72",
    details: { parent_model: "", format: "gguf", family: "llama", families: ["llama"], parameter_size: "3.2B", quantization_level: "Q4_K_M" },
  };
}

function ollamaError(error: ScriptedError, request: RecordedRequest): { status: number; message: string } {
  switch (error) {
    case "auth":
      return { status: 401, message: "unauthorized" };
    case "forbidden":
      return { status: 403, message: "forbidden" };
    case "model-not-found":
      return { status: 404, message: `model "${String(request.body.model)}" not found, try pulling it first` };
    case "rate-limit":
      return { status: 429, message: "too many requests" };
    case "server":
      return { status: 500, message: "llama runner process has terminated: exit status 2" };
    case "context-length":
      return { status: 400, message: "the input length exceeds the context length" };
  }
}
