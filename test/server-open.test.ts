import fs from "node:fs";
import path from "node:path";
import { chromium, type Browser } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { makeTempDir, runCli, writeSampleDocuments } from "./helpers/cli.js";
import { startServe, type RunningServer } from "./helpers/serve.js";

/** Runs in the page: what the app's own fetch gets from the API. */
const folderPaths = async () => ((await (await fetch("/api/folders")).json()) as { folders: Array<{ rootPath: string }> }).folders.map((folder) => folder.rootPath);
const CHROMIUM_FLAGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking", "--disable-component-update", "--disable-sync", "--no-first-run"];

/**
 * `chunkpad serve --open` in a real browser: the opener ($BROWSER here, a script that notes what
 * it was asked to open) never gets the token on its command line, where any local account could
 * read it; the page it opens lets the browser in; a second `serve --open` opens the running app.
 */
describe("chunkpad serve --open", () => {
  let home: string;
  let opened: string;
  let server: RunningServer;
  let browser: Browser;
  const env = () => ({ BROWSER: path.join(home, "browser.sh"), CHUNKPAD_KEYCHAIN: "off" });
  const openedTargets = () => (fs.existsSync(opened) ? fs.readFileSync(opened, "utf8").trim().split("\n") : []);

  beforeAll(async () => {
    home = makeTempDir("open");
    opened = path.join(home, "opened.txt");
    fs.writeFileSync(path.join(home, "browser.sh"), `#!/bin/sh\nprintf '%s\\n' "$*" >> '${opened}'\n`, { mode: 0o755 });
    writeSampleDocuments(path.join(home, "docs"));
    expect((await runCli(["add", path.join(home, "docs")], { home })).code).toBe(0);
    server = await startServe(home, { args: ["--open"], env: env() });
    browser = await chromium.launch({ executablePath: "/usr/bin/chromium", args: CHROMIUM_FLAGS });
  });
  afterAll(async () => {
    await browser?.close();
    await server.stop();
    fs.rmSync(home, { recursive: true, force: true });
  });

  it("opens the app in an app window of a Chromium-family browser when one is installed, the token still off its command line", async () => {
    const other = makeTempDir("open-app-window");
    try {
      const bin = path.join(other, "bin");
      const called = path.join(other, "called.txt");
      fs.mkdirSync(bin);
      fs.writeFileSync(path.join(bin, "chromium"), `#!/bin/sh\nprintf '%s\\n' "$*" >> '${called}'\n`, { mode: 0o755 });
      const running = await startServe(other, { args: ["--open"], env: { PATH: `${bin}${path.delimiter}${process.env.PATH ?? ""}` } });
      try {
        await expect.poll(() => (fs.existsSync(called) ? fs.readFileSync(called, "utf8").trim() : "")).toMatch(/^--app=file:\/\/.*open-app\.html$/);
        expect(fs.readFileSync(called, "utf8")).not.toContain(running.info.token);
      } finally {
        await running.stop();
      }
    } finally {
      fs.rmSync(other, { recursive: true, force: true });
    }
  });

  it("removes the page it opened (it holds the token) when it stops", async () => {
    const other = makeTempDir("open-stop");
    try {
      const running = await startServe(other, { args: ["--open"], env: { BROWSER: "true" } });
      expect(fs.existsSync(path.join(other, "data", "open-app.html"))).toBe(true);
      await running.stop();
      expect([running.child.exitCode, running.child.signalCode]).toEqual([0, null]);
      expect(fs.readdirSync(path.join(other, "data")).filter((name) => name === "open-app.html" || name === "server.json")).toEqual([]);
    } finally {
      fs.rmSync(other, { recursive: true, force: true });
    }
  });

  it("opens a private page that lets the browser in, with no token on the opener's command line", async () => {
    await expect.poll(() => openedTargets().length).toBe(1);
    const [target] = openedTargets() as [string];
    expect(target).not.toContain(server.info.token);
    expect(target).toMatch(/^file:\/\//);
    const file = new URL(target).pathname;
    expect(fs.statSync(file).mode & 0o077).toBe(0);

    const page = await browser.newPage();
    await page.goto(target);
    await page.waitForURL(`${server.info.url}/`);
    // The page's own same-origin requests carry the cookie (the app never holds a token).
    await expect.poll(() => page.evaluate(folderPaths).catch(() => null)).toEqual([fs.realpathSync(path.join(home, "docs"))]);
    expect(await page.content()).not.toContain(server.info.token);
    await page.close();
  });

  it("a browser that has not been let in sees how to open the app, and nothing more", async () => {
    const page = await (await browser.newContext()).newPage();
    const answer = await page.goto(server.info.url);
    expect(answer?.status()).toBe(401);
    expect(await page.getByRole("heading").textContent()).toBe("Chunkpad is running here");
    expect(await page.textContent("body")).toContain("chunkpad serve --open");
    expect(await page.content()).not.toContain(server.info.token);
    await page.close();
  });

  it("opens the running server's app when serve --open is run again", async () => {
    const again = await runCli(["serve", "--open", "--port", "0"], { home, env: env() });
    expect(again.code, again.stderr).toBe(0);
    expect(again.stderr).toContain(`already serving this data folder at ${server.info.url}`);
    await expect.poll(() => openedTargets().length).toBe(2);
    const target = openedTargets()[1] as string;
    expect(target).not.toContain(server.info.token);
    const page = await browser.newPage();
    await page.goto(target);
    await page.waitForURL(`${server.info.url}/`);
    await expect.poll(() => page.evaluate(folderPaths).catch(() => null)).toEqual([fs.realpathSync(path.join(home, "docs"))]);
    await page.close();
  });
});
