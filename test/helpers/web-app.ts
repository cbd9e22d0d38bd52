import fs from "node:fs";
import { createRequire } from "node:module";
import path from "node:path";
import { chromium, type Browser, type Page } from "playwright-core";
import { afterAll, beforeAll, expect } from "vitest";
import { makeTempDir, REPO_ROOT, SHARED, writeSampleDocuments } from "./cli.js";
import { runCliInProcess } from "./cli-in-process.js";
import { startServe, type RunningServer } from "./serve.js";
import { startHubServer, TINY_BERT_DIR, TINY_BERT_REPO, type HubServer } from "./hub-server.js";
import { startOllamaServer } from "./llm-servers/ollama-server.js";
import { startOpenAiServer } from "./llm-servers/openai-server.js";
import type { ScriptedServer } from "./llm-servers/scripted-server.js";
import { LOCAL_LLM_MODELS } from "../../src/llm/local-model.js";

/**
 * The web app in a real browser (Debian's chromium through playwright-core) against a real
 * `chunkpad serve`: a folder of real documents, a local OpenAI-compatible server for answers, a
 * hub for models. One fixture per test file (one server, one browser), shared by its tests.
 */

export const LOCAL_MODEL = LOCAL_LLM_MODELS[0] as (typeof LOCAL_LLM_MODELS)[number];
const CHROMIUM_FLAGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking", "--disable-component-update", "--disable-sync", "--no-first-run"];
const AXE = createRequire(import.meta.url).resolve("axe-core/axe.min.js");
/** The axe-core rules that read colours (its "cat.color" rules; color-contrast-enhanced, AAA, is off by default): what a theme can change. */
const THEME_RULES = ["color-contrast", "link-in-text-block"];
/** CHUNKPAD_SCREENSHOTS=1 writes the screenshots the README shows into docs/screenshots. */
const SCREENSHOTS = process.env.CHUNKPAD_SCREENSHOTS === "1" ? path.join(REPO_ROOT, "docs", "screenshots") : null;

export type View = "Documents" | "Search" | "Chat" | "Settings";

export interface WebApp {
  home: string;
  folder: string;
  openai: ScriptedServer;
  hub: HubServer;
  ollama: ScriptedServer;
  server: RunningServer;
  info: RunningServer["info"];
  browser: Browser;
  page: Page;
  /** Errors the page logged (a failed request the app reports in words is not one of them). */
  consoleErrors: string[];
  /** Every text the page showed in an alert, a status, a note or a notice, as it changed. */
  messagesShown: string[];
}

/** A command a terminal user types, or one of its flags: what the web app must never tell its user to run (decision 060). */
export const CLI_COMMAND = /\bchunkpad (add|embed|process|resolve|config|search|ask|status|sync|reset|import|export|migrate|models|folders|review|include|exclude|keys|chunks|watch|remove)\b|\s--[a-z]/;

export interface WebAppOptions {
  /** Changes the sample documents before anything reads them. */
  prepare?: (folder: string) => void;
  /** Adds the folder with the CLI before the server starts (a file that tests the picker adds it itself). */
  addFolder?: boolean;
  /** More config settings, as `chunkpad config set` takes them. */
  settings?: Array<[string, string]>;
}

