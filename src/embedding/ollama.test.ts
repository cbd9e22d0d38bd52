import { afterEach, describe, expect, it } from "vitest";
import { closedServerUrl, startFakeApiServer, type FakeApiServer } from "../../test/helpers/hub-server.js";
import { chunkpadRejection } from "../../test/helpers/rejection.js";
import { createOllamaEmbedder } from "./ollama.js";

let server: FakeApiServer | undefined;

afterEach(async () => {
  await server?.close();
  server = undefined;
});

/** What Ollama's /api/embed answers: one (already normalised) row per input. */
function ollamaAnswer(input: string[], dimensions = 4): unknown {
  return {
    model: "nomic-embed-text",
    embeddings: input.map((text) => Array.from({ length: dimensions }, (_, index) => (index === text.length % dimensions ? 3 : 4) / 5)),
    total_duration: 14143917,
    load_duration: 1019500,
    prompt_eval_count: input.length * 8,
  };
}

describe("the Ollama embedder", () => {
  it("posts inputs to /api/embed with the model's task prefixes and learns the dimension", async () => {
    server = await startFakeApiServer((request) => ({ body: ollamaAnswer((request.body as { input: string[] }).input) }));
    const embedder = createOllamaEmbedder({ model: "nomic-embed-text", host: server.url });
    expect(embedder.dimensions).toBe(0);

    const vectors = await embedder.embedDocuments(["first chunk", "second"]);
    const query = await embedder.embedQuery("what is it");

    expect(server.requests.map((request) => [request.method, request.path])).toEqual([["POST", "/api/embed"], ["POST", "/api/embed"]]);
    expect(server.requests[0]?.body).toEqual({ model: "nomic-embed-text", input: ["search_document: first chunk", "search_document: second"], truncate: true });
    expect(server.requests[1]?.body).toMatchObject({ input: ["search_query: what is it"] });
    expect(vectors).toHaveLength(2);
    expect(query).toBeInstanceOf(Float32Array);
    expect(embedder.dimensions).toBe(4);
  });

  it("scales vectors to length 1", async () => {
    server = await startFakeApiServer(() => ({ body: { model: "x", embeddings: [[3, 4]] } }));
    const vector = await createOllamaEmbedder({ model: "x", host: server.url }).embedQuery("q");
    expect(Array.from(vector)).toEqual([expect.closeTo(0.6, 6), expect.closeTo(0.8, 6)]);
  });

  it("asks for the dimension when it is not known yet", async () => {
    server = await startFakeApiServer((request) => ({ body: ollamaAnswer((request.body as { input: string[] }).input, 8) }));
    const embedder = createOllamaEmbedder({ model: "all-minilm", host: server.url });
    expect(await embedder.resolveDimensions()).toBe(8);
    expect(await embedder.resolveDimensions()).toBe(8);
    expect(server.requests).toHaveLength(1);
  });

  it("tells the user to pull a model Ollama does not have", async () => {
    server = await startFakeApiServer(() => ({ status: 404, body: { error: 'model "nomic-embed-text" not found, try pulling it first' } }));
    const error = await chunkpadRejection(createOllamaEmbedder({ model: "nomic-embed-text", host: server.url }).embedQuery("q"));
    expect(error.code).toBe("MODEL_NOT_FOUND");
    expect(error.statusCode).toBe(404);
    expect(error.message).toContain("ollama pull nomic-embed-text");
  });

  it("marks server errors retryable", async () => {
    server = await startFakeApiServer(() => ({ status: 500, body: { error: "llama runner process has terminated" } }));
    const error = await chunkpadRejection(createOllamaEmbedder({ model: "x", host: server.url }).embedQuery("q"));
    expect(error).toMatchObject({ code: "EMBEDDING_FAILED", statusCode: 500, isRetryable: true });
    expect(error.message).toContain("llama runner process has terminated");
  });

  it("says how to start Ollama when nothing listens", async () => {
    const host = await closedServerUrl();
    const error = await chunkpadRejection(createOllamaEmbedder({ model: "x", host }).embedQuery("q"));
    expect(error.code).toBe("EMBEDDING_FAILED");
    expect(error.isRetryable).toBe(true);
    expect(error.message).toContain(host);
    expect(error.message).toContain("ollama serve");
  });

  it("rejects an answer without one embedding per input", async () => {
    server = await startFakeApiServer(() => ({ body: { model: "x", embeddings: [] } }));
    const error = await chunkpadRejection(createOllamaEmbedder({ model: "x", host: server.url }).embedDocuments(["a", "b"]));
    expect(error.code).toBe("EMBEDDING_FAILED");
  });
});
