import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { startAnthropicServer } from "../../test/helpers/llm-servers/anthropic-server.js";
import type { ScriptedServer } from "../../test/helpers/llm-servers/scripted-server.js";
import { createAnthropicClient, toAnthropicMessages } from "./anthropic.js";

let server: ScriptedServer;
beforeAll(async () => {
  server = await startAnthropicServer();
});
afterAll(() => server.close());
beforeEach(() => server.reset());

const question = [{ role: "user" as const, content: "Hi?" }];
const sentKey = () => String(server.requests[0]?.headers["x-api-key"] ?? server.requests[0]?.headers.authorization ?? "").replace(/^Bearer /, "");

describe("createAnthropicClient", () => {
  it("honours ANTHROPIC_BASE_URL and ANTHROPIC_API_KEY", async () => {
    const client = createAnthropicClient({ model: "claude-test", env: { ANTHROPIC_BASE_URL: server.url, ANTHROPIC_API_KEY: "sk-ant-from-env-1234" } });
    expect((await client.chat(question)).text).toBe("Hello from the server.");
    expect(sentKey()).toBe("sk-ant-from-env-1234");
  });

  it("reads the key when asked, so a key set after start-up is used", async () => {
    let key: string | undefined = undefined;
    const client = createAnthropicClient({ model: "claude-test", baseURL: server.url, env: {}, apiKey: async () => key });
    await expect(client.chat(question)).rejects.toMatchObject({ code: "LLM_NOT_CONFIGURED", nextSteps: [{ action: "set-api-key", provider: "anthropic" }, { action: "set-up-llm" }] });
    expect(server.requests).toHaveLength(0);
    key = "sk-ant-set-later-5678";
    await client.chat(question);
    expect(sentKey()).toBe("sk-ant-set-later-5678");
  });

  it("sends every request through the injected fetch", async () => {
    const seen: string[] = [];
    const recordingFetch: typeof fetch = (input, init) => {
      seen.push(String(input instanceof Request ? input.url : input));
      return fetch(input, init);
    };
    await createAnthropicClient({ model: "claude-test", baseURL: server.url, apiKey: "sk-ant-k-0000", env: {}, fetch: recordingFetch }).chat(question);
    expect(seen).toEqual([`${server.url}/v1/messages`]);
  });

  it("always sends max_tokens, which the Messages API requires", async () => {
    await createAnthropicClient({ model: "claude-test", baseURL: server.url, apiKey: "sk-ant-k-0000", env: {} }).chat(question);
    expect(server.requests[0]?.body.max_tokens).toBeGreaterThan(0);
    expect(server.requests[0]?.body.stream).toBe(true);
  });
});

describe("toAnthropicMessages", () => {
  it("moves system messages to the system prompt and merges neighbouring turns of one role", () => {
    const { system, turns } = toAnthropicMessages([
      { role: "system", content: "Use the chunks." },
      { role: "user", content: "Chunks: [C1] ..." },
      { role: "user", content: "Question?" },
      { role: "assistant", content: "Answer [C1]." },
      { role: "system", content: "Be brief." },
      { role: "user", content: "More?" },
    ]);
    expect(system).toBe("Use the chunks.\n\nBe brief.");
    expect(turns).toEqual([
      { role: "user", content: "Chunks: [C1] ...\n\nQuestion?" },
      { role: "assistant", content: "Answer [C1]." },
      { role: "user", content: "More?" },
    ]);
  });
});
