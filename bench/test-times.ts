/**
 * Where `npm test` spends its time: runs its steps one by one (by default the two that `npm test`
 * runs side by side: `static`, the type checks with lint; then `tests`, one vitest run of the unit,
 * corpus and integration projects), or the steps named, and prints for each its wall
 * time and the CPU time of everything it started, then for a vitest run the slowest test files
 * (vitest's JSON report: a file's own duration) and how long a core had no file to run (the
 * drained tail). On a busy machine wall time means little; CPU time and the per-file list show
 * where the time goes.
 * `npx tsx bench/test-times.ts [--steps static,tests] [--top 10]`
 * Steps: `static` and `tests`, the two parts of package.json's `test` script; any npm script (`typecheck:node`, `typecheck:web`, `lint`, `build`, `typecheck`);
 * vitest projects joined by `+` (`unit+corpus`, `integration`, `integration-postgres`, `package`).
 * Targets (issue 24): `npm test` ≤ 5 min and `.ci/run` ≤ 8 min on 2 idle cores.
 * Install time and node_modules size: `npx tsx bench/install.ts`.
 */
import { spawnSync } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";

const repo = path.resolve(import.meta.dirname, "..");
const option = (name: string): string | undefined => {
  const index = process.argv.indexOf(name);
  return index === -1 ? undefined : process.argv[index + 1];
};
const steps = (option("--steps") ?? "static,tests").split(",");
const VITEST_PROJECTS = new Set(["unit", "corpus", "integration", "integration-postgres", "package"]);
// `npm test` is "node scripts/side-by-side.mjs <checks> --live test:vitest" and `test:vitest` is
// "<build if stale> && vitest run --project …" (decision 082): here the checks side by side, then
// the vitest run, each measured alone, as written there.
const scripts = (JSON.parse(fs.readFileSync(path.join(repo, "package.json"), "utf8")) as { scripts: Record<string, string> }).scripts;
const npmTest = (scripts.test ?? "").split(" ");
const staticCommand = npmTest.slice(0, npmTest.includes("--live") ? npmTest.indexOf("--live") : npmTest.length);
const testsCommand = (scripts["test:vitest"] ?? "").split(" && ").at(-1)?.split(" ") ?? [];
const top = Number(option("--top") ?? 10);

/** CPU seconds used so far by this process's finished children (user + system, /proc/self/stat). */
function childrenCpuSeconds(): number {
  const fields = fs.readFileSync("/proc/self/stat", "utf8").split(") ")[1]?.split(" ") ?? [];
  // After "pid (comm) ", fields[0] is state (field 3); cutime and cstime are fields 16 and 17.
  return (Number(fields[13]) + Number(fields[14])) / 100;
}

interface FileReport {
  name: string;
  startTime: number;
  endTime: number;
  assertionResults: unknown[];
}

/**
 * Seconds during which fewer files ran than there are workers (files' own start and end times),
 * in all and after the last file started: what one run of several projects saves over several runs.
 */
function idleWorkerSeconds(files: FileReport[], workers: number): { total: number; tail: number } {
  const events = files.flatMap((file) => [{ at: file.startTime, change: 1 }, { at: file.endTime, change: -1 }]).sort((a, b) => a.at - b.at || a.change - b.change);
  const lastStart = Math.max(...files.map((file) => file.startTime));
  let running = 0;
  let previous = events[0]?.at ?? 0;
  let total = 0;
  let tail = 0;
  for (const event of events) {
    const idle = running < workers ? (event.at - previous) / 1000 : 0;
    total += idle;
    if (previous >= lastStart) tail += idle;
    running += event.change;
    previous = event.at;
  }
  return { total, tail };
}

function run(label: string, command: string, args: string[], report?: string, showOutput = false): { wall: number; cpu: number } {
  const cpuBefore = childrenCpuSeconds();
  const started = performance.now();
  const result = spawnSync(command, args, { cwd: repo, stdio: ["ignore", showOutput ? "inherit" : "ignore", "inherit"], env: { ...process.env, CI: "true" } });
  const wall = (performance.now() - started) / 1000;
  const cpu = childrenCpuSeconds() - cpuBefore;
  console.log(`${label}: ${wall.toFixed(1)} s wall, ${cpu.toFixed(1)} s CPU${result.status === 0 ? "" : ` (exit ${result.status})`}`);
  if (report && fs.existsSync(report)) {
    const files = (JSON.parse(fs.readFileSync(report, "utf8")) as { testResults: FileReport[] }).testResults;
    const durations = files.map((file) => ({ name: path.relative(repo, file.name), seconds: (file.endTime - file.startTime) / 1000, tests: file.assertionResults.length }));
    const sum = durations.reduce((total, file) => total + file.seconds, 0);
    console.log(`  ${files.length} files, ${durations.reduce((total, file) => total + file.tests, 0)} tests; files' own durations add up to ${sum.toFixed(1)} s`);
    for (const file of durations.sort((a, b) => b.seconds - a.seconds).slice(0, top)) {
      console.log(`  ${file.seconds.toFixed(1).padStart(7)} s  ${(((file.seconds / sum) * 100).toFixed(0) + " %").padStart(5)}  ${file.name} (${file.tests})`);
    }
    const idle = idleWorkerSeconds(files, os.availableParallelism());
    console.log(`  fewer files ran tests than there are cores for ${idle.total.toFixed(1)} s (a file loading its modules counts as not running), ${idle.tail.toFixed(1)} s of it after the last file started`);
  }
  return { wall, cpu };
}

const work = fs.mkdtempSync(path.join(os.tmpdir(), "chunkpad-test-times-"));
try {
  console.log(`load average before: ${os.loadavg().map((load) => load.toFixed(1)).join(" ")} on ${os.availableParallelism()} cores`);
  let wall = 0;
  let cpu = 0;
  for (const step of steps) {
    const report = path.join(work, `${step}.json`);
    const vitest = (projects: string[]): string[] => ["vitest", "run", ...projects.flatMap((name) => ["--project", name]), "--reporter=json", `--outputFile=${report}`];
    const figures =
      step === "static"
        ? run(`static (${staticCommand.slice(2).join(" ∥ ")})`, staticCommand[0] ?? "node", staticCommand.slice(1), undefined, true)
        : step === "tests"
          ? run(`tests (${testsCommand.join(" ")})`, "npx", [...testsCommand, "--reporter=json", `--outputFile=${report}`], report)
          : step.split("+").every((name) => VITEST_PROJECTS.has(name))
            ? run(step, "npx", vitest(step.split("+")), report)
            : run(step, "npm", ["run", step]);
    wall += figures.wall;
    cpu += figures.cpu;
  }
  console.log(`all steps: ${wall.toFixed(1)} s wall, ${cpu.toFixed(1)} s CPU; load average after: ${os.loadavg().map((load) => load.toFixed(1)).join(" ")}`);
} finally {
  fs.rmSync(work, { recursive: true, force: true });
}
