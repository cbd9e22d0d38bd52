import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import type { Page } from "playwright-core";
import { beforeAll, describe, expect, it } from "vitest";
import { ON_POSTGRES, SHARED, touchLater } from "./helpers/cli.js";
import type { RunningServer } from "./helpers/serve.js";
import type { HubServer } from "./helpers/hub-server.js";
import { CLI_COMMAND, useWebApp } from "./helpers/web-app.js";
import { folderLockKey } from "../src/app/folder-lock.js";

/** expect.poll with room for a busy machine (the suite shares two cores): fails only after 10 s. */
const poll = <T>(check: () => T | Promise<T>, options: { timeout?: number } = {}) => expect.poll(check, options);

/** Adding a folder through the picker, the chunk-file tree, review, editing, conflicts, uploads, embedding and encrypted files. One server and one browser for the file (helpers/web-app.ts). */
describe("the web app: documents", () => {
  const { app, axeProblems, goTo, folderButton, shoot } = useWebApp();
  let home: string;
  let folder: string;
  let hub: HubServer;
  let server: RunningServer;
  let info: RunningServer["info"];
  let page: Page;
  beforeAll(() => {
    ({ home, folder, hub, server, info, page } = app);
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

  // The job waits on a SQLite lock file written here; PGlite (one session) cannot hold a PostgreSQL lease against the server.
  it.skipIf(ON_POSTGRES)("shows a job still running when the page is opened again", async () => {
    // Another Chunkpad process holds the folder: the process job waits for it.
    const lockFile = path.join(home, "data", "locks", `${folderLockKey(folder)}.lock`);
    fs.mkdirSync(path.dirname(lockFile), { recursive: true });
    fs.writeFileSync(lockFile, JSON.stringify({ pid: process.pid, hostname: os.hostname(), command: "chunkpad embed (test)", folder, startedAt: new Date().toISOString(), token: "test-holder" }));
    const started = await server.api(`/api/jobs`, { method: "POST", headers: { "content-type": "application/json", "x-chunkpad-token": info.token }, body: JSON.stringify({ kind: "process", folder }) });
    expect(started.status).toBe(202);
    await page.reload();
    await poll(() => page.getByRole("progressbar").count()).toBe(1);
    fs.rmSync(lockFile);
    await poll(() => page.getByRole("status").filter({ hasText: /^Done\.$/ }).count()).toBe(1);
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
    await poll(() => page.getByRole("treeitem", { name: /^swan\.md/ }).count()).toBe(1);
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

  it("logs no error to the console along the way, and never tells the user to run a command", () => {
    expect(app.consoleErrors).toEqual([]);
    expect(app.messagesShown.length).toBeGreaterThan(0);
    expect(app.messagesShown.filter((text) => CLI_COMMAND.test(text))).toEqual([]);
  });
});
