import { execFile, spawn } from "node:child_process";
import fs from "node:fs";
import path from "node:path";
import { promisify } from "node:util";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { REPO_ROOT, SHARED, makeTempDir, writeSampleDocuments } from "../helpers/cli.js";

/**
 * What a user gets from `npm install -g chunkpad`: the packed tarball installed into an empty
 * prefix from the npm registry, with no install variable set (a package's own .npmrc does not
 * apply there), then the installed `chunkpad` used for add, search, serve and mcp.
 */

const run = promisify(execFile);
let work: string;
let prefix: string;
let chunkpad: string;
let home: string;
let installLog: string;

/** The caller's environment without anything that steers npm or onnxruntime-node's install step. */
function cleanEnv(extra: NodeJS.ProcessEnv = {}): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = {};
  for (const [key, value] of Object.entries(process.env)) {
    if (/^npm_/i.test(key) || /^ONNXRUNTIME_NODE_INSTALL/i.test(key)) continue;
    env[key] = value;
  }
  return { ...env, ...extra };
}

/** Every installed package under `modules`, nested ones included: its name and folder. */
function installedPackages(modules: string): Array<{ name: string; folder: string }> {
  const found: Array<{ name: string; folder: string }> = [];
  const visit = (folder: string): void => {
    if (!fs.existsSync(folder)) return;
    for (const entry of fs.readdirSync(folder, { withFileTypes: true })) {
      if (!entry.isDirectory() || entry.name.startsWith(".")) continue;
      const names = entry.name.startsWith("@") ? fs.readdirSync(path.join(folder, entry.name)).map((inner) => `${entry.name}/${inner}`) : [entry.name];
      for (const name of names) {
        found.push({ name, folder: path.join(folder, name) });
        visit(path.join(folder, name, "node_modules"));
      }
    }
  };
  visit(modules);
  return found;
}

function findPackages(modules: string, name: string): string[] {
  return installedPackages(modules)
    .filter((installed) => installed.name === name)
    .map((installed) => installed.folder);
}

/** Installed packages npm runs an install step for: a (pre/post)install script, or node-gyp for a binding.gyp. */
function packagesWithInstallScripts(modules: string): string[] {
  return installedPackages(modules)
    .filter(({ name, folder }) => {
      if (name === "chunkpad" || !fs.existsSync(path.join(folder, "package.json"))) return false;
      const { scripts = {}, gypfile } = JSON.parse(fs.readFileSync(path.join(folder, "package.json"), "utf8")) as { scripts?: Record<string, string>; gypfile?: boolean };
      return Boolean(scripts.preinstall || scripts.install || scripts.postinstall) || (gypfile !== false && fs.existsSync(path.join(folder, "binding.gyp")));
    })
    .map(({ name }) => name);
}

function userEnv(): NodeJS.ProcessEnv {
  return { PATH: `${path.join(prefix, "bin")}${path.delimiter}${process.env.PATH ?? ""}`, HOME: home, CHUNKPAD_HOME: home };
}

async function cli(args: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  try {
    const { stdout, stderr } = await run(chunkpad, args, { env: userEnv(), cwd: home });
    return { code: 0, stdout, stderr };
  } catch (error) {
    const failed = error as { code?: number; stdout?: string; stderr?: string };
    return { code: typeof failed.code === "number" ? failed.code : -1, stdout: failed.stdout ?? "", stderr: failed.stderr ?? "" };
  }
}

beforeAll(async () => {
  work = makeTempDir("package");
  prefix = path.join(work, "prefix");
  home = path.join(work, "home");
  fs.mkdirSync(home);
  // What `npm pack` builds in `prepare`, built only when dist/ is older than a source (CI has
  // just built it), then packed as it is.
  await run("node", [path.join(REPO_ROOT, "scripts", "build-if-stale.mjs")], { cwd: REPO_ROOT, env: cleanEnv(), maxBuffer: 64 * 1024 * 1024 });
  const packed = await run("npm", ["pack", "--ignore-scripts", "--pack-destination", work, "--json"], { cwd: REPO_ROOT, env: cleanEnv(), maxBuffer: 64 * 1024 * 1024 });
  const [packReport] = JSON.parse(packed.stdout.slice(packed.stdout.indexOf("["))) as Array<{ filename: string }>;
  const tarball = path.join(work, path.basename(packReport?.filename ?? "chunkpad.tgz"));
  const installed = await run("npm", ["install", "-g", "--prefix", prefix, "--no-audit", "--no-fund", tarball], {
    cwd: work,
    env: cleanEnv(),
    maxBuffer: 64 * 1024 * 1024,
  });
  installLog = installed.stdout + installed.stderr;
  chunkpad = path.join(prefix, "bin", "chunkpad");
});

