import { spawn } from "node:child_process";
import path from "node:path";
import { expect, it } from "vitest";
import { REPO_ROOT } from "./helpers/cli.js";

it("says at once which shared test data is missing and where to put it, instead of failing test by test", async () => {
  // A child vitest on one small test file, told the shared data lives where nothing is.
  const env = Object.fromEntries(Object.entries(process.env).filter(([key]) => !key.startsWith("VITEST")));
  const result = await new Promise<{ code: number | null; output: string }>((resolve, reject) => {
    const child = spawn(process.execPath, [path.join(REPO_ROOT, "node_modules", "vitest", "vitest.mjs"), "run", "--project", "unit", "src/core/network.test.ts"], {
      cwd: REPO_ROOT,
      env: { ...env, CHUNKPAD_SHARED_DIR: path.join(REPO_ROOT, "no-such-shared-folder"), NO_COLOR: "1" },
    });
    let output = "";
    child.stdout.on("data", (data: Buffer) => (output += data.toString()));
    child.stderr.on("data", (data: Buffer) => (output += data.toString()));
    child.on("error", reject);
    child.on("close", (code) => resolve({ code, output }));
  });
  expect(result.code).not.toBe(0);
  expect(result.output).toContain("The tests need Chunkpad's shared test data at");
  expect(result.output).toContain("missing: corpus/, ir/, models/");
  expect(result.output).toContain("beside this clone, as ../shared");
});
