import fs from "node:fs";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { json, makeTempDir, writeFile, writeSampleDocuments } from "./helpers/cli.js";
import { runCliInProcess } from "./helpers/cli-in-process.js";
import { startServe, type RunningServer } from "./helpers/serve.js";
import { startHubServer, TINY_BERT_REPO, type HubServer } from "./helpers/hub-server.js";
import { startOpenAiServer } from "./helpers/llm-servers/openai-server.js";
import type { ScriptedServer } from "./helpers/llm-servers/scripted-server.js";

interface SseEvent {
  id: number;
  type: string;
  data: Record<string, unknown>;
}

/**
 * Jobs on `chunkpad serve` over real HTTP, as the web app and scripts use them: started by POST,
 * followed over server-sent events (replayed for a late or reconnecting client), cancelled by
 * DELETE; the embedding model comes from a local hub, answers from a local OpenAI-compatible
 * server.
 */
describe("chunkpad serve: jobs and their event streams", () => {
  let home: string;
  let folder: string;
  let hub: HubServer;
  let openai: ScriptedServer;
  let server: RunningServer;
  let info: RunningServer["info"];

  const post = (pathname: string, body: unknown, withToken = true) =>
    fetch(`${info.url}${pathname}`, { method: "POST", headers: { "content-type": "application/json", ...(withToken ? { "x-chunkpad-token": info.token } : {}) }, body: JSON.stringify(body) });
  /** Reads a job's event stream until its last event (or `stopAfter` events). */
  const events = async (id: string, options: { lastEventId?: number; stopAfter?: (event: SseEvent) => boolean } = {}): Promise<SseEvent[]> => {
    const controller = new AbortController();
    const response = await server.api(`/api/jobs/${id}/events`, { headers: options.lastEventId === undefined ? {} : { "last-event-id": String(options.lastEventId) }, signal: controller.signal });
    expect(response.headers.get("content-type")).toMatch(/^text\/event-stream/);
    const seen: SseEvent[] = [];
    const reader = (response.body as ReadableStream<Uint8Array>).getReader();
    const decoder = new TextDecoder();
    let buffered = "";
    for (;;) {
      const { value, done } = await reader.read();
      if (done) break;
      buffered += decoder.decode(value, { stream: true });
      for (let end = buffered.indexOf("\n\n"); end >= 0; end = buffered.indexOf("\n\n")) {
        const block = buffered.slice(0, end);
        buffered = buffered.slice(end + 2);
        const field = (name: string) => block.split("\n").find((line) => line.startsWith(`${name}:`))?.slice(name.length + 1).trim();
        const event: SseEvent = { id: Number(field("id")), type: field("event") ?? "message", data: JSON.parse(field("data") ?? "null") as Record<string, unknown> };
        seen.push(event);
        if (options.stopAfter?.(event)) {
          controller.abort();
          return seen;
        }
      }
    }
    return seen;
  };
  const startJob = async (body: unknown) => {
    const response = await post("/api/jobs", body);
    expect(response.status).toBe(202);
    return (await response.json()) as { id: string; state: string; events: string };
  };

  beforeAll(async () => {
    home = makeTempDir("jobs");
    folder = path.join(home, "docs");
    writeSampleDocuments(folder);
    [hub, openai] = await Promise.all([startHubServer(), startOpenAiServer()]);
    expect((await runCliInProcess(["add", folder], { home })).code).toBe(0);
    for (const [key, value] of [["embedding.model", TINY_BERT_REPO], ["embedding.dtype", "fp32"], ["generation.provider", "openai"]]) {
      expect((await runCliInProcess(["config", "set", key as string, value as string], { home })).code).toBe(0);
    }
    server = await startServe(home, { env: { CHUNKPAD_HUB_URL: hub.url, OPENAI_BASE_URL: `${openai.url}/v1`, OPENAI_API_KEY: "sk-openai-test", CHUNKPAD_KEYCHAIN: "off" } });
    info = server.info;
  });
  afterAll(async () => {
    await server.stop();
    await Promise.all([hub.close(), openai.close()]);
    fs.rmSync(home, { recursive: true, force: true });
  });

  it("runs a process job with progress events, and replays them to a late or reconnecting client", async () => {
    writeFile(folder, "owl.md", "# Owl\n\nThe owl hunts voles at night.\n");
    const job = await startJob({ kind: "process", folder });
    expect(job.events).toBe(`/api/jobs/${job.id}/events`);
    const live = await events(job.id);
    expect(live.some((event) => event.type === "process-progress")).toBe(true);
    const last = live.at(-1) as SseEvent;
    expect(last.type).toBe("job-done");
    expect((last.data.result as { schema: string; processed: Array<{ path: string }> }).processed.map((file) => file.path)).toEqual(["owl.md"]);
    // A tab opened afterwards sees the whole job; one that saw up to event 1 gets the rest.
    expect(await events(job.id)).toEqual(live);
    expect((await events(job.id, { lastEventId: 1 })).map((event) => event.id)).toEqual(live.slice(2).map((event) => event.id));
    const summary = (await (await server.api(`/api/jobs/${job.id}`)).json()) as { state: string; kind: string };
    expect(summary).toMatchObject({ state: "done", kind: "process" });
  });

  it("refuses to start a job without the session token, or without a folder to process", async () => {
    expect((await post("/api/jobs", { kind: "process", folder }, false)).status).toBe(401);
    const missing = await post("/api/jobs", { kind: "process" });
    expect(missing.status).toBe(400);
    expect(((await missing.json()) as { message: string }).message).toMatch(/needs the folder/);
  });

  it("downloads the embedding model only with consent, and a download can be cancelled", async () => {
    const refused = await startJob({ kind: "embed" });
    const refusedEvents = await events(refused.id);
    expect(refusedEvents.at(-1)).toMatchObject({ type: "job-failed", data: { error: { code: "MODEL_CONSENT_REQUIRED" } } });
    expect(hub.requests).toEqual([]);

    hub.behave({ slow: { chunkBytes: 4096, delayMs: 25 } });
    const slow = await startJob({ kind: "embed", consent: true });
    // Cancel once the download is under way; the job ends cancelled and nothing is embedded.
    await events(slow.id, { stopAfter: (event) => event.type === "embed-progress" && (event.data.status as { state?: string } | undefined)?.state === "downloading" });
    const cancel = await server.api(`/api/jobs/${slow.id}`, { method: "DELETE", headers: { "x-chunkpad-token": info.token } });
    expect(cancel.status).toBe(202);
    const after = await events(slow.id);
    expect(after.at(-1)?.type).toBe("job-cancelled");
    hub.behave({});
    const status = json<{ folders: Array<{ embeddedChunkCount: number }> }>(await runCliInProcess(["status", "--json"], { home, env: { CHUNKPAD_SERVER: "off" } }));
    expect(status.folders[0]?.embeddedChunkCount).toBe(0);

    const agreed = await startJob({ kind: "embed", consent: true });
    const done = await events(agreed.id);
    expect(done.some((event) => event.type === "embed-progress" && event.data.phase === "embed")).toBe(true);
    expect(done.at(-1)).toMatchObject({ type: "job-done", data: { result: { schema: "chunkpad.embed/2", downloaded: true } } });
    expect((done.at(-1)?.data.result as { embedded: number }).embedded).toBeGreaterThan(0);
  });

  it("streams an answer as a job: chunks, tokens, citations, and the conversation is kept", async () => {
    openai.script({ reply: "text", deltas: ["The heron ", "waits at dawn [C1]."] });
    const response = await post("/api/ask", { question: "When does the heron wait by the river?", mode: "keyword" });
    expect(response.status).toBe(202);
    const job = (await response.json()) as { id: string };
    const streamed = await events(job.id);
    const types = streamed.map((event) => event.type);
    expect(types[0]).toBe("chunks");
    expect(types.filter((type) => type === "text-delta")).toHaveLength(2);
    expect(types.slice(-2)).toEqual(["final", "job-done"]);
    const final = streamed.find((event) => event.type === "final")?.data.answer as { answer: string; citations: unknown[]; conversationId: string };
    expect(final.answer).toBe("The heron waits at dawn [C1].");
    expect(final.citations).toHaveLength(1);
    const history = await runCliInProcess(["history", "--json"], { home });
    expect(history.stdout).toContain(final.conversationId);
  });
});
