import fs from "node:fs";
import path from "node:path";

/**
 * How `serve --open` opens the app: in an app window of a Chromium-family browser when one is
 * installed (`--app=`: no tabs, no address bar, its own taskbar icon — the desktop app), otherwise
 * the system's default browser. $BROWSER, when set, always wins. The target is the 0600 page that
 * forwards to the launch URL, never the URL with its token (command lines are readable by all).
 */

export interface Opener {
  command: string;
  args: string[];
  /** "app-window" when a Chromium-family browser opens it as an app. */
  kind: "browser-variable" | "app-window" | "default-browser";
}

/** Chromium-family browsers that take --app, by what they are called on PATH. */
const APP_BROWSERS_ON_PATH = ["chromium", "chromium-browser", "google-chrome", "google-chrome-stable", "microsoft-edge", "microsoft-edge-stable", "brave-browser"];
const APP_BROWSERS_MAC = [
  "/Applications/Google Chrome.app/Contents/MacOS/Google Chrome",
  "/Applications/Microsoft Edge.app/Contents/MacOS/Microsoft Edge",
  "/Applications/Chromium.app/Contents/MacOS/Chromium",
  "/Applications/Brave Browser.app/Contents/MacOS/Brave Browser",
];

export interface OpenerEnvironment {
  env: NodeJS.ProcessEnv;
  platform: NodeJS.Platform;
  /** Whether an executable file is there (injected by tests). */
  isExecutable?: (file: string) => boolean;
}

export function chooseOpener(target: string, { env, platform, isExecutable = executable }: OpenerEnvironment): Opener {
  const chosen = env.BROWSER;
  if (chosen !== undefined && chosen !== "") return { command: chosen, args: [target], kind: "browser-variable" };
  const appBrowser = findAppBrowser(env, platform, isExecutable);
  if (appBrowser !== undefined) return { command: appBrowser, args: [`--app=${target}`], kind: "app-window" };
  if (platform === "darwin") return { command: "open", args: [target], kind: "default-browser" };
  if (platform === "win32") return { command: "cmd", args: ["/c", "start", "", target], kind: "default-browser" };
  return { command: "xdg-open", args: [target], kind: "default-browser" };
}

function findAppBrowser(env: NodeJS.ProcessEnv, platform: NodeJS.Platform, isExecutable: (file: string) => boolean): string | undefined {
  if (platform === "darwin") return APP_BROWSERS_MAC.find(isExecutable);
  // Windows: its browsers are not on PATH; the default browser opens the page.
  if (platform === "win32") return undefined;
  const directories = (env.PATH ?? "").split(path.delimiter).filter((directory) => directory !== "");
  for (const name of APP_BROWSERS_ON_PATH) {
    for (const directory of directories) {
      const candidate = path.join(directory, name);
      if (isExecutable(candidate)) return candidate;
    }
  }
  return undefined;
}

function executable(file: string): boolean {
  try {
    fs.accessSync(file, fs.constants.X_OK);
    return fs.statSync(file).isFile();
  } catch {
    return false;
  }
}
