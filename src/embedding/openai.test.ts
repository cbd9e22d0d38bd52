import { afterEach, describe, expect, it } from "vitest";
import { startFakeApiServer, type FakeApiServer } from "../../test/helpers/hub-server.js";
import { chunkpadRejection } from "../../test/helpers/rejection.js";
import { createOpenAiEmbedder } from "./openai.js";

let server: FakeApiServer | undefined;

afterEach(async () => {
  await server?.close();
  server = undefined;
});

/** What OpenAI's /v1/embeddings answers, rows deliberately out of order. */
function openAiAnswer(input: string[]): unknown {
  const data = input.map((text, index) => ({ object: "embedding", index, embedding: [text.length, 1, 0] }));
  return { object: "list", data: data.reverse(), model: "text-embedding-3-small", usage: { prompt_tokens: 8, total_tokens: 8 } };
}

function openAiError(message: string, type: string, code: string | null): unknown {
  return { error: { message, type, param: null, code } };
}

describe("the OpenAI embedder", () => {
  it("posts to {baseURL}/embeddings with the key, float encoding, and keeps the input order", async () => {
    server = await startFakeApiServer((request) => ({ body: openAiAnswer((request.body as { input: string[] }).input) }));
    let reads = 0;
    const embedder = createOpenAiEmbedder({
      model: "my-embedder",
      baseURL: `${server.url}/v1`,
      apiKey: () => {
        reads++;
        return "sk-test";
      },
    });
    expect(reads).toBe(0); // the key is read when a call is made, not before
    const [short, long] = await embedder.embedDocuments(["ab", "abcdef"]);

    expect(server.requests[0]).toMatchObject({ method: "POST", path: "/v1/embeddings", body: { model: "my-embedder", input: ["ab", "abcdef"], encoding_format: "float" } });
    expect(server.requests[0]?.headers.authorization).toBe("Bearer sk-test");
    // [2,1,0] and [6,1,0], normalised: the first row belongs to the first input.
    expect(short?.[0]).toBeCloseTo(2 / Math.sqrt(5), 6);
    expect(long?.[0]).toBeCloseTo(6 / Math.sqrt(37), 6);
  });

  it("knows OpenAI's model sizes, and learns others from the first answer", async () => {
    expect(createOpenAiEmbedder({ model: "text-embedding-3-large", apiKey: "k" }).dimensions).toBe(3072);
    server = await startFakeApiServer((request) => ({ body: openAiAnswer((request.body as { input: string[] }).input) }));
    const embedder = createOpenAiEmbedder({ model: "local-model", baseURL: server.url });
    expect(embedder.dimensions).toBe(0);
    await embedder.embedQuery("hello");
    expect(embedder.dimensions).toBe(3);
    expect(server.requests[0]?.headers.authorization).toBeUndefined();
  });

  it("refuses vectors of another size than the model's", async () => {
    server = await startFakeApiServer((request) => ({ body: openAiAnswer((request.body as { input: string[] }).input) }));
    const error = await chunkpadRejection(createOpenAiEmbedder({ model: "text-embedding-3-small", baseURL: server.url, apiKey: "k" }).embedQuery("q"));
    expect(error.code).toBe("EMBEDDING_MISMATCH");
  });

  it("explains a rejected key", async () => {
    server = await startFakeApiServer(() => ({ status: 401, body: openAiError("Incorrect API key provided: sk-test.", "invalid_request_error", "invalid_api_key") }));
    const error = await chunkpadRejection(createOpenAiEmbedder({ model: "text-embedding-3-small", baseURL: server.url, apiKey: "sk-test" }).embedQuery("q"));
    expect(error).toMatchObject({ code: "EMBEDDING_FAILED", statusCode: 401, isRetryable: false });
    expect(error.message).toMatch(/rejected the API key/);
  });

  it("marks rate limits retryable", async () => {
    server = await startFakeApiServer(() => ({ status: 429, body: openAiError("Rate limit reached for text-embedding-3-small.", "requests", "rate_limit_exceeded") }));
    const error = await chunkpadRejection(createOpenAiEmbedder({ model: "text-embedding-3-small", baseURL: server.url, apiKey: "k" }).embedQuery("q"));
    expect(error).toMatchObject({ code: "EMBEDDING_FAILED", statusCode: 429, isRetryable: true });
    expect(error.message).toContain("Rate limit reached");
  });

  it("reports an unknown model as MODEL_NOT_FOUND", async () => {
    server = await startFakeApiServer(() => ({ status: 404, body: openAiError("The model `nope` does not exist", "invalid_request_error", "model_not_found") }));
    const error = await chunkpadRejection(createOpenAiEmbedder({ model: "nope", baseURL: server.url, apiKey: "k" }).embedQuery("q"));
    expect(error.code).toBe("MODEL_NOT_FOUND");
    expect(error.message).toContain("does not exist");
  });

  it("asks for a key before calling OpenAI without one", async () => {
    let called = false;
    const fetchSpy: typeof fetch = async () => {
      called = true;
      return new Response("{}");
    };
    const error = await chunkpadRejection(createOpenAiEmbedder({ model: "text-embedding-3-small", fetch: fetchSpy }).embedQuery("q"));
    expect(error.message).toContain("OPENAI_API_KEY");
    // The config refuses API keys, so the message must not send the user there.
    expect(error.message).not.toContain("chunkpad config`");
    expect(called).toBe(false);
  });
});
