/**
 * What a newcomer waits for and stores: `git clone` of this repository, then plain `npm install`
 * (no install variable: the project's .npmrc must be enough), timed, and node_modules measured,
 * in total and without the local LLM (node-llama-cpp, a dev dependency that a global install
 * leaves out). With `--global` it also packs the package and times `npm install -g` of the
 * tarball into an empty prefix, and measures that prefix. Packages come from the npm registry
 * (@photostructure/sqlite and usearch ship prebuilt binaries inside their npm packages: nothing
 * compiles). Prints the load average too: on a busy machine the times mean little, so the CPU
 * time is printed too. `npx tsx bench/install.ts [--global]`;
 * `--here` only measures this checkout's node_modules.
 * Targets (issue 24): install ≤ 90 s on 2 idle cores; node_modules ≤ 600 MB without the local LLM.
 */
import { execFileSync, spawnSync } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";

const repo = path.resolve(import.meta.dirname, "..");
const global = process.argv.includes("--global");

/** The caller's environment without anything that steers npm or onnxruntime-node's install step. */
function cleanEnv(): NodeJS.ProcessEnv {
  return Object.fromEntries(Object.entries(process.env).filter(([key]) => !/^npm_/i.test(key) && !/^ONNXRUNTIME_NODE_INSTALL/i.test(key)));
}

function megabytes(directory: string): number {
  if (!fs.existsSync(directory)) return 0;
  const output = execFileSync("du", ["-sk", directory], { encoding: "utf8" });
  return Number(output.split("\t")[0]) / 1024;
}

/** CPU seconds used so far by this process's finished children (user + system, /proc/self/stat). */
function childrenCpuSeconds(): number {
  const fields = fs.readFileSync("/proc/self/stat", "utf8").split(") ")[1]?.split(" ") ?? [];
  return (Number(fields[13]) + Number(fields[14])) / 100;
}

/** Wall seconds; prints the CPU seconds too (on a busy machine the wall time means little). */
function timed(command: string, args: string[], cwd: string): number {
  const cpuBefore = childrenCpuSeconds();
  const started = performance.now();
  const result = spawnSync(command, args, { cwd, env: cleanEnv(), stdio: ["ignore", "ignore", "inherit"] });
  if (result.status !== 0) throw new Error(`${command} ${args.join(" ")} failed (exit ${result.status})`);
  console.log(`  (${command} ${args[0]}: ${(childrenCpuSeconds() - cpuBefore).toFixed(1)} CPU-s)`);
  return (performance.now() - started) / 1000;
}

interface LockEntry {
  dependencies?: Record<string, string>;
  optionalDependencies?: Record<string, string>;
  peerDependencies?: Record<string, string>;
  devDependencies?: Record<string, string>;
}

/**
 * The folders npm installed only because of the local LLM: packages in the lockfile that no
 * path from the project's other dependencies reaches (node-llama-cpp, its platform builds and
 * what only they need). Resolved as Node does, from the nearest node_modules upwards.
 */
function onlyForTheLocalLlm(project: string): string[] {
  const packages = (JSON.parse(fs.readFileSync(path.join(project, "package-lock.json"), "utf8")) as { packages: Record<string, LockEntry> }).packages;
  const resolve = (from: string, name: string): string | null => {
    for (let base = from; ; base = base.includes("/node_modules/") ? base.slice(0, base.lastIndexOf("/node_modules/")) : "") {
      const candidate = base ? `${base}/node_modules/${name}` : `node_modules/${name}`;
      if (candidate in packages) return candidate;
      if (!base) return null;
    }
  };
  const root = packages[""] ?? {};
  const reached = new Set<string>();
  const pending = Object.keys({ ...root.dependencies, ...root.devDependencies, ...root.optionalDependencies })
    .filter((name) => name !== "node-llama-cpp")
    .map((name) => resolve("", name));
  for (let next = pending.pop(); next !== undefined; next = pending.pop()) {
    if (next === null || reached.has(next)) continue;
    reached.add(next);
    const entry = packages[next] ?? {};
    for (const name of Object.keys({ ...entry.dependencies, ...entry.optionalDependencies, ...entry.peerDependencies })) pending.push(resolve(next, name));
  }
  const unreached = Object.keys(packages).filter((key) => key !== "" && !reached.has(key) && fs.existsSync(path.join(project, key)));
  return unreached.filter((key) => !unreached.some((outer) => key.startsWith(`${outer}/`))).map((key) => path.join(project, key));
}

