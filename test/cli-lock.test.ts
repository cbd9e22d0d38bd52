import { spawn, type ChildProcess } from "node:child_process";
import fs from "node:fs";
import path from "node:path";
import { pathToFileURL } from "node:url";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { ProcessReport } from "../src/index.js";
import { BIN, REPO_ROOT, cliEnv, json, makeTempDir, runCli, writeFile, writeSampleDocuments, type CliResult } from "./helpers/cli.js";

// Another Chunkpad busy with a folder, as a real process: it takes the folder's lock through the
// built library, says "held", and lets go when the test writes a line to it (or is killed).
const HOLDER = `
const { createFolderLocks } = await import(${JSON.stringify(pathToFileURL(path.join(REPO_ROOT, "dist", "index.js")).href)});
const [directory, folder] = process.argv.slice(1);
const release = await createFolderLocks({ directory, command: "chunkpad" }).acquire([folder], { purpose: "processing" });
process.stdout.write("held\\n");
process.stdin.once("data", () => { release(); process.stdout.write("released\\n"); });
`;

interface Running {
  child: ChildProcess;
  stdout: () => string;
  stderr: () => string;
  /** Resolves once the output so far contains `text`. */
  waitFor(stream: "stdout" | "stderr", text: string): Promise<void>;
  done: Promise<CliResult>;
}

function start(command: string, args: string[], home: string): Running {
  const child = spawn(command, args, { cwd: REPO_ROOT, env: cliEnv(home), stdio: ["pipe", "pipe", "pipe"] });
  const output = { stdout: "", stderr: "" };
  const watchers: Array<() => void> = [];
  for (const stream of ["stdout", "stderr"] as const) {
    child[stream]!.on("data", (data: Buffer) => {
      output[stream] += data.toString();
      for (const watcher of [...watchers]) watcher();
    });
  }
  const done = new Promise<CliResult>((resolve, reject) => {
    child.on("error", reject);
    child.on("close", (code) => resolve({ code: code ?? -1, stdout: output.stdout, stderr: output.stderr }));
  });
  return {
    child,
    stdout: () => output.stdout,
    stderr: () => output.stderr,
    waitFor: (stream, text) =>
      new Promise((resolve, reject) => {
        const check = () => {
          if (!output[stream].includes(text)) return;
          watchers.splice(watchers.indexOf(check), 1);
          resolve();
        };
        watchers.push(check);
        check();
        void done.then(() => (output[stream].includes(text) ? resolve() : reject(new Error(`exited without "${text}" on ${stream}:\n${output.stdout}\n${output.stderr}`))));
      }),
    done,
  };
}

let home: string;
let folder: string;
let lockDirectory: string;

beforeAll(async () => {
  home = makeTempDir("lock-home");
  folder = makeTempDir("lock-docs");
  writeSampleDocuments(folder);
  lockDirectory = path.join(home, "data", "locks");
  const added = await runCli(["add", folder], { home });
  expect(added.code, added.stderr).toBe(0);
});
afterAll(() => {
  fs.rmSync(home, { recursive: true, force: true });
  fs.rmSync(folder, { recursive: true, force: true });
});

async function holdLock(): Promise<Running> {
  const holder = start(process.execPath, ["--input-type=module", "-e", HOLDER, lockDirectory, folder], home);
  await holder.waitFor("stdout", "held");
  return holder;
}

describe("one writer per folder across processes", () => {
  it("fails at once with --no-wait, naming the other process, while searches go on", async () => {
    const holder = await holdLock();
    try {
      const busy = await runCli(["add", folder, "--no-wait"], { home });
      expect(busy.code).toBe(1);
      expect(busy.stderr).toContain(`another Chunkpad (pid ${holder.child.pid}, chunkpad processing, since`);
      expect(busy.stderr).toContain(`is working on ${folder}. Run this again when it has finished, or without --no-wait to wait for it.`);

      const embed = await runCli(["embed", "--no-wait"], { home });
      expect(embed.code).toBe(1);
      expect(embed.stderr).toContain(`another Chunkpad (pid ${holder.child.pid}, chunkpad processing, since`);

      const remove = await runCli(["remove", folder, "--no-wait"], { home });
      expect(remove.code).toBe(1);
      expect(remove.stderr).toContain(`another Chunkpad (pid ${holder.child.pid}, chunkpad processing, since`);

      // Reads never take the lock: this returns while the holder still has it.
      const search = await runCli(["search", "heron", "--mode", "keyword", "--json"], { home });
      expect(search.code, search.stderr).toBe(0);
      expect(JSON.stringify(json(search))).toContain("heron");
      expect(holder.stdout()).not.toContain("released");
    } finally {
      holder.child.stdin!.end("go\n");
      await holder.done;
    }
  });

  it("two adds of the same folder wait for the holder, then both finish, one at a time", async () => {
    writeFile(folder, "late.md", "# Late\n\nA kingfisher arrived after the first run.\n");
    const holder = await holdLock();
    const first = start(process.execPath, [BIN, "process", folder, "--json"], home);
    const second = start(process.execPath, [BIN, "process", folder, "--json"], home);
    await first.waitFor("stderr", `Waiting for another Chunkpad (pid ${holder.child.pid}, chunkpad processing`);
    await second.waitFor("stderr", `Waiting for another Chunkpad (pid ${holder.child.pid}, chunkpad processing`);
    expect(holder.stdout()).not.toContain("released");
    holder.child.stdin!.end("go\n");
    const [one, two] = await Promise.all([first.done, second.done]);
    expect(one.code, one.stderr).toBe(0);
    expect(two.code, two.stderr).toBe(0);
    // Whichever ran second found the other's work done: the new file was processed exactly once.
    const reports = [json<ProcessReport>(one), json<ProcessReport>(two)];
    for (const report of reports) expect(report.failed).toEqual([]);
    expect(reports.flatMap((report) => report.processed.map((file) => file.path))).toEqual(["late.md"]);
    expect(reports.filter((report) => report.unchanged.includes("late.md"))).toHaveLength(1);
    expect(fs.existsSync(lockDirectory)).toBe(false);
    const search = await runCli(["search", "kingfisher", "--mode", "keyword", "--json"], { home });
    expect(JSON.stringify(json(search))).toContain("kingfisher");
  });

  it("takes over the lock a killed process left behind", async () => {
    const holder = await holdLock();
    holder.child.kill("SIGKILL");
    await holder.done;
    expect(fs.readdirSync(lockDirectory)).toHaveLength(1);
    const after = await runCli(["process", folder, "--no-wait"], { home });
    expect(after.code, after.stderr).toBe(0);
    expect(fs.existsSync(lockDirectory)).toBe(false);
  });
});
