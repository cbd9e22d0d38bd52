import { describe, expect, it } from "vitest";
import { ChunkpadError } from "./errors.js";
import { redactError, redactSecrets, redactUrl, secretsInEnvironment, secretsInHeaders } from "./redact.js";

describe("redactSecrets", () => {
  it("removes given secrets and anything shaped like a key, a token or a URL password", () => {
    const text = [
      "key my-custom-key-123",
      "Authorization: Bearer abc.def-ghi",
      "x-api-key: 0123456789",
      '{"api_key":"zzzz9999"}',
      "https://user:hunter2@proxy.example/v1?token=t0k3n&x=1",
      "hf_abcdefghijklmnop",
    ].join("\n");
    const redacted = redactSecrets(text, ["my-custom-key-123", undefined, "ab"]);
    for (const secret of ["my-custom-key-123", "abc.def-ghi", "0123456789", "zzzz9999", "hunter2", "t0k3n", "hf_abcdefghijklmnop"]) {
      expect(redacted).not.toContain(secret);
    }
    expect(redacted).toContain("x=1");
  });

  it("leaves ordinary messages alone", () => {
    const text = "A chunk size of 400 tokens is too large; the basic token count is 512. Run with --password-stdin.";
    expect(redactSecrets(text, ["ab"])).toBe(text);
  });

  it("finds secrets in the environment and in request headers", () => {
    expect(secretsInEnvironment({ OPENAI_API_KEY: "k1", HF_TOKEN: "k2", CHUNKPAD_PASSWORD: "k3", PATH: "/bin" })).toEqual(["k1", "k2", "k3"]);
    expect(secretsInHeaders({ authorization: "Bearer k4", "content-type": "x" })).toEqual(["Bearer k4", "k4"]);
  });

  it("redacts an error's message and details, keeping its code and status", () => {
    const error = new ChunkpadError("EMBEDDING_FAILED", "said plainsecret", { statusCode: 401, details: { providerMessage: "plainsecret" } });
    const redacted = redactError(error, ["plainsecret"]) as ChunkpadError;
    expect(redacted).toMatchObject({ code: "EMBEDDING_FAILED", statusCode: 401, message: "said [redacted]", details: { providerMessage: "[redacted]" } });
  });
});

describe("redactUrl", () => {
  it("keeps where a URL points and drops the credentials in it", () => {
    expect(redactUrl("https://alice:hunter2@llm.example.com/v1")).toBe("https://[redacted]@llm.example.com/v1");
    expect(redactUrl("https://proxy.example/v1?api-key=abc123&deployment=gpt")).toBe("https://proxy.example/v1?api-key=[redacted]&deployment=gpt");
    expect(redactUrl("https://hub.example/models?token=zzz&sig=qq")).toBe("https://hub.example/models?token=[redacted]&sig=[redacted]");
  });

  it("leaves a URL without credentials, and a host that is not a URL, as it is", () => {
    expect(redactUrl("http://127.0.0.1:11434")).toBe("http://127.0.0.1:11434");
    expect(redactUrl("https://huggingface.co")).toBe("https://huggingface.co");
    expect(redactUrl("localhost:11434")).toBe("localhost:11434");
    expect(redactUrl("http://127.0.0.1:8080/v1?model=x")).toBe("http://127.0.0.1:8080/v1?model=x");
  });
});