function report(label: string, modules: string): void {
  const total = megabytes(modules);
  const project = path.dirname(modules);
  const llmFolders = fs.existsSync(path.join(project, "package-lock.json")) ? onlyForTheLocalLlm(project) : [path.join(modules, "node-llama-cpp"), path.join(modules, "@node-llama-cpp")];
  const llm = llmFolders.reduce((sum, folder) => sum + megabytes(folder), 0);
  const parts = ["onnxruntime-node", "@huggingface", "pdfjs-dist", "tesseract.js-core", "@photostructure/sqlite", "typescript"]
    .map((name) => `${name} ${megabytes(path.join(modules, name)).toFixed(0)}`)
    .join(", ");
  console.log(`${label}: node_modules ${total.toFixed(0)} MB; without the local LLM ${(total - llm).toFixed(0)} MB (node-llama-cpp and what only it needs: ${llmFolders.length} folders, ${llm.toFixed(0)} MB)`);
  console.log(`  largest parts (MB): ${parts}`);
  const runtime = path.join(modules, "onnxruntime-node", "bin", "napi-v6");
  const platforms = fs.existsSync(runtime) ? fs.readdirSync(runtime).join(", ") : "";
  console.log(`  ONNX runtime installed: ${platforms ? `yes (binaries for ${platforms})` : "no (not a dependency of the package: the local embedder prints the command that adds it)"}`);
}

if (process.argv.includes("--here")) {
  // Only measure this checkout's node_modules (after your own `npm ci`), install nothing.
  report("this checkout", path.join(repo, "node_modules"));
  process.exit(0);
}

const work = fs.mkdtempSync(path.join(os.tmpdir(), "chunkpad-install-bench-"));
try {
  console.log(`load average before: ${os.loadavg().map((load) => load.toFixed(1)).join(" ")} on ${os.availableParallelism()} cores; npm ${execFileSync("npm", ["--version"], { encoding: "utf8" }).trim()}, node ${process.version}`);
  const clone = path.join(work, "chunkpad");
  execFileSync("git", ["clone", "--quiet", repo, clone]);
  // The clone's tests find their data beside it, as in CI; not needed for the install itself.
  const seconds = timed("npm", ["install", "--no-audit", "--no-fund"], clone);
  console.log(`git clone && npm install (with the build in prepare): ${seconds.toFixed(1)} s`);
  report("clone", path.join(clone, "node_modules"));

  if (global) {
    const packed = execFileSync("npm", ["pack", "--pack-destination", work, "--ignore-scripts"], { cwd: clone, env: cleanEnv(), encoding: "utf8" }).trim().split("\n").pop() ?? "";
    const tarball = path.join(work, packed);
    console.log(`tarball ${path.basename(tarball)}: ${(fs.statSync(tarball).size / 1024 / 1024).toFixed(1)} MB`);
    const prefix = path.join(work, "prefix");
    const globalSeconds = timed("npm", ["install", "-g", "--prefix", prefix, "--no-audit", "--no-fund", tarball], work);
    console.log(`npm install -g chunkpad (from the tarball, no install variable): ${globalSeconds.toFixed(1)} s`);
    report("global", path.join(prefix, "lib", "node_modules", "chunkpad", "node_modules"));
  }
  console.log(`load average after: ${os.loadavg().map((load) => load.toFixed(1)).join(" ")}`);
} finally {
  fs.rmSync(work, { recursive: true, force: true });
}
