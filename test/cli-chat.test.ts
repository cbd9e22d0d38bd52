import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { json, makeTempDir, writeFile } from "./helpers/cli.js";
import { runCliInProcess } from "./helpers/cli-in-process.js";
import { startAnthropicServer } from "./helpers/llm-servers/anthropic-server.js";
import type { RecordedRequest, ScriptedServer } from "./helpers/llm-servers/scripted-server.js";

/** `chunkpad chat` scripted over stdin, and `chunkpad history`, through the real CLI. */

const WARRANTY_TEXT = "The warranty lasts two years from the date of purchase.";
const RETURNS_TEXT = "Returns are accepted within 30 days. The warranty does not cover misuse.";

let anthropic: ScriptedServer;
const home = makeTempDir("chat-home");
const folder = makeTempDir("chat-docs");
const env = () => ({ ANTHROPIC_BASE_URL: anthropic.url, ANTHROPIC_API_KEY: "sk-ant-chat-test-key" });

beforeAll(async () => {
  anthropic = await startAnthropicServer();
  writeFile(folder, "warranty.md", `# Warranty\n\n${WARRANTY_TEXT}\n`);
  writeFile(folder, "returns.md", `# Returns\n\n${RETURNS_TEXT}\n`);
  const added = await runCliInProcess(["add", folder], { home });
  expect(added.code, added.stderr).toBe(0);
  // These tests are about the chat's mechanics: a lenient floor, so that a chunk holding some of a
  // question's words still reaches the model (the guardrail has its own tests).
  expect((await runCliInProcess(["config", "set", "generation.minSimilarity", "0.3"], { home })).code).toBe(0);
});
afterAll(() => anthropic.close());

function messagesOf(request: RecordedRequest | undefined): Array<{ role: string; content: string }> {
  return ((request?.body.messages ?? []) as Array<{ role: string; content: unknown }>).map((message) => ({
    role: message.role,
    content: typeof message.content === "string" ? message.content : JSON.stringify(message.content),
  }));
}
const promptOf = (request: RecordedRequest | undefined) => messagesOf(request).at(-1)?.content ?? "";

