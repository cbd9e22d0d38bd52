import { execFile } from "node:child_process";
import fs from "node:fs";
import path from "node:path";
import { promisify } from "node:util";
import { afterAll, describe, expect, it } from "vitest";
import { REPO_ROOT, makeTempDir } from "./helpers/cli.js";

/**
 * scripts/side-by-side.mjs, which `npm test` runs its checks and its test run with: the test run
 * prints as it goes, the checks' outputs follow it, and a check that fails stops the test run at
 * once with the check's exit code (decision 082).
 */

const run = promisify(execFile);
const SCRIPT = path.join(REPO_ROOT, "scripts", "side-by-side.mjs");
const folders: string[] = [];

/** A package whose npm scripts are these Node programs (each run as `node <file>`). */
function project(scripts: Record<string, string>): string {
  const folder = makeTempDir("side-by-side");
  folders.push(folder);
  const entries: Record<string, string> = {};
  for (const [name, source] of Object.entries(scripts)) {
    const file = `${name.replace(/\W/g, "-")}.cjs`;
    fs.writeFileSync(path.join(folder, file), source);
    entries[name] = `node ${file}`;
  }
  fs.writeFileSync(path.join(folder, "package.json"), JSON.stringify({ name: "side-by-side-test", private: true, scripts: entries }));
  return folder;
}

async function sideBySide(folder: string, args: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  try {
    const { stdout, stderr } = await run(process.execPath, [SCRIPT, ...args], { cwd: folder });
    return { code: 0, stdout, stderr };
  } catch (error) {
    const failed = error as { code: number; stdout: string; stderr: string };
    return { code: failed.code, stdout: failed.stdout, stderr: failed.stderr };
  }
}

afterAll(() => {
  for (const folder of folders) fs.rmSync(folder, { recursive: true, force: true });
});

describe("scripts/side-by-side.mjs", () => {
  it("prints a live script as it runs and the held outputs after it, each held one whole", async () => {
    // The live script finishes only after the held one has (it waits for the held one's file).
    const folder = project({
      check: `console.log("check line 1"); console.log("check line 2"); require("fs").writeFileSync("check-done", "");`,
      tests: `console.log("tests started"); const fs = require("fs"); const wait = () => fs.existsSync("check-done") ? console.log("tests ended") : setTimeout(wait, 10); wait();`,
    });
    const result = await sideBySide(folder, ["check", "--live", "tests"]);
    expect(result.code, result.stderr).toBe(0);
    const { stdout } = result;
    // The check ended first, yet its output follows the live script's, whole.
    expect(stdout.indexOf("tests started")).toBeLessThan(stdout.indexOf("tests ended"));
    expect(stdout.indexOf("tests ended")).toBeLessThan(stdout.indexOf("check line 1"));
    expect(stdout).toMatch(/check line 1\ncheck line 2\n✓ check \([\d.]+ s\)\n/);
    expect(stdout).toMatch(/✓ tests \([\d.]+ s\)\n/);
  });

  it("stops the live script when a held one fails, and exits with the held one's code", async () => {
    const folder = project({
      // The check fails once the live script has started (it waits for its pid file).
      check: `const fs = require("fs"); const wait = () => fs.existsSync("tests.pid") ? (console.log("type error in src/x.ts"), process.exit(3)) : setTimeout(wait, 10); wait();`,
      tests: `require("fs").writeFileSync("tests.pid", String(process.pid)); console.log("tests started"); setInterval(() => {}, 1000);`,
    });
    const result = await sideBySide(folder, ["check", "--live", "tests"]);
    expect(result.code).toBe(3);
    expect(result.stdout).toContain("type error in src/x.ts");
    expect(result.stderr).toMatch(/✗ check failed \(exit 3\) after [\d.]+ s; stopped tests/);
    // The live script was started and is gone (stopped with its process group), not left running.
    const pid = Number(fs.readFileSync(path.join(folder, "tests.pid"), "utf8"));
    await expect.poll(() => {
      try {
        process.kill(pid, 0);
        return "running";
      } catch {
        return "gone";
      }
    }).toBe("gone");
  });
});
