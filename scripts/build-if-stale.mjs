/**
 * Builds the CLI and the web app (`npm run build`) unless dist/ was built after the last change
 * to anything it is built from. The integration and package tests run what ships (dist/); in CI
 * `npm ci` has just built it (prepare), so building again before each of them only cost time.
 */
import { spawnSync } from "node:child_process";
import console from "node:console";
import fs from "node:fs";
import path from "node:path";
import process from "node:process";

const root = path.resolve(import.meta.dirname, "..");
const BUILT = ["dist/cli/main.js", "dist/web/index.html"];
const SOURCES = ["src", "web/src", "web/public", "web/index.html", "web/vite.config.ts", "web/tsconfig.json", "bin", "package.json", "tsconfig.json", "tsconfig.build.json"];

/** Newest modification time (ms) of the file, or of the files under the folder (tests excluded). */
function newest(target) {
  if (!fs.existsSync(target)) return 0;
  const stat = fs.statSync(target);
  if (stat.isFile()) return stat.mtimeMs;
  let latest = 0;
  for (const entry of fs.readdirSync(target, { withFileTypes: true, recursive: true })) {
    if (entry.isFile() && !entry.name.endsWith(".test.ts")) latest = Math.max(latest, fs.statSync(path.join(entry.parentPath, entry.name)).mtimeMs);
  }
  return latest;
}

const built = BUILT.map((file) => path.join(root, file));
const fresh = built.every((file) => fs.existsSync(file)) && Math.max(...SOURCES.map((name) => newest(path.join(root, name)))) < Math.min(...built.map((file) => fs.statSync(file).mtimeMs));
if (fresh) {
  console.log("dist/ is newer than every source: not building again");
} else {
  const result = spawnSync("npm", ["run", "build"], { cwd: root, stdio: "inherit" });
  process.exit(result.status ?? 1);
}