describe("chunkpad chat", () => {
  let transcript: { code: number; stdout: string; stderr: string };

  beforeAll(async () => {
    anthropic.reset();
    anthropic.script(
      { reply: "text", deltas: ["Misuse is not covered [C1]; ", "the warranty lasts two years [C2]."] },
      { reply: "text", deltas: ["The warranty lasts two years [C1]."] },
      { reply: "text", deltas: ["Within 30 days [C1]."] },
    );
    const script = ["What does the warranty cover?", "/chunks", "/toggle 1", "/chunks", "/regen", "And how long for returns?", "/history", "/quit"];
    transcript = await runCliInProcess(["chat"], { home, env: env(), input: `${script.join("\n")}\n` });
  });

  it("answers a question with the chunks found and their citations", () => {
    expect(transcript.code, transcript.stderr).toBe(0);
    expect(transcript.stdout).toMatch(/Chunks found \(keyword search\):\n {2}1\. \[on\] +100% {2}returns\.md · Returns .*\n {2}2\. \[on\] +\d+% {2}warranty\.md · Warranty /);
    expect(transcript.stdout).toContain("Misuse is not covered [C1]; the warranty lasts two years [C2].\n\nSources:\n  [C1] returns.md");
    expect(promptOf(anthropic.requests[0])).toContain(RETURNS_TEXT);
    expect(promptOf(anthropic.requests[0])).toContain(WARRANTY_TEXT);
  });

  it("/toggle switches a chunk off, and /regen answers again without it and without searching again", () => {
    expect(transcript.stdout).toMatch(/Chunk 1 \(\w+:returns\.md#1\) is now off\./);
    expect(transcript.stdout).toMatch(/Chunks found:\n {2}1\. \[off\] +100% {2}returns\.md/);
    const regenerated = anthropic.requests[1];
    expect(promptOf(regenerated)).not.toContain(RETURNS_TEXT);
    expect(promptOf(regenerated)).toContain('[C1] Source: warranty.md, section "Warranty"');
    expect(promptOf(regenerated)).toContain(WARRANTY_TEXT);
    expect(promptOf(regenerated)).not.toContain("[C2]");
    expect(promptOf(regenerated)).toContain("Question: What does the warranty cover?");
    // One search per question (two questions), none for /regen.
    expect(transcript.stdout.match(/Chunks found \(keyword search\)/g)).toHaveLength(2);
    expect(transcript.stderr).toContain("Regenerating with 1 of 2 chunks, without searching again.");
    expect(transcript.stdout).toContain("The warranty lasts two years [C1].\n\nSources:\n  [C1] warranty.md");
  });

  it("gives a follow-up question the conversation so far, with the regenerated answer", () => {
    expect(anthropic.requests).toHaveLength(3);
    const followUp = messagesOf(anthropic.requests[2]);
    expect(followUp.slice(0, 2)).toEqual([
      { role: "user", content: "What does the warranty cover?" },
      { role: "assistant", content: "The warranty lasts two years." },
    ]);
    expect(followUp.at(-1)?.content).toContain("Question: And how long for returns?");
  });

  it("/history shows the conversation, and chunkpad history lists, shows and deletes it", async () => {
    expect(transcript.stdout).toMatch(/Conversation \w{8}: What does the warranty cover\?/);
    expect(transcript.stdout.match(/^Answer \(/gm)).toHaveLength(3);

    const listed = await runCliInProcess(["history"], { home });
    expect(listed.code, listed.stderr).toBe(0);
    expect(listed.stdout).toMatch(/^(\w{8}) {2}\d{4}-\d\d-\d\d \d\d:\d\d {2}5 messages {3}What does the warranty cover\?$/m);
    const id = /^(\w{8}) .*What does the warranty cover\?$/m.exec(listed.stdout)?.[1] ?? "?";

    const shown = await runCliInProcess(["history", id], { home });
    expect(shown.code, shown.stderr).toBe(0);
    expect(shown.stdout).toContain("You (");
    // Each citation is followed by the text it cited, as it was then.
    expect(shown.stdout).toMatch(/Misuse is not covered \[C1\]; the warranty lasts two years \[C2\]\.\n {2}\[C1\] returns\.md · \w+:returns\.md#1\n {6}"# Returns .*"\n {2}\[C2\] warranty\.md · \w+:warranty\.md#1\n {6}"# Warranty .*"/);
    expect(shown.stdout).toMatch(/anthropic claude-sonnet-4-6\):\n {2}The warranty lasts two years \[C1\]\.\n {2}\[C1\] warranty\.md/);

    const asJson = json<{ messages: Array<{ role: string; chunkRefs: string[]; citations: Array<{ label: string; source: string }> }> }>(await runCliInProcess(["history", "--json", id], { home }));
    expect(asJson.messages.map((message) => message.role)).toEqual(["user", "assistant", "assistant", "user", "assistant"]);
    expect(asJson.messages[2]?.chunkRefs).toHaveLength(1);
    expect(asJson.messages[2]?.citations).toEqual([expect.objectContaining({ label: "C1", source: "warranty.md" })]);

    const deleted = await runCliInProcess(["history", "delete", id], { home });
    expect(deleted.code, deleted.stderr).toBe(0);
    expect((await runCliInProcess(["history"], { home })).stdout).not.toContain("What does the warranty cover?");
    const missing = await runCliInProcess(["history", id], { home });
    expect(missing.code).toBe(1);
    expect(missing.stderr).toMatch(/There is no conversation .*chunkpad history/);
  });
});

describe("chunkpad chat, more", () => {
  it("ends at the end of input, and says what is wrong with a bad command without leaving", async () => {
    anthropic.reset();
    const result = await runCliInProcess(["chat"], { home, env: env(), input: "/toggle 1\n/provider gemini\n/help\n" });
    expect(result.stderr).toContain("chunkpad: There is no chunk 1. There are no chunks yet: ask a question first.");
    expect(result.stderr).toContain('Unknown LLM provider "gemini"');
    expect(result.stdout).toContain("/regen ");
    expect(result.code).toBe(1);
    expect(anthropic.requests).toHaveLength(0);
  });

  it("/provider says which provider and model answer now, and /regen before any question asks for one", async () => {
    anthropic.reset();
    const result = await runCliInProcess(["chat"], { home, env: env(), input: "/provider\n/regen\n/provider openai gpt-4.1\n/provider\n" });
    expect(result.stdout).toContain("Provider: anthropic, model claude-sonnet-4-6 (from your setup).");
    expect(result.stdout).toContain("Provider: openai, model gpt-4.1.");
    expect(result.stderr).toContain("There is no answer to regenerate yet. Ask a question first.");
    expect(result.stderr).not.toContain("Regenerating with");
    expect(anthropic.requests).toHaveLength(0);
  });

  it("continues a stored conversation with --continue", async () => {
    anthropic.reset();
    anthropic.script({ reply: "text", deltas: ["Two years [C1]."] }, { reply: "text", deltas: ["From the date of purchase [C1]."] });
    const first = await runCliInProcess(["ask", "--json", "How long does the warranty last?"], { home, env: env() });
    const { conversationId } = json<{ conversationId: string }>(first);
    const result = await runCliInProcess(["chat", "--continue", conversationId.slice(0, 8)], { home, env: env(), input: "From when does the warranty count?\n" });
    expect(result.code, result.stderr).toBe(0);
    expect(messagesOf(anthropic.requests[1]).slice(0, 2)).toEqual([
      { role: "user", content: "How long does the warranty last?" },
      { role: "assistant", content: "Two years." },
    ]);
    const shown = json<{ messages: unknown[] }>(await runCliInProcess(["history", "--json", conversationId], { home }));
    expect(shown.messages).toHaveLength(4);
  });
});
