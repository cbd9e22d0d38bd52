import fs from "node:fs";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { json, makeTempDir, writeSampleDocuments } from "./helpers/cli.js";
import { runCliInProcess } from "./helpers/cli-in-process.js";
import { startServe, type RunningServer } from "./helpers/serve.js";
import { startOpenAiServer } from "./helpers/llm-servers/openai-server.js";
import type { ScriptedServer } from "./helpers/llm-servers/scripted-server.js";

/**
 * Settings that decide where data goes (the LLM's base URL) take effect at once in a running
 * server, whether changed over HTTP or with `chunkpad config set` in another terminal; and a URL
 * setting with a credential in it is shown redacted, in `config list` and over HTTP.
 */
describe("chunkpad serve: where questions go follows the settings at once", () => {
  let home: string;
  let first: ScriptedServer;
  let second: ScriptedServer;
  let server: RunningServer;

  /** Asks over HTTP and waits for the job's end. */
  const ask = async (question: string) => {
    const started = await server.api("/api/ask", { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify({ question, mode: "keyword" }) });
    expect(started.status).toBe(202);
    const { id } = (await started.json()) as { id: string };
    await expect.poll(async () => ((await (await server.api(`/api/jobs/${id}`)).json()) as { state: string }).state, { timeout: 20_000 }).not.toBe("running");
    return ((await (await server.api(`/api/jobs/${id}`)).json()) as { state: string }).state;
  };
  const setting = async (key: string) => ((await (await server.api("/api/settings")).json()) as { settings: Array<{ key: string; value: unknown }> }).settings.find((row) => row.key === key)?.value;

  beforeAll(async () => {
    home = makeTempDir("settings-live");
    writeSampleDocuments(path.join(home, "docs"));
    [first, second] = await Promise.all([startOpenAiServer(), startOpenAiServer()]);
    expect((await runCliInProcess(["add", path.join(home, "docs")], { home })).code).toBe(0);
    for (const [key, value] of [["generation.provider", "openai"], ["generation.openaiBaseUrl", `${first.url}/v1`]] as const) {
      expect((await runCliInProcess(["config", "set", key, value], { home })).code).toBe(0);
    }
    server = await startServe(home, { env: { OPENAI_API_KEY: "sk-live-settings-test", CHUNKPAD_KEYCHAIN: "off" } });
  });
  afterAll(async () => {
    await server.stop();
    await Promise.all([first.close(), second.close()]);
    fs.rmSync(home, { recursive: true, force: true });
  });

  it("sends the next question to a base URL changed over HTTP, and to one changed by config set in another terminal", async () => {
    expect(await ask("Where does the heron wait?")).toBe("done");
    expect([first.requests.length, second.requests.length]).toEqual([1, 0]);

    const changed = await server.api("/api/settings/generation.openaiBaseUrl", { method: "PUT", headers: { "content-type": "application/json" }, body: JSON.stringify({ value: `${second.url}/v1` }) });
    expect(changed.status).toBe(200);
    expect(await ask("Where does the heron wait?")).toBe("done");
    expect([first.requests.length, second.requests.length]).toEqual([1, 1]);

    expect((await runCliInProcess(["config", "set", "generation.openaiBaseUrl", `${first.url}/v1`], { home })).code).toBe(0);
    expect(await setting("generation.openaiBaseUrl")).toBe(`${first.url}/v1`);
    expect(await ask("Where does the heron wait?")).toBe("done");
    expect([first.requests.length, second.requests.length]).toEqual([2, 1]);
  });

  it("shows a base URL's credentials redacted, over HTTP and in config list, and still uses them", async () => {
    const withSecret = `${second.url.replace("http://", "http://proxyuser:hunter2secret@")}/v1?api-key=querysecret42`;
    const put = await server.api("/api/settings/generation.openaiBaseUrl", { method: "PUT", headers: { "content-type": "application/json" }, body: JSON.stringify({ value: withSecret }) });
    expect(put.status).toBe(200);
    const echoed = await put.text();
    const listed = await (await server.api("/api/settings")).text();
    const providers = await (await server.api("/api/providers")).text();
    const cliList = await runCliInProcess(["config", "list"], { home });
    const cliJson = await runCliInProcess(["config", "list", "--json"], { home });
    const cliGet = await runCliInProcess(["config", "get", "generation.openaiBaseUrl"], { home });
    for (const [where, text] of [["PUT answer", echoed], ["GET /api/settings", listed], ["GET /api/providers", providers], ["config list", cliList.stdout], ["config list --json", cliJson.stdout], ["config get", cliGet.stdout]]) {
      expect(text, where).not.toContain("hunter2secret");
      expect(text, where).not.toContain("querysecret42");
      expect(text, where).toContain(second.url.replace("http://", ""));
    }
    expect(json<Array<{ key: string; value: string }>>(cliJson).find((row) => row.key === "generation.openaiBaseUrl")?.value).toBe(`http://[redacted]@${second.url.replace("http://", "")}/v1?api-key=[redacted]`);
    // Only what is shown is redacted: the client gets the real URL (here a proxy's key in the query).
    const keyed = await server.api("/api/settings/generation.openaiBaseUrl", { method: "PUT", headers: { "content-type": "application/json" }, body: JSON.stringify({ value: `${second.url}/v1?api-key=querysecret42` }) });
    expect(keyed.status).toBe(200);
    second.reset();
    expect(await ask("Where does the heron wait?")).toBe("done");
    expect(second.requests.at(-1)?.path).toContain("api-key=querysecret42");
  });
});