/** Registers the fixture's beforeAll/afterAll; the returned object is filled before the first test. */
export function useWebApp(options: WebAppOptions = {}) {
  const app = {} as WebApp;

  /**
   * Serious and critical accessibility problems axe-core finds on the page as it is now. With
   * `colorsOnly`, only the rules a theme can change: a theme swaps colours and adds borders and
   * outlines, never an element, a name or a role, so the page's other rules have already been run
   * in its first theme. axe-core is injected once per page (its 550 KB took ≈ 0.4 s to parse each time).
   */
  const axeProblems = async ({ colorsOnly = false } = {}) => {
    if (!(await app.page.evaluate(() => "axe" in window))) await app.page.addScriptTag({ path: AXE });
    const violations = await app.page.evaluate(async (rules) => {
      type Axe = { run: (context?: Document, options?: object) => Promise<{ violations: Array<{ id: string; impact: string; nodes: unknown[] }> }> };
      const result = await (window as unknown as { axe: Axe }).axe.run(document, rules === null ? {} : { runOnly: { type: "rule", values: rules } });
      return result.violations.map((violation) => ({ id: violation.id, impact: violation.impact, nodes: violation.nodes.length, html: (violation.nodes as Array<{ html: string }>).slice(0, 2).map((node) => node.html) }));
    }, colorsOnly ? THEME_RULES : null);
    return violations.filter((violation) => violation.impact === "serious" || violation.impact === "critical");
  };
  /** Opens the app as a user does: the address `chunkpad serve` printed. */
  const openApp = async (target: Page = app.page) => {
    // The link serve printed: the server trades its token for a cookie and drops it from the address bar.
    await target.goto(app.server.launchUrl);
    expect(target.url()).toBe(`${app.info.url}/`);
    await target.getByRole("navigation", { name: "Views" }).waitFor();
  };
  /** A view, through the sidebar. */
  const goTo = async (view: View) => {
    await app.page.getByRole("navigation", { name: "Views" }).getByRole("button", { name: view, exact: true }).click();
  };
  /** A section of Settings. */
  const settingsSection = async (section: string) => {
    await goTo("Settings");
    await app.page.getByRole("navigation", { name: "Settings sections" }).getByRole("button", { name: section, exact: true }).click();
  };
  const inspector = () => app.page.getByRole("complementary", { name: "Inspector" });
  const searchFor = async (text: string, mode?: "Best" | "Keyword" | "Meaning" | "Hybrid") => {
    const form = app.page.getByRole("search");
    await form.getByLabel("Search your documents").fill(text);
    if (mode) await form.getByRole("radio", { name: mode }).click();
    await form.getByRole("button", { name: "Search", exact: true }).click();
  };
  const folderButton = () => app.page.getByRole("list", { name: "Added folders" }).getByRole("button").first();
  const shoot = async (name: string) => {
    if (SCREENSHOTS === null) return;
    fs.mkdirSync(SCREENSHOTS, { recursive: true });
    await app.page.screenshot({ path: path.join(SCREENSHOTS, `${name}.png`) });
  };

  beforeAll(async () => {
    app.consoleErrors = [];
    app.home = makeTempDir("web");
    app.folder = path.join(app.home, "docs");
    writeSampleDocuments(app.folder);
    fs.copyFileSync(path.join(SHARED, "corpus", "pdf.js", "pdfs", "tracemonkey.pdf"), path.join(app.folder, "paper.pdf"));
    // A file that cannot be read: the tree shows it as failed, and the run goes on.
    fs.writeFileSync(path.join(app.folder, "broken.pdf"), "This is not a PDF.");
    options.prepare?.(app.folder);
    // The hub serves the fixture embedding model and a small fake GGUF where the local Llama lives.
    const ggufDir = path.join(app.home, "fake-gguf");
    fs.mkdirSync(ggufDir);
    const gguf = Buffer.alloc(200_000, 7);
    gguf.write("GGUF", 0, "latin1");
    gguf.writeUInt32LE(3, 4);
    fs.writeFileSync(path.join(ggufDir, LOCAL_MODEL.file), gguf);
    [app.openai, app.hub, app.ollama] = await Promise.all([startOpenAiServer(), startHubServer({ repos: { [TINY_BERT_REPO]: TINY_BERT_DIR, [LOCAL_MODEL.repoId]: ggufDir } }), startOllamaServer()]);
    for (const [key, value] of [["generation.provider", "openai"], ["embedding.model", TINY_BERT_REPO], ["embedding.dtype", "fp32"], ...(options.settings ?? [])]) {
      expect((await runCliInProcess(["config", "set", key as string, value as string], { home: app.home })).code).toBe(0);
    }
    // broken.pdf fails to parse, so add ends with the "some files failed" code; the rest is indexed.
    if (options.addFolder) expect((await runCliInProcess(["add", app.folder], { home: app.home })).code).toBe(4);
    app.server = await startServe(app.home, { env: { OPENAI_BASE_URL: `${app.openai.url}/v1`, OPENAI_API_KEY: "sk-openai-test", CHUNKPAD_KEYCHAIN: "off", CHUNKPAD_HUB_URL: app.hub.url, OLLAMA_HOST: app.ollama.url } });
    app.info = app.server.info;
    app.browser = await chromium.launch({ executablePath: "/usr/bin/chromium", args: CHROMIUM_FLAGS });
    // bypassCSP lets the test inject axe-core; the CSP itself is checked under the real CSP. The
    // page prefers reduced motion, as a user may: the app's only animations are decorative CSS
    // (app.css), and drawing their frames cost chromium ≈ 2.5 of its ≈ 12 CPU-s in a file.
    app.page = await app.browser.newPage({ viewport: { width: 1280, height: 800 }, bypassCSP: true, reducedMotion: "reduce" });
    app.page.on("console", (message) => {
      if (message.type() === "error" && !message.text().startsWith("Failed to load resource")) app.consoleErrors.push(message.text());
    });
    app.page.on("pageerror", (error) => app.consoleErrors.push(error.message));
    app.messagesShown = [];
    await app.page.exposeFunction("chunkpadMessageShown", (text: string) => app.messagesShown.push(text));
    await app.page.addInitScript(() => {
      const shown = new WeakMap<Element, string>();
      const report = () => {
        for (const element of Array.from(document.querySelectorAll('[role="alert"], [role="status"], [role="note"], .notice'))) {
          const text = element.textContent ?? "";
          if (text !== "" && shown.get(element) !== text) {
            shown.set(element, text);
            (window as unknown as { chunkpadMessageShown: (text: string) => void }).chunkpadMessageShown(text);
          }
        }
      };
      new MutationObserver(report).observe(document, { subtree: true, childList: true, characterData: true });
    });
    await openApp();
  });
  afterAll(async () => {
    await app.browser?.close();
    await app.server?.stop();
    await Promise.all([app.openai?.close(), app.hub?.close(), app.ollama?.close()]);
    if (app.home) fs.rmSync(app.home, { recursive: true, force: true });
  });

  return { app, axeProblems, openApp, goTo, settingsSection, inspector, searchFor, folderButton, shoot };
}