afterAll(() => {
  if (work) fs.rmSync(work, { recursive: true, force: true });
});

describe("npm pack, then npm install -g from the tarball into an empty prefix", () => {
  it("packs the built CLI and web app and nothing else", async () => {
    const listing = await run("npm", ["pack", "--dry-run", "--ignore-scripts", "--json"], { cwd: REPO_ROOT, env: cleanEnv(), maxBuffer: 64 * 1024 * 1024 });
    const [packReport] = JSON.parse(listing.stdout.slice(listing.stdout.indexOf("["))) as Array<{ files: Array<{ path: string }> }>;
    const paths = (packReport?.files ?? []).map((file) => file.path);
    expect(paths).toContain("bin/chunkpad.js");
    expect(paths).toContain("dist/cli/main.js");
    expect(paths).toContain("dist/web/index.html");
    const stray = paths.filter((file) => !/^(bin\/|dist\/|package\.json$|README\.md$|LICENSE)/.test(file) || /\.test\.|\.map$|conformance/.test(file));
    expect(stray).toEqual([]);
  });

  it("installs with no install variable set and answers --version", async () => {
    const version = JSON.parse(fs.readFileSync(path.join(REPO_ROOT, "package.json"), "utf8")) as { version: string };
    const result = await cli(["--version"]);
    expect(result.stdout.trim(), installLog).toBe(version.version);
  });

  it("adds a folder and finds a word in it", async () => {
    const folder = path.join(home, "docs");
    writeSampleDocuments(folder);
    const added = await cli(["add", folder]);
    expect(added.code, added.stderr).toBe(0);
    expect(added.stdout).toMatch(/processed 3/);
    const found = await cli(["search", "heron", "--mode", "keyword", "--json"]);
    expect(found.code, found.stderr).toBe(0);
    const { results } = JSON.parse(found.stdout) as { results: Array<{ relativePath: string }> };
    expect(results.map((result) => result.relativePath)).toContain("notes.md");
  });

  it("runs no install step that needs anything beyond npm: the ONNX runtime is not installed, and only native builds of bundled sources remain", () => {
    const installed = path.join(prefix, "lib", "node_modules");
    const withScripts = packagesWithInstallScripts(installed);
    expect(withScripts.filter((name) => name.startsWith("onnxruntime") || name.startsWith("@huggingface/")), installLog).toEqual([]);
    // @photostructure/sqlite and usearch take the prebuilt binary they ship (node-gyp-build) and
    // would compile only on a platform without one; tesseract.js prints a funding banner. None
    // needs anything beyond npm.
    expect([...new Set(withScripts)].sort()).toEqual(["@photostructure/sqlite", "tesseract.js", "usearch"]);
    expect(findPackages(installed, "onnxruntime-node")).toEqual([]);
    // SQLite came built inside the package: nothing was compiled (no python, make or C++ compiler needed, decision 071).
    const sqlite = findPackages(installed, "@photostructure/sqlite");
    expect(sqlite).toHaveLength(1);
    expect(fs.existsSync(path.join(sqlite[0] ?? "", "build")), installLog).toBe(false);
    expect(fs.readdirSync(path.join(sqlite[0] ?? "", "prebuilds"))).toContain(`${process.platform}-${process.arch}`);
  });

  it("embeds with the local model once the user adds the runtime the message names, without its GPU download", async () => {
    const model = path.join(SHARED, "models", "tiny-bert");
    expect((await cli(["config", "set", "embedding.model", model])).code).toBe(0);
    const refused = await cli(["embed", path.join(home, "docs"), "--yes"]);
    expect(refused.code).toBe(1);
    const hint = /"(npm install -g --onnxruntime-node-install=skip @huggingface\/transformers@[\d.]+)"/.exec(refused.stderr);
    expect(hint, refused.stderr).not.toBeNull();
    // The user's command, as printed, into the same prefix; still no install variable set.
    const userArgs = (hint?.[1] ?? "").split(" ").slice(3); // after "npm install -g"
    await run("npm", ["install", "-g", "--prefix", prefix, "--no-audit", "--no-fund", ...userArgs], { cwd: work, env: cleanEnv(), maxBuffer: 64 * 1024 * 1024 });
    const runtimes = findPackages(path.join(prefix, "lib", "node_modules"), "onnxruntime-node");
    expect(runtimes.length).toBe(1);
    const binaries = path.join(runtimes[0] ?? "", "bin", "napi-v6", process.platform, process.arch);
    expect(fs.readdirSync(binaries).filter((file) => /providers_(cuda|tensorrt)/.test(file))).toEqual([]);
    const embedded = await cli(["embed", path.join(home, "docs"), "--yes"]);
    expect(embedded.code, embedded.stderr).toBe(0);
    expect(embedded.stdout).toMatch(/Embedded 3 chunks/);
  });

  it("leaves the local Llama out, and says how to add only this platform's build of it", async () => {
    expect(fs.existsSync(path.join(prefix, "lib", "node_modules", "chunkpad", "node_modules", "node-llama-cpp"))).toBe(false);
    const providers = await cli(["providers", "--json"]);
    expect(providers.code, providers.stderr).toBe(0);
    const local = (JSON.parse(providers.stdout) as Array<{ provider: string; ready: boolean; detail: string }>).find((row) => row.provider === "local");
    expect(local).toMatchObject({ ready: false });
    expect(local?.detail).toMatch(/node-llama-cpp is not installed\. .*npm install -g --omit=optional node-llama-cpp@[\d.]+ @node-llama-cpp\/\S+@[\d.]+/);
    const asked = await cli(["ask", "Where does the heron wait?", "--provider", "local", "--mode", "keyword"]);
    expect(asked.code).toBe(1);
    expect(asked.stderr).toMatch(/node-llama-cpp is not installed, and the local Llama model \(llama\.cpp\) cannot run without it/);
  });

  it("serves the API, which answers its status", async () => {
    const server = spawn(chunkpad, ["serve", "--port", "0"], { env: userEnv(), cwd: home, stdio: ["ignore", "ignore", "pipe"] });
    try {
      let stderr = "";
      await new Promise<void>((resolve, reject) => {
        server.stderr.on("data", (data: Buffer) => {
          stderr += data.toString();
          if (/Chunkpad API on/.test(stderr)) resolve();
        });
        server.on("close", () => reject(new Error(`serve exited early:\n${stderr}`)));
      });
      const info = JSON.parse(fs.readFileSync(path.join(home, "data", "server.json"), "utf8")) as { url: string; token: string };
      const response = await fetch(`${info.url}/api/status`, { headers: { "x-chunkpad-token": info.token } });
      expect(response.status).toBe(200);
      expect(((await response.json()) as { documents: number }).documents).toBe(3);
    } finally {
      const closed = new Promise((resolve) => server.on("close", resolve));
      server.kill("SIGTERM");
      await closed;
    }
  });

  it("runs the MCP server over stdio, whose search tool finds the word", async () => {
    const transport = new StdioClientTransport({ command: chunkpad, args: ["mcp"], env: userEnv() as Record<string, string>, cwd: home, stderr: "pipe" });
    const client = new Client({ name: "chunkpad-package-test", version: "1.0.0" });
    await client.connect(transport);
    try {
      const { tools } = await client.listTools();
      expect(tools.map((tool) => tool.name)).toContain("search");
      const result = (await client.callTool({ name: "search", arguments: { query: "heron", mode: "keyword" } })) as { isError?: boolean; content: Array<{ text?: string }> };
      expect(result.isError ?? false).toBe(false);
      expect(result.content.map((part) => part.text ?? "").join("\n")).toContain("notes.md");
    } finally {
      await client.close();
    }
  });
});
