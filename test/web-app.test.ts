import fs from "node:fs";
import http from "node:http";
import os from "node:os";
import { createRequire } from "node:module";
import path from "node:path";
import { chromium, type Browser, type Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { layoutProblems } from "./helpers/layout.js";
import { makeTempDir, REPO_ROOT, runCli, SHARED, touchLater, writeSampleDocuments } from "./helpers/cli.js";
import { startServe, type RunningServer } from "./helpers/serve.js";
import { startHubServer, TINY_BERT_DIR, TINY_BERT_REPO, type HubServer } from "./helpers/hub-server.js";
import { LOCAL_LLM_MODELS } from "../src/llm/local-model.js";
import { folderLockKey } from "../src/app/folder-lock.js";

const LOCAL_MODEL = LOCAL_LLM_MODELS[0] as (typeof LOCAL_LLM_MODELS)[number];
import { startOllamaServer } from "./helpers/llm-servers/ollama-server.js";
import { startOpenAiServer } from "./helpers/llm-servers/openai-server.js";
import type { ScriptedServer } from "./helpers/llm-servers/scripted-server.js";

/** expect.poll with room for a busy machine (the suite shares two cores): fails only after 10 s. */
const poll = <T>(check: () => T | Promise<T>, options: { timeout?: number } = {}) => expect.poll(check, { timeout: 10_000, ...options });
const CHROMIUM_FLAGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking", "--disable-component-update", "--disable-sync", "--no-first-run"];
const AXE = createRequire(import.meta.url).resolve("axe-core/axe.min.js");
/** CHUNKPAD_SCREENSHOTS=1 writes the screenshots the README shows into docs/screenshots. */
const SCREENSHOTS = process.env.CHUNKPAD_SCREENSHOTS === "1" ? path.join(REPO_ROOT, "docs", "screenshots") : null;

/**
 * The web app in a real browser (Debian's chromium through playwright-core) against a real
 * `chunkpad serve`: a folder of real documents, a local OpenAI-compatible server for answers.
 */
describe("the web app", () => {
  let home: string;
  let folder: string;
  let openai: ScriptedServer;
  let hub: HubServer;
  let ollama: ScriptedServer;
  let server: RunningServer;
  let info: RunningServer["info"];
  let browser: Browser;
  let page: Page;
  /** The Sources list of the regenerated answer as shown live, to compare with the reopened one. */
  let liveSources = "";
  /** Errors the page logged (a failed request the app reports in words is not one of them). */
  const consoleErrors: string[] = [];

  /** Serious and critical accessibility problems axe-core finds on the page as it is now. */
  const axeProblems = async () => {
    await page.addScriptTag({ path: AXE });
    const violations = await page.evaluate(async () => {
      const result = await (window as unknown as { axe: { run: () => Promise<{ violations: Array<{ id: string; impact: string; nodes: unknown[] }> }> } }).axe.run();
      return result.violations.map((violation) => ({ id: violation.id, impact: violation.impact, nodes: violation.nodes.length, html: (violation.nodes as Array<{ html: string }>).slice(0, 2).map((node) => node.html) }));
    });
    return violations.filter((violation) => violation.impact === "serious" || violation.impact === "critical");
  };
  /** Opens the app as a user does: the address `chunkpad serve` printed. */
  const openApp = async (target: Page = page) => {
    // The link serve printed: the server trades its token for a cookie and drops it from the address bar.
    await target.goto(server.launchUrl);
    expect(target.url()).toBe(`${info.url}/`);
    await target.getByRole("navigation", { name: "Views" }).waitFor();
  };
  /** A view, through the sidebar. */
  const goTo = async (view: "Documents" | "Search" | "Chat" | "Settings") => {
    await page.getByRole("navigation", { name: "Views" }).getByRole("button", { name: view, exact: true }).click();
  };
  /** A section of Settings. */
  const settingsSection = async (section: string) => {
    await goTo("Settings");
    await page.getByRole("navigation", { name: "Settings sections" }).getByRole("button", { name: section, exact: true }).click();
  };
  const inspector = () => page.getByRole("complementary", { name: "Inspector" });
  const searchFor = async (text: string, mode?: "Best" | "Keyword" | "Meaning" | "Hybrid") => {
    const form = page.getByRole("search");
    await form.getByLabel("Search your documents").fill(text);
    if (mode) await form.getByRole("radio", { name: mode }).click();
    await form.getByRole("button", { name: "Search", exact: true }).click();
  };
  const folderButton = () => page.getByRole("list", { name: "Added folders" }).getByRole("button").first();
  const shoot = async (name: string) => {
    if (SCREENSHOTS === null) return;
    fs.mkdirSync(SCREENSHOTS, { recursive: true });
    await page.screenshot({ path: path.join(SCREENSHOTS, `${name}.png`) });
  };

  beforeAll(async () => {
    home = makeTempDir("web");
    folder = path.join(home, "docs");
    writeSampleDocuments(folder);
    fs.copyFileSync(path.join(SHARED, "corpus", "pdf.js", "pdfs", "tracemonkey.pdf"), path.join(folder, "paper.pdf"));
    // A file that cannot be read: the tree shows it as failed, and the run goes on.
    fs.writeFileSync(path.join(folder, "broken.pdf"), "This is not a PDF.");
    // The hub serves the fixture embedding model and a small fake GGUF where the local Llama lives.
    const ggufDir = path.join(home, "fake-gguf");
    fs.mkdirSync(ggufDir);
    const gguf = Buffer.alloc(200_000, 7);
    gguf.write("GGUF", 0, "latin1");
    gguf.writeUInt32LE(3, 4);
    fs.writeFileSync(path.join(ggufDir, LOCAL_MODEL.file), gguf);
    [openai, hub, ollama] = await Promise.all([startOpenAiServer(), startHubServer({ repos: { [TINY_BERT_REPO]: TINY_BERT_DIR, [LOCAL_MODEL.repoId]: ggufDir } }), startOllamaServer()]);
    for (const [key, value] of [["generation.provider", "openai"], ["embedding.model", TINY_BERT_REPO], ["embedding.dtype", "fp32"]]) {
      expect((await runCli(["config", "set", key as string, value as string], { home })).code).toBe(0);
    }
    server = await startServe(home, { env: { OPENAI_BASE_URL: `${openai.url}/v1`, OPENAI_API_KEY: "sk-openai-test", CHUNKPAD_KEYCHAIN: "off", CHUNKPAD_HUB_URL: hub.url, OLLAMA_HOST: ollama.url } });
    info = server.info;
    browser = await chromium.launch({ executablePath: "/usr/bin/chromium", args: CHROMIUM_FLAGS });
    // bypassCSP lets the test inject axe-core; the CSP itself is checked in the last test.
    page = await browser.newPage({ viewport: { width: 1280, height: 800 }, bypassCSP: true });
    page.on("console", (message) => {
      if (message.type() === "error" && !message.text().startsWith("Failed to load resource")) consoleErrors.push(message.text());
    });
    page.on("pageerror", (error) => consoleErrors.push(error.message));
    await openApp();
  });
  afterAll(async () => {
    await browser?.close();
    await server.stop();
    await Promise.all([openai.close(), hub.close(), ollama.close()]);
    fs.rmSync(home, { recursive: true, force: true });
  });

  it("adds a folder through the server's folder picker, with an empty state that says what to do", async () => {
    await poll(() => page.getByText("No folder yet").count()).toBe(1);
    expect(await axeProblems()).toEqual([]);
    await page.getByRole("button", { name: "Browse…" }).click();
    const dialog = page.getByRole("dialog", { name: "Choose a folder" });
    await dialog.getByRole("button", { name: "docs", exact: true }).click();
    await poll(() => dialog.locator(".folder-path").textContent()).toBe(fs.realpathSync(folder));
    expect(await axeProblems()).toEqual([]);
    await dialog.getByRole("button", { name: "Choose this folder" }).click();
    await poll(() => page.getByLabel("Folder to add").inputValue()).toBe(fs.realpathSync(folder));
    await page.getByRole("button", { name: "Add folder" }).click();
    await poll(() => page.getByRole("status").filter({ hasText: /^Done\.$/ }).count(), { timeout: 30_000 }).toBe(1);
    await poll(() => folderButton().getAttribute("title")).toBe(fs.realpathSync(folder));
  });

  it("shows the chunk-file tree with badges, says why a file failed, and excludes a chunk from search", async () => {
    const tree = page.getByRole("tree", { name: "Chunk files" });
    await poll(() => tree.getByRole("treeitem", { name: /^garden\// }).getAttribute("aria-expanded")).toBe("true");
    await poll(() => tree.getByRole("treeitem", { name: /^tomatoes\.md 1 chunk$/ }).count()).toBe(1);
    await tree.getByRole("treeitem", { name: /^broken\.pdf failed$/ }).click();
    await poll(() => page.getByRole("note", { name: "Why broken.pdf failed" }).textContent()).toMatch(/could not be read \(PARSE_/);
    await tree.getByRole("treeitem", { name: /^notes\.md/ }).click();
    const include = page.getByRole("checkbox", { name: "Include chunk 1" });
    await poll(() => include.isChecked()).toBe(true);
    await shoot("documents-light");
    await include.uncheck();
    await poll(() => include.isChecked()).toBe(false);
    await poll(() => tree.getByRole("treeitem", { name: /^notes\.md/ }).textContent()).toMatch(/excluded/);
    // The box changes at once; the server's review lands a moment later.
    const heronPaths = async () => ((await (await server.api(`/api/search?q=heron&mode=keyword`)).json()) as { results: Array<{ relativePath: string }> }).results.map((result) => result.relativePath);
    await poll(heronPaths).not.toContain("notes.md");
    await include.check();
    await poll(() => include.isChecked()).toBe(true);
    expect(await axeProblems()).toEqual([]);
  });

  it("shows a job still running when the page is opened again", async () => {
    // Another Chunkpad process holds the folder: the process job waits for it.
    const lockFile = path.join(home, "data", "locks", `${folderLockKey(folder)}.lock`);
    fs.mkdirSync(path.dirname(lockFile), { recursive: true });
    fs.writeFileSync(lockFile, JSON.stringify({ pid: process.pid, hostname: os.hostname(), command: "chunkpad embed (test)", folder, startedAt: new Date().toISOString(), token: "test-holder" }));
    const started = await server.api(`/api/jobs`, { method: "POST", headers: { "content-type": "application/json", "x-chunkpad-token": info.token }, body: JSON.stringify({ kind: "process", folder }) });
    expect(started.status).toBe(202);
    await page.reload();
    await poll(() => page.getByRole("progressbar").count()).toBe(1);
    fs.rmSync(lockFile);
    await poll(() => page.getByRole("status").filter({ hasText: /^Done\.$/ }).count(), { timeout: 15_000 }).toBe(1);
    await page.getByRole("treeitem", { name: /^notes\.md/ }).click();
  });

  it("moves through the tree with the arrow keys, closes and opens a folder, and opens a file with Enter", async () => {
    const tree = page.getByRole("tree", { name: "Chunk files" });
    const focusedName = () => page.evaluate(() => document.activeElement?.getAttribute("role") === "treeitem" ? (document.activeElement.textContent ?? "").replace(/^[▾▸]/, "") : "");
    await tree.getByRole("treeitem").first().focus();
    expect(await focusedName()).toMatch(/^garden\//);
    await page.keyboard.press("ArrowDown");
    expect(await focusedName()).toMatch(/^tomatoes\.md/);
    await page.keyboard.press("ArrowLeft");
    expect(await focusedName()).toMatch(/^garden\//);
    await page.keyboard.press("ArrowLeft");
    await poll(() => tree.getByRole("treeitem", { name: /^garden\// }).getAttribute("aria-expanded")).toBe("false");
    await page.keyboard.press("ArrowDown");
    expect(await focusedName()).toMatch(/^broken\.pdf/);
    await page.keyboard.press("End");
    expect(await focusedName()).toMatch(/^report\.txt/);
    await page.keyboard.press("Home");
    await page.keyboard.press("ArrowRight");
    await poll(() => tree.getByRole("treeitem", { name: /^garden\// }).getAttribute("aria-expanded")).toBe("true");
    await page.keyboard.press("ArrowRight");
    expect(await focusedName()).toMatch(/^tomatoes\.md/);
    await page.keyboard.press("Enter");
    await poll(() => tree.getByRole("treeitem", { name: /^tomatoes\.md/ }).getAttribute("aria-selected")).toBe("true");
    await poll(() => page.getByRole("list", { name: "Chunks of garden/tomatoes.md" }).count()).toBe(1);
    // Back to notes.md, as the next tests expect.
    await tree.getByRole("treeitem", { name: /^notes\.md/ }).click();
    await poll(() => tree.getByRole("treeitem", { name: /^notes\.md/ }).getAttribute("aria-selected")).toBe("true");
  });

  it("copies uploaded documents into the folder and processes them; never overwrites one", async () => {
    const input = page.getByLabel("Upload files into this folder");
    await input.setInputFiles({ name: "swan.md", mimeType: "text/markdown", buffer: Buffer.from("# Swan\n\nA swan glides on the lake at dusk.\n") });
    await poll(() => page.getByRole("status").filter({ hasText: "Copied 1 file into the folder." }).count()).toBe(1);
    await poll(() => page.getByRole("treeitem", { name: /^swan\.md/ }).count(), { timeout: 15_000 }).toBe(1);
    expect(fs.readFileSync(path.join(folder, "swan.md"), "utf8")).toContain("A swan glides");
    await input.setInputFiles({ name: "swan.md", mimeType: "text/markdown", buffer: Buffer.from("Something else.") });
    await poll(() => page.getByRole("alert").filter({ hasText: "already exists" }).count()).toBe(1);
    expect(fs.readFileSync(path.join(folder, "swan.md"), "utf8")).toContain("A swan glides");
    const folders = (await (await server.api(`/api/folders`)).json()) as { folders: Array<{ id: string }> };
    const escape = await server.api(`/api/folders/${folders.folders[0]?.id}/files?name=${encodeURIComponent("../escaped.md")}`, { method: "POST", headers: { "x-chunkpad-token": info.token }, body: "x" });
    expect(escape.status).toBe(400);
    expect(fs.existsSync(path.join(home, "escaped.md"))).toBe(false);
  });

  it("embeds after consent, downloading the model from the hub, and then searches by meaning", async () => {
    // One chunk of paper.pdf switched off before embedding: the file is then fully embedded, not "1 new".
    const tree = page.getByRole("tree", { name: "Chunk files" });
    await tree.getByRole("treeitem", { name: /^paper\.pdf/ }).click();
    await page.getByRole("checkbox", { name: "Include chunk 2", exact: true }).uncheck();
    await poll(() => tree.getByRole("treeitem", { name: /^paper\.pdf/ }).textContent()).toMatch(/1 excluded/);
    await page.getByRole("button", { name: "Embed selected" }).click();
    const dialog = page.getByRole("dialog", { name: "Embed the included chunks" });
    expect(await axeProblems()).toEqual([]);
    await dialog.getByRole("button", { name: "Download if needed and embed" }).click();
    await poll(() => page.getByRole("status").filter({ hasText: /^Done\.$/ }).count(), { timeout: 30_000 }).toBe(1);
    expect(hub.requests.some((request) => request.path.endsWith("onnx/model.onnx"))).toBe(true);
    await poll(() => folderButton().textContent()).toMatch(/(\d+)\/\1/);
    const paper = tree.getByRole("treeitem", { name: /^paper\.pdf/ });
    await poll(() => paper.textContent()).toMatch(/1 excluded.*embedded/);
    expect(await paper.textContent()).not.toMatch(/new/);
    // Switched on again, that chunk is new: it has no vector yet.
    await page.getByRole("checkbox", { name: "Include chunk 2", exact: true }).check();
    await poll(() => paper.textContent()).toMatch(/1 new/);
    await tree.getByRole("treeitem", { name: /^notes\.md/ }).click();
    const search = (await (await server.api(`/api/search?q=birds%20near%20water&mode=vector`)).json()) as { mode: string; results: unknown[] };
    expect(search.mode).toBe("vector");
    expect(search.results.length).toBeGreaterThan(0);
  });

  it("excludes and includes every chunk of a document at once", async () => {
    await page.getByRole("button", { name: "Exclude all chunks of notes.md" }).click();
    await poll(() => page.getByRole("checkbox", { name: /^Include chunk \d+$/ }).first().isChecked()).toBe(false);
    const excluded = (await (await server.api(`/api/search?q=heron&mode=keyword`)).json()) as { results: Array<{ relativePath: string }> };
    expect(excluded.results.map((result) => result.relativePath)).not.toContain("notes.md");
    await page.getByRole("button", { name: "Include all chunks of notes.md" }).click();
    await poll(() => page.getByRole("checkbox", { name: /^Include chunk \d+$/ }).first().isChecked()).toBe(true);
  });

  it("excludes and includes a whole folder", async () => {
    await page.getByRole("button", { name: "Close the file" }).click();
    await page.getByRole("button", { name: "Exclude all chunks of this folder" }).click();
    const emptied = async () => ((await (await server.api(`/api/search?q=river&mode=keyword`)).json()) as { results: unknown[] }).results.length;
    await poll(emptied).toBe(0);
    await page.getByRole("button", { name: "Include all chunks of this folder" }).click();
    await poll(emptied).toBeGreaterThan(0);
  });

  it("edits a chunk in the editor: the chunk file changes and search finds the new text", async () => {
    await page.getByRole("tree", { name: "Chunk files" }).getByRole("treeitem", { name: /^notes\.md/ }).click();
    await page.getByRole("button", { name: "Edit chunk 1" }).first().click();
    const editor = page.getByLabel("Text of chunk 1");
    await editor.fill("# Field notes\n\nA kingfisher dives into the river at dawn.");
    await page.getByRole("button", { name: "Save chunk 1" }).click();
    await poll(() => page.getByRole("status").filter({ hasText: "Saved" }).count()).toBe(1);
    expect(fs.readFileSync(path.join(folder, "_chunks", "notes.md.md"), "utf8")).toContain("A kingfisher dives into the river at dawn.");
    const search = (await (await server.api(`/api/search?q=kingfisher&mode=keyword`)).json()) as { results: Array<{ relativePath: string }> };
    expect(search.results.map((result) => result.relativePath)).toEqual(["notes.md"]);
  });

  it("never overwrites a chunk changed elsewhere since the editor read it", async () => {
    const ref = ((await (await server.api(`/api/search?q=aardvark&mode=keyword`)).json()) as { results: Array<{ ref: string }> }).results[0]?.ref as string;
    const before = (await (await server.api(`/api/chunks/${encodeURIComponent(ref)}?neighbours=0`)).json()) as { chunk: { contentHash: string; text: string } };
    const chunkFile = path.join(folder, "_chunks", "report.txt.md");
    fs.writeFileSync(chunkFile, fs.readFileSync(chunkFile, "utf8").replace("aardvark campaign", "aardvark and otter campaign"));
    const response = await server.api(`/api/chunks/${encodeURIComponent(ref)}`, {
      method: "PUT",
      headers: { "content-type": "application/json", "x-chunkpad-token": info.token },
      body: JSON.stringify({ text: "Overwritten.", baseHash: before.chunk.contentHash }),
    });
    expect(response.status).toBe(409);
    expect(((await response.json()) as { code: string }).code).toBe("CHUNK_FILE_CONFLICT");
    expect(fs.readFileSync(chunkFile, "utf8")).toContain("aardvark and otter campaign");
  });

  it("marks a conflict in the tree when a hand-edited file's source changes, and settles it in the app", async () => {
    await goTo("Documents");
    const tree = page.getByRole("tree", { name: "Chunk files" });
    // notes.md's chunk file was edited in the editor above; now its source changes too.
    const source = path.join(folder, "notes.md");
    fs.writeFileSync(source, "# Field notes\n\nThe heron waits by the river at dawn, and the kingfisher too.\n");
    touchLater(source);
    await page.getByRole("button", { name: "Process changes" }).click();
    await poll(() => page.getByRole("status").filter({ hasText: /^Done\.$/ }).count(), { timeout: 30_000 }).toBe(1);
    await poll(() => tree.getByRole("treeitem", { name: /^notes\.md/ }).textContent()).toMatch(/conflict/);
    await tree.getByRole("treeitem", { name: /^notes\.md/ }).click();
    const note = page.getByRole("note", { name: "Conflict in notes.md" });
    await poll(() => note.count()).toBe(1);
    // Before choosing, the user sees what each choice keeps: their edit against the fresh chunks.
    const diff = note.getByRole("region", { name: "Your edit against the fresh chunks" });
    await poll(() => diff.locator("del").allTextContents()).toContain("−Only in your edit: A kingfisher dives into the river at dawn.");
    expect(await diff.locator("ins").allTextContents()).toContain("+Only in the fresh chunks: The heron waits by the river at dawn, and the kingfisher too.");
    expect(await note.textContent()).toMatch(/\d+ lines? only in your edit, \d+ lines? only in the fresh chunks/);
    expect(await axeProblems()).toEqual([]);
    await note.getByRole("button", { name: "Keep my edit" }).click();
    await poll(() => page.getByRole("status").filter({ hasText: "Kept your edit of notes.md." }).count()).toBe(1);
    await poll(() => tree.getByRole("treeitem", { name: /^notes\.md/ }).textContent()).not.toMatch(/conflict/);
    expect(fs.readFileSync(path.join(folder, "_chunks", "notes.md.md"), "utf8")).toContain("A kingfisher dives into the river at dawn.");
  });

  it("searches and opens a result's chunk in the side panel; Escape closes it", async () => {
    await goTo("Search");
    await searchFor("aardvark campaign");
    const result = page.getByRole("button", { name: /report\.txt/ });
    await result.click();
    const panel = inspector();
    await poll(() => panel.textContent()).toMatch(/aardvark (and otter )?campaign/);
    expect(await axeProblems()).toEqual([]);
    await page.keyboard.press("Escape");
    await poll(() => panel.count()).toBe(0);
  });

  it("searches within one document", async () => {
    await goTo("Search");
    await page.getByLabel("Only in document").fill("tomatoes.md");
    await searchFor("river", "Keyword");
    await page.getByRole("checkbox", { name: "Explain" }).check();
    const results = page.getByRole("region", { name: "Search results" }).getByRole("listitem");
    // The results of the search before stay until the new ones arrive: wait for the new ones.
    await poll(async () => (await results.allTextContents()).map((text) => text.includes("garden/tomatoes.md"))).toEqual([true]);
    // The explain view: the keyword expression that ran, and each stage's numbers per result.
    expect(await page.getByRole("region", { name: "Search results" }).textContent()).toMatch(/keyword query: "river".*Keyword score\s*[\d.e+-]+ \(rank 1\)/s);
    await page.getByRole("checkbox", { name: "Explain" }).uncheck();
    await page.getByRole("button", { name: "Search every document" }).click();
  });

  it("shows a PDF result's page, drawn by pdf.js, with the chunk's text highlighted", async () => {
    await searchFor("trace-based compilation", "Keyword");
    await page.getByRole("button", { name: /paper\.pdf/ }).first().click();
    const pdfPage = page.getByRole("img", { name: /^Page \d+ of paper\.pdf, the cited text highlighted$/ });
    await poll(() => pdfPage.getAttribute("data-highlighted"), { timeout: 15_000 }).not.toBe("0");
    expect(Number(await pdfPage.getAttribute("data-highlighted"))).toBeGreaterThan(0);
    await pdfPage.scrollIntoViewIfNeeded();
    await shoot("pdf-citation-light");
    await page.getByRole("button", { name: "Close the inspector" }).click();
  });

  it("streams an answer, and its citation opens the cited chunk", async () => {
    openai.script({ reply: "text", deltas: ["The kingfisher dives ", "at dawn [C1]."] });
    await goTo("Chat");
    const box = page.getByLabel("Question");
    // notes.md's first chunk was edited in the editor test above: the answer comes from the new text.
    await box.fill("When does the kingfisher dive into the river?");
    await box.press("Enter");
    await poll(() => page.locator(".answer").first().textContent()).toContain("The kingfisher dives at dawn");
    await page.getByRole("button", { name: "Open citation C1" }).click();
    await poll(() => inspector().textContent()).toContain("kingfisher");
    await shoot("chat-light");
    expect(await axeProblems()).toEqual([]);
    await page.getByRole("button", { name: "Close the inspector" }).click();
  });

  it("regenerates from the chunks left switched on, without searching again", async () => {
    const chips = page.getByRole("checkbox", { name: /^Use source \d+ for the answer$/ });
    const count = await chips.count();
    expect(count).toBeGreaterThan(0);
    // Every chunk off: the answer is "I don't know" without asking the model.
    const requests = openai.requests.length;
    for (let index = 0; index < count; index++) await chips.nth(index).uncheck();
    await page.getByRole("button", { name: "Regenerate with the sources switched on" }).click();
    await poll(() => page.locator(".answer").last().textContent()).toContain("switched off");
    expect(openai.requests.length).toBe(requests);
    // The first chunk back on: the model answers again from it alone.
    openai.script({ reply: "text", deltas: ["Again: it dives at dawn [C1]."] });
    await chips.first().check();
    await page.getByRole("button", { name: "Regenerate with the sources switched on" }).click();
    await poll(() => page.locator(".answer").last().textContent()).toContain("Again: it dives at dawn");
    expect(openai.requests.length).toBe(requests + 1);
    // Source #1 off and #2 on: the answer is given only #2, which it calls [C1]. Its citation
    // opens #2, never the chunk the user switched off.
    expect(count).toBeGreaterThan(1);
    openai.script({ reply: "text", deltas: ["Again: it dives at dawn, says [C1]."] });
    await chips.first().uncheck();
    await chips.nth(1).check();
    await page.getByRole("button", { name: "Regenerate with the sources switched on" }).click();
    await poll(() => page.locator(".answer").last().textContent()).toContain("says C1");
    const sources = page.getByRole("list", { name: "Sources" }).last();
    await sources.getByRole("button", { name: /^#2 / }).click();
    const secondSource = await inspector().locator(".metadata").textContent();
    await sources.getByRole("button", { name: /^#1 / }).click();
    const firstSource = await inspector().locator(".metadata").textContent();
    expect(firstSource).not.toBe(secondSource);
    await page.locator(".answer").last().getByRole("button", { name: "Open citation C1" }).click();
    await poll(() => inspector().locator(".metadata").textContent()).toBe(secondSource);
    await page.getByRole("button", { name: "Close the inspector" }).click();
    liveSources = await sources.innerText();
    // The conversation list counts the answers as they come (two asks, three regenerations here).
    const conversationId = await page.evaluate(() => document.querySelector(".conversation-row[aria-current=true]")?.textContent ?? "");
    const stored = ((await (await server.api(`/api/conversations`)).json()) as { conversations: Array<{ title: string; messageCount: number }> }).conversations[0];
    expect(conversationId).toContain(`${stored?.messageCount} messages`);
  });

  it("renders Markdown answers and flags a citation the answer was never given", async () => {
    openai.script({ reply: "text", deltas: ["Two facts:\n\n- it dives at dawn [C1]\n- it nests in banks [C42]\n\n| bird | time |\n|---|---|\n| kingfisher | dawn |\n"] });
    await page.getByRole("button", { name: "New conversation" }).click();
    const box = page.getByLabel("Question");
    await box.fill("When does the kingfisher dive into the river?");
    await box.press("Enter");
    const answer = page.locator(".answer").last();
    await poll(() => answer.getByRole("table").count()).toBe(1);
    expect(await answer.getByRole("listitem").count()).toBe(2);
    await poll(() => answer.getByRole("button", { name: "Open citation C1" }).count()).toBe(1);
    // [C42] is not a source: flagged in the text and said under the answer, never a link.
    expect(await answer.getByRole("button", { name: /C42/ }).count()).toBe(0);
    expect(await answer.locator("mark.citation-invalid").textContent()).toBe("C42");
    await poll(() => page.getByRole("note").filter({ hasText: "cites C42, which is not among its sources" }).count()).toBe(1);
    expect(await axeProblems()).toEqual([]);
  });

  it("stops an answer while it streams, keeping what arrived", async () => {
    openai.script({ reply: "text", deltas: ["The kingfisher ", "dives ", "at ", "dawn ", "and never stops."], delayMs: 700 });
    await page.getByRole("button", { name: "New conversation" }).click();
    const box = page.getByLabel("Question");
    await box.fill("When does the kingfisher dive into the river?");
    await box.press("Enter");
    const answer = page.locator(".answer").last();
    await poll(() => answer.textContent()).toContain("The kingfisher");
    await page.getByRole("button", { name: "Stop" }).click();
    await poll(() => answer.textContent()).toContain("stopped");
    expect(await answer.textContent()).not.toContain("never stops");
    await poll(() => page.getByRole("button", { name: "Ask" }).count()).toBe(1);
  });

  it("puts a pinned document's chunks first in the chunks bar", async () => {
    openai.script({ reply: "text", deltas: ["Pinned [C1]."] });
    await page.getByRole("button", { name: "New conversation" }).click();
    await page.getByLabel("Pin a document (its chunks come first)").fill("report.txt");
    const box = page.getByLabel("Question");
    await box.fill("When does the kingfisher dive into the river?");
    await box.press("Enter");
    await poll(() => page.locator(".answer").last().textContent()).toContain("Pinned");
    expect(await page.getByRole("list", { name: "Sources" }).last().getByRole("listitem").first().textContent()).toContain("report.txt");
    await page.getByLabel("Pin a document (its chunks come first)").fill("");
  });

  it("answers with the model picked in the chat", async () => {
    openai.script({ reply: "text", deltas: ["From the small model [C1]."] });
    await page.getByRole("button", { name: "New conversation" }).click();
    await page.getByLabel("Answered by").selectOption("openai");
    await page.getByLabel("Model").fill("gpt-test-small");
    const box = page.getByLabel("Question");
    await box.fill("Where does the kingfisher dive?");
    await box.press("Enter");
    await poll(() => page.locator(".answer").last().textContent()).toContain("From the small model");
    expect(openai.requests.at(-1)?.body.model).toBe("gpt-test-small");
    await page.getByLabel("Model").fill("");
    await page.getByLabel("Answered by").selectOption("");
  });

  it("offers to download the local model when it answers, and downloads it only after consent", async () => {
    await page.getByRole("button", { name: "New conversation" }).click();
    await page.getByLabel("Answered by").selectOption("local");
    const box = page.getByLabel("Question");
    await box.fill("Where does the swan glide?");
    await box.press("Enter");
    const dialog = page.getByRole("dialog", { name: "Download the local model?" });
    await poll(() => dialog.count()).toBe(1);
    const gguf = () => hub.requests.filter((request) => request.path.endsWith(LOCAL_MODEL.file)).length;
    expect(gguf()).toBe(0);
    expect(await axeProblems()).toEqual([]);
    await dialog.getByRole("button", { name: "Download and answer" }).click();
    // The fake file downloads, then cannot load as a model: the error says so, in words.
    await poll(() => page.getByRole("alert").last().textContent(), { timeout: 30_000 }).toMatch(/load/i);
    expect(gguf()).toBeGreaterThan(0);
    await page.getByLabel("Answered by").selectOption("");
  });

  it("lists the conversation just held, and starts a new one", async () => {
    const list = page.getByRole("region", { name: "Conversations" });
    await poll(() => list.textContent()).toContain("When does the kingfisher dive into the river?");
    await page.getByRole("button", { name: "New conversation" }).click();
    await poll(() => page.locator(".answer").count()).toBe(0);
    // Newest first: the regenerated conversation is the oldest one about the kingfisher.
    await list.getByRole("button", { name: /kingfisher/ }).last().click();
    await poll(() => page.locator(".answer").last().textContent()).toContain("Again: it dives at dawn");
    // Reopened, it shows what was shown live: the sources with the ones switched off, and a
    // citation that opens the chunk the answer was given.
    const sources = page.getByRole("list", { name: "Sources" }).last();
    await poll(() => sources.getByRole("listitem").count()).toBeGreaterThan(1);
    expect(await sources.getByRole("checkbox", { name: "Use source 1 for the answer" }).isChecked()).toBe(false);
    expect(await sources.getByRole("checkbox", { name: "Use source 2 for the answer" }).isChecked()).toBe(true);
    await sources.getByRole("button", { name: /^#2 / }).click();
    const secondSource = await inspector().locator(".metadata").textContent();
    await page.locator(".answer").last().getByRole("button", { name: "Open citation C1" }).click();
    await poll(() => inspector().locator(".metadata").textContent()).toBe(secondSource);
    await page.getByRole("button", { name: "Close the inspector" }).click();
    // Exactly as shown live: numbers, files, pages, labels and relevance (kept in the chat store).
    expect(liveSources).toMatch(/\d+%/);
    expect(await sources.innerText()).toBe(liveSources);
    // And it regenerates from the sources the chat store kept, with the user's new choice.
    openai.script({ reply: "text", deltas: ["Reopened: dawn [C1]."] });
    await sources.getByRole("checkbox", { name: "Use source 1 for the answer" }).check();
    await sources.getByRole("checkbox", { name: "Use source 2 for the answer" }).uncheck();
    await page.getByRole("button", { name: "Regenerate with the sources switched on" }).click();
    await poll(() => page.locator(".answer").last().textContent()).toContain("Reopened: dawn");
    await page.locator(".answer").last().getByRole("button", { name: "Open citation C1" }).click();
    await poll(() => inspector().locator(".metadata").textContent()).not.toBe(secondSource);
    await page.getByRole("button", { name: "Close the inspector" }).click();
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
    // The chat test above downloaded it: take it away again.
    const cached = (fs.readdirSync(home, { recursive: true }) as string[]).filter((entry) => entry.endsWith(LOCAL_MODEL.file) && !entry.startsWith("fake-gguf"));
    expect(cached.length).toBeGreaterThan(0);
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

  it("asks for the password of an encrypted document, and opens it with it", async () => {
    await goTo("Documents");
    await page.getByLabel("Upload files into this folder").setInputFiles({ name: "locked.pdf", mimeType: "application/pdf", buffer: fs.readFileSync(path.join(SHARED, "corpus", "pdf.js", "pdfs", "issue6010_1.pdf")) });
    const locked = page.getByRole("tree", { name: "Chunk files" }).getByRole("treeitem", { name: /^locked\.pdf/ });
    await poll(() => locked.textContent(), { timeout: 30_000 }).toMatch(/failed/);
    await locked.click();
    const why = page.getByRole("note", { name: "Why locked.pdf failed" });
    await poll(() => why.textContent()).toMatch(/PARSE_ENCRYPTED/);
    expect(await axeProblems()).toEqual([]);
    await page.getByLabel("Password for locked.pdf").fill("not it");
    await page.getByRole("button", { name: "Open with this password" }).click();
    await poll(() => why.textContent(), { timeout: 30_000 }).toMatch(/PARSE_WRONG_PASSWORD/);
    await page.getByLabel("Password for locked.pdf").fill("abc");
    await page.getByRole("button", { name: "Open with this password" }).click();
    await poll(() => locked.textContent(), { timeout: 30_000 }).not.toMatch(/failed/);
    await poll(() => page.getByRole("list", { name: "Chunks of locked.pdf" }).getByRole("listitem").count()).toBeGreaterThan(0);
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

  it("lays out every view at 390, 1024 and 1440 px without overflow, clipping, overlap or misgrouping; axe finds nothing in any theme", async () => {
    const show = async (view: "Documents" | "Search" | "Chat" | "Settings") => {
      // Phone width: the sidebar is a drawer, opened from the title bar.
      if ((page.viewportSize()?.width ?? 1280) <= 760) await page.getByRole("button", { name: "Open the sidebar" }).click();
      await goTo(view);
      if (view === "Documents") await page.locator(".file-title").waitFor();
      if (view === "Search") await page.getByRole("region", { name: "Search results" }).getByRole("listitem").first().waitFor();
      if (view === "Chat") await page.locator(".answer").first().waitFor();
    };
    // The states the screenshots show: a file open, results for a query, a conversation with a table.
    await goTo("Documents");
    if ((await page.getByRole("button", { name: "Close the file" }).count()) === 0) await page.getByRole("tree", { name: "Chunk files" }).getByRole("treeitem", { name: /^notes\.md/ }).click();
    await goTo("Search");
    await searchFor("river", "Keyword");
    await goTo("Chat");
    const conversations = page.getByRole("region", { name: "Conversations" }).getByRole("button", { name: /kingfisher/ });
    for (let index = 0; index < (await conversations.count()); index++) {
      await conversations.nth(index).click();
      await poll(() => conversations.nth(index).getAttribute("aria-current")).toBe("true");
      if ((await page.locator(".answer table").count()) > 0) break;
    }
    await settingsSection("Answers");
    const problems: string[] = [];
    for (const width of [1440, 1024, 390]) {
      await page.setViewportSize({ width, height: width === 390 ? 844 : 900 });
      for (const theme of width === 1440 ? ["light", "dark", "contrast"] : ["light", "dark"]) {
        await page.evaluate((chosen) => (document.documentElement.dataset.theme = chosen), theme);
        for (const view of ["Documents", "Search", "Chat", "Settings"] as const) {
          await show(view);
          problems.push(...(await layoutProblems(page)).map((problem) => `${view} ${width}px ${theme}: ${problem}`));
          if (width === 1440) problems.push(...(await axeProblems()).map((problem) => `${view} ${theme}: axe ${problem.id} ${JSON.stringify(problem.html)}`));
          if (theme !== "contrast") await shoot(`${view.toLowerCase()}-${width}-${theme}`);
        }
      }
    }
    // Three panes at full width: the search result's PDF page in the inspector beside the results.
    await page.setViewportSize({ width: 1440, height: 900 });
    await page.evaluate(() => (document.documentElement.dataset.theme = "light"));
    await show("Search");
    await searchFor("trace-based compilation", "Keyword");
    await page.getByRole("button", { name: /paper\.pdf/ }).first().click();
    await poll(() => page.getByRole("img", { name: /^Page \d+ of paper\.pdf/ }).getAttribute("data-highlighted"), { timeout: 15_000 }).not.toBe("0");
    problems.push(...(await layoutProblems(page)).map((problem) => `Search with inspector: ${problem}`));
    await shoot("search-inspector-1440-light");
    await page.getByRole("button", { name: "Close the inspector" }).click();
    await page.setViewportSize({ width: 1280, height: 800 });
    await page.evaluate(() => (document.documentElement.dataset.theme = localStorage.getItem("chunkpad-theme") ?? "system"));
    expect(problems).toEqual([]);
  }, 240_000);

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
    expect(exported.some((entry) => /^Reading .*docs: \d+ of \d+ files \d+$/.test(entry))).toBe(true);
    expect(exported).toContain("Writing the archive -");
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
    expect(imported.some((entry) => /^Restoring documents: (\d+) of \1 100$/.test(entry))).toBe(true);
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
});
