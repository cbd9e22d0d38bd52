import path from "node:path";
import { PassThrough, Readable } from "node:stream";
import { pathToFileURL } from "node:url";
import type { CliIo } from "../../src/cli/shared/io.js";
import { cliEnv, REPO_ROOT, type CliResult } from "./cli.js";

/**
 * The CLI run inside the test process: the built `main(argv, io)` with its own stdout, stderr,
 * stdin and environment, as `runCli` gives a child process. For tests whose subject is what a
 * verb does and prints, not the process itself (exit on signals, start time, EPIPE, locks held
 * by another process keep `runCli`). Spawning Node and loading the CLI for every call was most
 * of the integration tests' time; here the modules load once per test file.
 */

type Main = (argv: string[], io: CliIo) => Promise<number>;
let loaded: Promise<Main> | undefined;

function loadMain(): Promise<Main> {
  const url = pathToFileURL(path.join(REPO_ROOT, "dist", "cli", "main.js")).href;
  loaded ??= (import(url) as Promise<{ main: Main }>).then((module) => module.main);
  return loaded;
}

function collect(stream: PassThrough): () => string {
  let text = "";
  stream.on("data", (data: Buffer) => (text += data.toString()));
  return () => text;
}

/** Same options and result as `runCli`; `cwd` is not supported (pass absolute paths). */
export async function runCliInProcess(args: string[], options: { home: string; input?: string; env?: NodeJS.ProcessEnv }): Promise<CliResult> {
  const main = await loadMain();
  const stdout = new PassThrough();
  const stderr = new PassThrough();
  const readStdout = collect(stdout);
  const readStderr = collect(stderr);
  const io: CliIo = { stdout, stderr, stdin: Readable.from([options.input ?? ""]), env: cliEnv(options.home, options.env) };
  const code = await main(args, io);
  stdout.end();
  stderr.end();
  return { code, stdout: readStdout(), stderr: readStderr() };
}
