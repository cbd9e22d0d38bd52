/**
 * Where `npm test` spends its time: runs the steps of `npm test` one by one (type check, lint,
 * the unit+corpus vitest run, the build, the integration project), or only the vitest projects
 * named, and prints for each its wall time and the CPU time of everything it started, then the
 * slowest test files (vitest's JSON report: a file's own duration). On a busy machine wall time
 * means little; CPU time and the per-file list show where the time goes.
 * `npx tsx bench/test-times.ts [--steps typecheck,lint,unit+corpus,build,integration,package] [--top 10]`
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
const steps = (option("--steps") ?? "typecheck,lint,unit+corpus,build,integration").split(",");
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

function run(label: string, command: string, args: string[], report?: string): { wall: number; cpu: number } {
  const cpuBefore = childrenCpuSeconds();
  const started = performance.now();
  const result = spawnSync(command, args, { cwd: repo, stdio: ["ignore", "ignore", "inherit"], env: { ...process.env, CI: "true" } });
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
      step === "typecheck"
        ? run(step, "npm", ["run", "typecheck"])
        : step === "lint"
          ? run(step, "npm", ["run", "lint"])
          : step === "build"
            ? run(step, "npm", ["run", "build"])
            : run(step, "npx", vitest(step.split("+")), report);
    wall += figures.wall;
    cpu += figures.cpu;
  }
  console.log(`all steps: ${wall.toFixed(1)} s wall, ${cpu.toFixed(1)} s CPU; load average after: ${os.loadavg().map((load) => load.toFixed(1)).join(" ")}`);
} finally {
  fs.rmSync(work, { recursive: true, force: true });
}
