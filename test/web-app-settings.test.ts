import fs from "node:fs";
import http from "node:http";
import path from "node:path";
import type { Browser, Page } from "playwright-core";
import { beforeAll, describe, expect, it } from "vitest";
import type { RunningServer } from "./helpers/serve.js";
import type { HubServer } from "./helpers/hub-server.js";
import type { ScriptedServer } from "./helpers/llm-servers/scripted-server.js";
import { CLI_COMMAND, LOCAL_MODEL, useWebApp } from "./helpers/web-app.js";

/** expect.poll with room for a busy machine (the suite shares two cores): fails only after 10 s. */
const poll = <T>(check: () => T | Promise<T>, options: { timeout?: number } = {}) => expect.poll(check, options);

/** The command palette and keyboard-only use, Settings (providers, keys, the local model, themes, Data: sync, export, import, clear), the security of the page. One server and one browser for the file (helpers/web-app.ts). */
describe("the web app: settings and keyboard", () => {
  const { app, axeProblems, openApp, goTo, settingsSection, inspector, folderButton, shoot } = useWebApp({ addFolder: true });
  let home: string;
  let folder: string;
  let openai: ScriptedServer;
  let hub: HubServer;
  let server: RunningServer;
  let info: RunningServer["info"];
  let browser: Browser;
  let page: Page;
  let consoleErrors: string[];
  beforeAll(() => {
    ({ home, folder, openai, hub, server, info, browser, page, consoleErrors } = app);
  });

  it("runs every action from the command palette, and works from the keyboard alone", async () => {
    await page.keyboard.press("Control+k");
    const palette = page.getByRole("dialog", { name: "Command palette" });
    await poll(() => palette.count()).toBe(1);
    expect(await axeProblems()).toEqual([]);
    await page.keyboard.type("settings");
    await page.keyboard.press("Enter");
    await poll(() => page.getByRole("heading", { name: "Settings", level: 2 }).count()).toBe(1);
    expect(await palette.count()).toBe(0);
    // Alt+number moves between views; ? lists the shortcuts; / goes to search.
    await page.keyboard.press("Alt+3");
    await poll(() => page.getByRole("textbox", { name: "Question" }).count()).toBe(1);
    await page.locator("body").click({ position: { x: 2, y: 2 } });
    await page.keyboard.press("?");
    const help = page.getByRole("dialog", { name: "Keyboard shortcuts" });
    await poll(() => help.textContent()).toMatch(/Command palette/);
    await page.keyboard.press("Escape");
    await page.keyboard.press("/");
    await poll(() => page.evaluate(() => document.activeElement?.id)).toBe("search-query");
    // A search typed and run without the mouse; the first result opens with Tab and Enter.
    await page.keyboard.press("Control+a");
    await page.keyboard.type("aardvark");
    await page.keyboard.press("Enter");
    await poll(() => page.getByRole("region", { name: "Search results" }).getByRole("listitem").first().textContent()).toContain("report.txt");
    await page.getByRole("region", { name: "Search results" }).getByRole("button").first().focus();
    await page.keyboard.press("Enter");
    await poll(() => inspector().textContent()).toContain("aardvark");
    await page.keyboard.press("Escape");
    await poll(() => inspector().count()).toBe(0);
  });

  it("changes a setting in the config file", async () => {
    await settingsSection("Search");
    await page.getByRole("textbox", { name: "Chunks per document" }).fill("2");
    await page.getByRole("button", { name: "Save Chunks per document" }).click();
    await poll(() => page.getByRole("status").filter({ hasText: "Chunks per document is now 2" }).count()).toBe(1);
    const settings = (await (await server.api(`/api/settings`)).json()) as { settings: Array<{ key: string; value: unknown; source: string }> };
    expect(settings.settings.find((row) => row.key === "search.perDocument")).toMatchObject({ value: 2, source: "config" });
    const bad = await server.api(`/api/settings/search.perDocument`, { method: "PUT", headers: { "content-type": "application/json", "x-chunkpad-token": info.token }, body: JSON.stringify({ value: "many" }) });
    expect(bad.status).toBe(400);
    expect((await server.api(`/api/settings/search.perDocument`, { method: "DELETE", headers: { "x-chunkpad-token": info.token } })).status).toBe(200);
  });

  it("stores an API key without ever showing it again", async () => {
    await settingsSection("Answers");
    await poll(() => page.getByRole("region", { name: "Answer providers" }).textContent()).toContain("openai");
    await poll(() => page.getByLabel("Models installed in ollama").textContent()).toContain("llama3.2:latest");
    const secret = "sk-ant-web-test-0123456789";
    await page.getByLabel(/anthropic API key/).fill(secret);
    await page.getByRole("button", { name: "Save anthropic key" }).click();
    await poll(() => page.getByRole("status").filter({ hasText: "anthropic key is stored" }).count()).toBe(1);
    expect(await page.getByLabel(/anthropic API key/).inputValue()).toBe("");
    expect(await page.content()).not.toContain(secret);
    const providers = await (await server.api(`/api/providers`)).text();
    expect(providers).not.toContain(secret);
    expect(await axeProblems()).toEqual([]);
  });

  it("downloads the local answer model from Settings, after consent and with progress", async () => {
    // Not downloaded yet (or taken away again when an answer downloaded it).
    const cached = (fs.readdirSync(home, { recursive: true }) as string[]).filter((entry) => entry.endsWith(LOCAL_MODEL.file) && !entry.startsWith("fake-gguf"));
    for (const entry of cached) fs.rmSync(path.join(home, entry));
    const requestsBefore = hub.requests.length;
    await goTo("Settings");
    await openApp();
    await goTo("Settings");
    await page.getByRole("button", { name: "Download the local model…" }).click();
    const dialog = page.getByRole("dialog", { name: "Download the local model?" });
    expect(await dialog.textContent()).toMatch(/about \d+ MB/);
    expect(await axeProblems()).toEqual([]);
    // Nothing is fetched before the user agrees.
    expect(hub.requests.length).toBe(requestsBefore);
    await dialog.getByRole("button", { name: "Download" }).click();
    await poll(async () => (await page.getByRole("status").allTextContents()).join(" / "), { timeout: 30_000 }).toMatch(/is downloaded\./);
    expect(hub.requests.slice(requestsBefore).some((request) => request.path.endsWith(LOCAL_MODEL.file))).toBe(true);
    await poll(() => page.getByRole("button", { name: "Download the local model…" }).count()).toBe(0);
  });

  it("switches to the dark and high-contrast themes without accessibility problems", async () => {
    await settingsSection("Appearance");
    for (const theme of ["dark", "contrast"]) {
      await page.getByLabel("Theme").selectOption(theme);
      await poll(() => page.evaluate(() => document.documentElement.dataset.theme)).toBe(theme);
      expect(await axeProblems()).toEqual([]);
    }
    await page.getByLabel("Theme").selectOption("dark");
    await goTo("Chat");
    await shoot("chat-dark");
    await goTo("Documents");
    await shoot("documents-dark");
    await settingsSection("Appearance");
    await page.getByLabel("Theme").selectOption("system");
  });

  it("sends no page and no answer to a foreign Host, and the page carries a strict CSP and no secret", async () => {
    const response = await server.api("/");
    expect(response.headers.get("content-security-policy")).toContain("default-src 'self'");
    const html = await response.text();
    expect(html).toContain('<div id="root">');
    expect(html).not.toContain(info.token);
    // A page on another site that rebinds its name to 127.0.0.1 sends its own Host: no page, no token.
    const port = new URL(info.url).port;
    const foreign = await new Promise<{ status: number; body: string }>((resolve, reject) => {
      const outgoing = http.request({ host: "127.0.0.1", port, path: "/", headers: { host: `evil.example:${port}` } }, (answer) => {
        let body = "";
        answer.on("data", (data: Buffer) => (body += data.toString()));
        answer.on("end", () => resolve({ status: answer.statusCode ?? 0, body }));
      });
      outgoing.on("error", reject);
      outgoing.end();
    });
    expect(foreign.status).toBe(421);
    expect(foreign.body).not.toContain(info.token);
    // Folder names are the user's: the picker needs the credential even to read.
    expect((await fetch(`${info.url}/api/browse`)).status).toBe(401);
    expect((await server.api(`/api/browse`)).status).toBe(200);
  });

  it("sets a provider's model and shows its base URL in Settings → Answers; syncs from Settings → Data", async () => {
    await settingsSection("Answers");
    const openaiCard = page.getByRole("region", { name: "openai provider" });
    expect(await openaiCard.getByRole("textbox", { name: "OpenAI-compatible base URL" }).inputValue()).toBe(`${openai.url}/v1`);
    expect(await openaiCard.textContent()).toContain("from the environment");
    const ollamaModel = page.getByRole("region", { name: "ollama provider" }).getByRole("textbox", { name: "Ollama model" });
    await ollamaModel.fill("llama3.2:latest");
    await page.getByRole("button", { name: "Save Ollama model" }).click();
    await poll(() => page.getByRole("status").filter({ hasText: "Ollama model is now llama3.2:latest" }).count()).toBe(1);
    const stored = async () => ((await (await server.api("/api/settings")).json()) as { settings: Array<{ key: string; value: unknown; source: string }> }).settings.find((row) => row.key === "generation.models.ollama");
    expect(await stored()).toMatchObject({ value: "llama3.2:latest", source: "config" });
    await page.getByRole("button", { name: "Reset Ollama model to its default" }).click();
    await poll(async () => (await stored())?.source).toBe("default");
    await settingsSection("Data");
    await page.getByRole("button", { name: "Sync now" }).click();
    await poll(() => page.getByRole("status").filter({ hasText: "Sync: Done." }).count(), { timeout: 30_000 }).toBe(1);
  });

  it("logs no error to the console along the way, nor under the server's CSP with a dialog open", async () => {
    const strict = await browser.newPage({ viewport: { width: 1280, height: 800 } });
    const errors: string[] = [];
    strict.on("console", (message) => {
      if (message.type() === "error" && !message.text().startsWith("Failed to load resource")) errors.push(message.text());
    });
    strict.on("pageerror", (error) => errors.push(error.message));
    await openApp(strict);
    await strict.getByRole("navigation", { name: "Views" }).waitFor();
    await strict.keyboard.press("Control+k");
    await strict.getByRole("dialog", { name: "Command palette" }).waitFor();
    await strict.keyboard.press("Escape");
    await strict.close();
    expect([...consoleErrors, ...errors]).toEqual([]);
  });

  it("exports the index, removes the folder and imports it again from Settings → Data", async () => {
    await settingsSection("Data");
    const archive = path.join(home, "backup.zip");
    await page.getByLabel("Archive to write").fill(archive);
    // Every progress bar the page shows while the job runs, as a screen reader would hear it.
    const recordProgress = () =>
      page.evaluate(() => {
        const seen: string[] = [];
        (window as unknown as { progressSeen: string[] }).progressSeen = seen;
        const note = () => document.querySelectorAll('[role="progressbar"]').forEach((bar) => seen.push(`${bar.getAttribute("aria-label")} ${bar.getAttribute("aria-valuenow") ?? "-"}`));
        new MutationObserver(note).observe(document.body, { subtree: true, childList: true, attributes: true, attributeFilter: ["aria-label", "aria-valuenow"] });
      });
    const progressSeen = () => page.evaluate(() => (window as unknown as { progressSeen: string[] }).progressSeen);
    await recordProgress();
    await page.getByRole("region", { name: "Export" }).getByRole("button", { name: "Export" }).click();
    await poll(() => page.getByRole("status").filter({ hasText: `Exported to ${archive}` }).count(), { timeout: 30_000 }).toBe(1);
    expect(fs.existsSync(archive)).toBe(true);
    // Real progress from the job's events: files counted per folder, then compressing and writing.
    const exported = await progressSeen();
    // Every stage of the job is drawn, even when its events arrive together (useJob draws each new stage).
    for (const stage of [/^Reading .*docs: \d+ of \d+ files \d+$/, /^Compressing the archive -$/, /^Writing the archive -$/]) {
      expect(exported.some((entry) => stage.test(entry)), `${stage} among ${exported.join(" | ")}`).toBe(true);
    }
    await page.getByRole("button", { name: `Remove ${fs.realpathSync(folder)}` }).click();
    expect(await axeProblems()).toEqual([]);
    await page.getByRole("dialog", { name: "Remove this folder?" }).getByRole("button", { name: "Remove folder" }).click();
    await poll(() => page.getByRole("status").filter({ hasText: "Removed" }).count()).toBe(1);
    await poll(() => page.getByRole("list", { name: "Added folders" }).getByRole("button").count()).toBe(0);
    expect(fs.readFileSync(path.join(folder, "report.txt"), "utf8")).toContain("aardvark");
    await page.getByLabel("Archive to import").fill(archive);
    await page.getByLabel("Restore into folder").fill(folder);
    await recordProgress();
    await page.getByRole("region", { name: "Import" }).getByRole("button", { name: "Import" }).click();
    await poll(() => page.getByRole("status").filter({ hasText: "Imported" }).count(), { timeout: 30_000 }).toBe(1);
    const imported = await progressSeen();
    // Every stage again; counts within a stage may be drawn once for several events.
    for (const stage of [/^Reading the archive -$/, /^Restoring documents: \d+ of \d+ \d+$/, /^Putting the files in place -$/]) {
      expect(imported.some((entry) => stage.test(entry)), `${stage} among ${imported.join(" | ")}`).toBe(true);
    }
    await poll(() => folderButton().getAttribute("title")).toBe(fs.realpathSync(folder));
  });

  it("clears all data from Settings after a typed confirmation; the documents stay", async () => {
    await settingsSection("Data");
    await page.getByRole("button", { name: "Clear all data…" }).click();
    const dialog = page.getByRole("dialog", { name: "Clear all data?" });
    expect(await axeProblems()).toEqual([]);
    const erase = dialog.getByRole("button", { name: "Delete everything" });
    expect(await erase.isDisabled()).toBe(true);
    await dialog.getByLabel(/^Type "delete all data"/).fill("delete all data");
    await erase.click();
    await poll(() => page.getByRole("status").filter({ hasText: /^Deleted \d+ items/ }).count()).toBe(1);
    // The app opens a fresh, empty database at once: nothing of the old one is searchable.
    expect(((await (await server.api(`/api/search?q=aardvark&mode=keyword`)).json()) as { results: unknown[] }).results).toEqual([]);
    await goTo("Documents");
    await poll(() => page.getByText("No folder yet").count()).toBe(1);
    expect(fs.readFileSync(path.join(folder, "report.txt"), "utf8")).toContain("aardvark");
  });

  it("never told the user to run a command along the way (every alert, status and notice it showed)", () => {
    expect(app.messagesShown.length).toBeGreaterThan(0);
    expect(app.messagesShown.filter((text) => CLI_COMMAND.test(text))).toEqual([]);
  });
});
