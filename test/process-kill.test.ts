import { spawn } from "node:child_process";
import path from "node:path";
import { pathToFileURL } from "node:url";
import { describe, expect, it } from "vitest";
import { cliEnv, json, makeTempDir, REPO_ROOT, writeFile } from "./helpers/cli.js";
import { runCliInProcess } from "./helpers/cli-in-process.js";
import { openHomeStore } from "./helpers/store.js";

/**
 * Step 1 commits many documents at once (decision 038): a file is reported done only once its
 * writes are committed, so a run killed outright (SIGKILL: no cleanup at all) right after a
 * progress report has lost none of the files it reported, and the next run finishes the rest.
 */
describe("processing a folder killed with SIGKILL", () => {
  it("keeps every file it reported done, and the next run finishes the folder", async () => {
    const home = makeTempDir("kill-home");
    const folder = makeTempDir("kill-docs");
    const total = 240;
    for (let file = 0; file < total; file++) {
      writeFile(folder, `notes/${file % 12}/note-${file}.md`, `# Note ${file}\n\nThe kestrel ${file} hovered over the field and watched the grass for voles.\n\n- one\n- two\n`);
    }
    // The public API in a child process (the built dist), printing each progress report as it comes.
    const script = `
      const { openChunkpad } = await import(${JSON.stringify(pathToFileURL(path.join(REPO_ROOT, "dist", "index.js")).href)});
      const chunkpad = openChunkpad({ env: process.env });
      await chunkpad.processFolder(${JSON.stringify(folder)}, { onProgress: (event) => { if (event.phase === "process") process.stdout.write("done " + event.done + "\\n"); } });
      process.stdout.write("finished\\n");
    `;
    const scriptFile = writeFile(home, "run.mjs", script);
    const child = spawn(process.execPath, [scriptFile], { cwd: REPO_ROOT, env: cliEnv(home), stdio: ["ignore", "pipe", "pipe"] });
    let stdout = "";
    let stderr = "";
    let reported = 0;
    child.stderr.on("data", (data: Buffer) => (stderr += data.toString()));
    const exit = new Promise<NodeJS.Signals | null>((resolve) => child.on("close", (_code, signal) => resolve(signal)));
    child.stdout.on("data", (data: Buffer) => {
      stdout += data.toString();
      reported = Math.max(0, ...[...stdout.matchAll(/done (\d+)/g)].map((match) => Number(match[1])));
      if (reported >= 40) child.kill("SIGKILL");
    });
    expect(await exit, `${stdout.slice(-500)}\n${stderr}`).toBe("SIGKILL");
    expect(reported).toBeGreaterThanOrEqual(40);
    expect(reported).toBeLessThan(total);

    const store = await openHomeStore(home);
    try {
      const [added] = await store.listFolders();
      const sources = await store.listSources(added?.id ?? "");
      const documents = await store.listDocuments(added?.id ?? "");
      expect(sources.filter((source) => source.status === "processed").length).toBeGreaterThanOrEqual(reported);
      expect(documents.length).toBeGreaterThanOrEqual(reported);
      expect(await store.integrityCheck()).toEqual({ ok: true, problems: [] });
    } finally {
      await store.close();
    }

    const again = await runCliInProcess(["add", folder, "--json"], { home });
    expect(again.code, again.stderr).toBe(0);
    const report = json<{ processed: unknown[]; unchanged: unknown[]; failed: unknown[] }>(again);
    expect(report.failed).toEqual([]);
    expect(report.processed.length + report.unchanged.length).toBe(total);
    expect(report.unchanged.length).toBeGreaterThanOrEqual(reported);
  });
});
