import { describe, expect, it } from "vitest";
import { chooseOpener } from "./app-window.js";

const PAGE = "file:///home/me/.local/share/chunkpad/open-app.html";

describe("chooseOpener", () => {
  it("opens an app window in a Chromium-family browser found on PATH", () => {
    const installed = new Set(["/usr/bin/chromium"]);
    expect(chooseOpener(PAGE, { env: { PATH: "/usr/local/bin:/usr/bin" }, platform: "linux", isExecutable: (file) => installed.has(file) })).toEqual({ command: "/usr/bin/chromium", args: [`--app=${PAGE}`], kind: "app-window" });
  });

  it("prefers $BROWSER, and falls back to the default browser when no app-capable browser is installed", () => {
    const everything = () => true;
    expect(chooseOpener(PAGE, { env: { BROWSER: "firefox", PATH: "/usr/bin" }, platform: "linux", isExecutable: everything })).toEqual({ command: "firefox", args: [PAGE], kind: "browser-variable" });
    expect(chooseOpener(PAGE, { env: { PATH: "/usr/bin" }, platform: "linux", isExecutable: () => false })).toEqual({ command: "xdg-open", args: [PAGE], kind: "default-browser" });
    expect(chooseOpener(PAGE, { env: {}, platform: "win32", isExecutable: everything }).kind).toBe("default-browser");
  });

  it("finds Chrome in /Applications on macOS", () => {
    const opener = chooseOpener(PAGE, { env: {}, platform: "darwin", isExecutable: (file) => file.includes("Google Chrome") });
    expect(opener).toMatchObject({ kind: "app-window", args: [`--app=${PAGE}`] });
  });

  it("never puts anything but the page on the command line", () => {
    for (const platform of ["linux", "darwin", "win32"] as const) {
      const opener = chooseOpener(PAGE, { env: { PATH: "/usr/bin" }, platform, isExecutable: () => true });
      expect(opener.args.join(" ")).not.toMatch(/token|127\.0\.0\.1/);
    }
  });
});
