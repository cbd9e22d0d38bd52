import fs from "node:fs";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { makeTempDir, REPO_ROOT, runCli, writeSampleDocuments } from "./helpers/cli.js";

/**
 * Start time a user notices, checked by what loads rather than by a stopwatch: `--version` loads
 * nothing of Chunkpad, and a keyword search loads neither parsers, LLM SDKs, ONNX Runtime, the
 * tokenizer nor zod (bench/start-time.ts measures the milliseconds).
 */
const RECORDER = path.join(REPO_ROOT, "test", "helpers", "load-recorder.mjs");
const HEAVY = ["@anthropic-ai/sdk", "openai", "node-llama-cpp", "onnxruntime-node", "@huggingface/transformers", "pdfjs-dist", "mammoth", "tesseract.js", "@napi-rs/canvas", "@e965/xlsx", "linkedom", "gpt-tokenizer", "zod", "@napi-rs/keyring"];

let home: string;
let folder: string;

beforeAll(async () => {
  home = makeTempDir("start");
  folder = path.join(home, "docs");
  writeSampleDocuments(folder);
  expect((await runCli(["add", folder], { home })).code).toBe(0);
});
afterAll(() => fs.rmSync(home, { recursive: true, force: true }));

async function loadedBy(args: string[]): Promise<{ code: number; stdout: string; packages: Set<string>; modules: string[] }> {
  const log = path.join(home, `loaded-${args.join("-").replace(/\W+/g, "_")}.log`);
  const result = await runCli(args, { home, env: { CHUNKPAD_LOAD_LOG: log }, nodeArgs: ["--import", RECORDER] });
  const modules = fs.existsSync(log) ? fs.readFileSync(log, "utf8").split("\n").filter(Boolean) : [];
  const packages = new Set(modules.flatMap((url) => /\/node_modules\/((?:@[^/]+\/)?[^/]+)\//.exec(url)?.[1] ?? []));
  return { code: result.code, stdout: result.stdout, packages, modules };
}

describe("what a command loads", () => {
  it("--version loads no module beyond the launcher", async () => {
    const { code, stdout, modules } = await loadedBy(["--version"]);
    expect(code).toBe(0);
    expect(stdout.trim()).toBe((JSON.parse(fs.readFileSync(path.join(REPO_ROOT, "package.json"), "utf8")) as { version: string }).version);
    expect(modules.filter((url) => !url.endsWith("/bin/chunkpad.js"))).toEqual([]);
  });

  it("a keyword search on an added folder loads no parser, LLM SDK, ONNX Runtime, tokenizer or other command", async () => {
    const { code, stdout, packages, modules } = await loadedBy(["search", "heron", "--mode", "keyword"]);
    expect(code).toBe(0);
    expect(stdout).toContain("heron");
    expect(HEAVY.filter((name) => packages.has(name))).toEqual([]);
    expect(modules.filter((url) => /\/dist\/(ingest\/parsers|embedding\/onnx|llm\/(anthropic|openai))|\/dist\/cli\/commands\/(?!search)/.test(url))).toEqual([]);
  });

  it("help still lists every command", async () => {
    const { code, stdout } = await loadedBy(["--help"]);
    expect(code).toBe(0);
    for (const verb of ["add", "process", "resolve", "folders", "chunks", "remove", "config", "search", "include", "exclude", "embed", "model", "eval", "ask", "chat", "history", "providers", "keys", "reset", "mcp", "sync", "serve"]) {
      expect(stdout).toMatch(new RegExp(`^  ${verb}\\b`, "m"));
    }
  });
});
