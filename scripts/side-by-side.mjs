/**
 * Runs the named npm scripts side by side: `node scripts/side-by-side.mjs typecheck:node lint`.
 * `tsc` and type-aware `eslint` each use one core, so on a 2-core machine running them one after
 * another leaves a core idle (decision 069). Each script's output is held back and printed whole
 * when it ends, so two outputs never interleave. The first script that fails stops the others;
 * this then says which one failed and exits with its code, so `a && b` in package.json still
 * stops at the first failure.
 *
 * Scripts named after `--live` print as they go (the test run, whose progress a developer
 * watches): the held outputs of the others that passed follow once the live ones end; a failure
 * is printed at once, whatever is live (decision 082).
 */
import { Buffer } from "node:buffer";
import { spawn } from "node:child_process";
import console from "node:console";
import { performance } from "node:perf_hooks";
import process from "node:process";

const args = process.argv.slice(2);
const liveFrom = args.includes("--live") ? args.indexOf("--live") : args.length;
const names = args.filter((arg) => arg !== "--live");
const live = new Set(args.slice(liveFrom + 1));
if (names.length === 0) {
  console.error("usage: node scripts/side-by-side.mjs <npm script> [<npm script>...] [--live <npm script>...]");
  process.exit(2);
}

// Under npm, npm_execpath is npm's own script: run it with this Node rather than trusting PATH.
const npm = process.env.npm_execpath ? [process.execPath, [process.env.npm_execpath]] : ["npm", []];
const running = new Map();
const started = performance.now();
const seconds = () => `${((performance.now() - started) / 1000).toFixed(1)} s`;

/** Ends every script still running, with what it started (each runs in its own process group). */
function stopAll(signal = "SIGTERM") {
  for (const child of running.values()) {
    try {
      process.kill(-child.pid, signal);
    } catch {
      // Already gone.
    }
  }
}

for (const signal of ["SIGINT", "SIGTERM"]) {
  process.on(signal, () => {
    stopAll(signal);
    process.exit(130);
  });
}

console.log(`side by side: ${names.join(", ")}`);
const results = names.map(
  (name) =>
    new Promise((resolve) => {
      const shown = live.has(name);
      const child = spawn(npm[0], [...npm[1], "run", "--silent", name], { stdio: ["ignore", shown ? "inherit" : "pipe", shown ? "inherit" : "pipe"], detached: true });
      running.set(name, child);
      const output = [];
      child.stdout?.on("data", (data) => output.push(data));
      child.stderr?.on("data", (data) => output.push(data));
      child.on("close", (code, signal) => {
        running.delete(name);
        resolve({ name, code: code ?? (signal ? 128 : 1), output: Buffer.concat(output).toString() });
      });
    }),
);

/** Outputs of scripts that passed while a live one was printing: shown once no live one runs. */
const passed = [];
const liveRunning = () => [...running.keys()].some((name) => live.has(name));
for (const result of results) {
  void result.then(({ name, code, output }) => {
    if (code === 0) {
      passed.push(`${output}✓ ${name} (${seconds()})\n`);
      if (!liveRunning()) process.stdout.write(passed.splice(0).join(""));
      return;
    }
    process.stdout.write(output);
    const others = [...running.keys()];
    stopAll();
    console.error(`✗ ${name} failed (exit ${code}) after ${seconds()}${others.length ? `; stopped ${others.join(", ")}` : ""}`);
    process.exit(code);
  });
}
await Promise.all(results);
