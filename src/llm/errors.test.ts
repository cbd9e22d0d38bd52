import { describe, expect, it } from "vitest";
import { displayUrl, parseRetryAfter, readErrorBody, redactSecrets, toChunkpadError, type ProviderFailure } from "./errors.js";

const base: ProviderFailure = { provider: "openai", model: "gpt-test", url: "http://127.0.0.1:1234/v1" };

describe("toChunkpadError", () => {
  it.each([
    // OpenAI-compatible servers word a full context differently; all mean the same to the user.
    { server: "llama.cpp server", message: "the request exceeds the available context size, try increasing it", type: "exceed_context_size_error" },
    { server: "vLLM", message: "This model's maximum context length is 4096 tokens. However, you requested 5000 tokens.", type: "BadRequestError" },
    { server: "LM Studio", message: "Trying to keep the first 9000 tokens when context the overflows. However, the model is loaded with context length of 4096", type: "" },
  ])("recognizes a context overflow from $server", ({ message, type }) => {
    const error = toChunkpadError({ ...base, statusCode: 400, providerMessage: message, providerType: type });
    expect(error.code).toBe("LLM_CONTEXT_TOO_LONG");
    expect(error.message).toContain("gpt-test");
  });

  it("treats a 404 that is not about a model as a wrong base URL, not a missing model", () => {
    const error = toChunkpadError({ ...base, statusCode: 404, providerMessage: "404 page not found" });
    expect(error.code).toBe("LLM_UNAVAILABLE");
    expect(error.message).toContain("Check the base URL");
  });

  it("does not retry a refused connection, but does retry a reset one", () => {
    expect(toChunkpadError({ ...base, network: "refused" }).isRetryable).toBe(false);
    expect(toChunkpadError({ ...base, network: "reset" }).isRetryable).toBe(true);
  });

  it("tells Ollama users how to start the server", () => {
    const error = toChunkpadError({ ...base, provider: "ollama", url: "http://127.0.0.1:11434", network: "refused" });
    expect(error.message).toContain('Is the server running at http://127.0.0.1:11434? Start it with "ollama serve"');
  });

  it("says when to try again after a rate limit", () => {
    const error = toChunkpadError({ ...base, statusCode: 429, retryAfterMs: 20_000 });
    expect(error.message).toContain("Try again in 20 s");
    expect(error.details?.retryAfterMs).toBe(20_000);
  });

  it("never shows credentials that sit in the server URL", () => {
    const error = toChunkpadError({ ...base, url: "https://user:hunter2@proxy.example/v1?token=abc", statusCode: 502 });
    expect(error.message).not.toContain("hunter2");
    expect(error.message).not.toContain("token=abc");
    expect(JSON.stringify(error.details)).not.toContain("hunter2");
  });
});

describe("redactSecrets", () => {
  it("removes the given key wherever it appears, and anything shaped like a provider key", () => {
    const text = "bad key my-custom-key-123 and also sk-proj-abcdefghijklmnop and sk-ant-api03-zzzzzzzzzz";
    const redacted = redactSecrets(text, ["my-custom-key-123"]);
    expect(redacted).toBe("bad key [redacted] and also [redacted] and [redacted]");
  });
});

describe("parseRetryAfter", () => {
  const headers = (values: Record<string, string>) => new Headers(values);

  it("reads seconds, an HTTP date, and retry-after-ms", () => {
    expect(parseRetryAfter(headers({ "retry-after": "3" }))).toBe(3000);
    expect(parseRetryAfter(headers({ "retry-after-ms": "250", "retry-after": "3" }))).toBe(250);
    const now = Date.parse("2026-01-01T00:00:00Z");
    expect(parseRetryAfter(headers({ "retry-after": "Thu, 01 Jan 2026 00:00:05 GMT" }), now)).toBe(5000);
  });

  it("ignores a missing or nonsense header", () => {
    expect(parseRetryAfter(headers({}))).toBeUndefined();
    expect(parseRetryAfter(headers({ "retry-after": "soon" }))).toBeUndefined();
  });
});

describe("readErrorBody", () => {
  it("reads the error bodies of Anthropic, OpenAI and Ollama", () => {
    expect(readErrorBody({ type: "error", error: { type: "not_found_error", message: "model: x" } })).toEqual({ message: "model: x", type: "not_found_error" });
    expect(readErrorBody({ message: "m", type: "invalid_request_error", code: "model_not_found" })).toEqual({ message: "m", type: "model_not_found" });
    expect(readErrorBody({ error: 'model "x" not found' })).toEqual({ message: 'model "x" not found' });
  });
});

describe("displayUrl", () => {
  it("keeps the host and path, drops a trailing slash", () => {
    expect(displayUrl("http://127.0.0.1:11434/")).toBe("http://127.0.0.1:11434");
  });
});
