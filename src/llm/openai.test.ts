import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { startOpenAiServer } from "../../test/helpers/llm-servers/openai-server.js";
import type { ScriptedServer } from "../../test/helpers/llm-servers/scripted-server.js";
import { createOpenAiClient, PLACEHOLDER_API_KEY } from "./openai.js";

let server: ScriptedServer;
beforeAll(async () => {
  server = await startOpenAiServer();
});
afterAll(() => server.close());
beforeEach(() => server.reset());

const question = [{ role: "user" as const, content: "Hi?" }];

describe("createOpenAiClient", () => {
  it("talks to an OpenAI-compatible server (LM Studio, llama.cpp, vLLM) with no key set", async () => {
    const client = createOpenAiClient({ model: "local-model", baseURL: `${server.url}/v1`, env: {} });
    expect((await client.chat(question)).text).toBe("Hello from the server.");
    expect(server.requests[0]?.headers.authorization).toBe(`Bearer ${PLACEHOLDER_API_KEY}`);
  });

  it("asks for usage in the stream and reports it", async () => {
    server.script({ reply: "text", deltas: ["a", "b"], usage: { inputTokens: 7, outputTokens: 2 } });
    const result = await createOpenAiClient({ model: "m", baseURL: `${server.url}/v1`, env: {} }).chat(question);
    expect(server.requests[0]?.body.stream_options).toEqual({ include_usage: true });
    expect(result.usage).toEqual({ inputTokens: 7, outputTokens: 2 });
  });

  it("honours OPENAI_BASE_URL and OPENAI_API_KEY", async () => {
    const client = createOpenAiClient({ model: "m", env: { OPENAI_BASE_URL: `${server.url}/v1`, OPENAI_API_KEY: "sk-env-key-1234" } });
    await client.chat(question);
    expect(server.requests[0]?.headers.authorization).toBe("Bearer sk-env-key-1234");
  });

  it("asks for a key, without sending anything, when the server is OpenAI's and no key is set", async () => {
    let calls = 0;
    const countingFetch: typeof fetch = async () => {
      calls += 1;
      return new Response("{}", { status: 500 });
    };
    const client = createOpenAiClient({ model: "gpt-4o-mini", env: {}, fetch: countingFetch });
    await expect(client.chat(question)).rejects.toMatchObject({ code: "LLM_NOT_CONFIGURED", nextSteps: [{ action: "set-api-key", provider: "openai" }, { action: "set-up-llm" }] });
    expect(calls).toBe(0);
  });
});
