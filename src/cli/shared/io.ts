import os from "node:os";
import path from "node:path";
import type { Readable, Writable } from "node:stream";
import { InvalidArgumentError } from "commander";
import { errorOutcome, toPlainJson } from "../../index.js";

/** The streams and environment the CLI talks to; tests pass their own. */
export interface CliIo {
  stdout: Writable & { isTTY?: boolean; columns?: number };
  stderr: Writable & { isTTY?: boolean; columns?: number };
  stdin: Readable & { isTTY?: boolean; setRawMode?: (mode: boolean) => unknown };
  env: NodeJS.ProcessEnv;
}

export function defaultIo(): CliIo {
  return { stdout: process.stdout, stderr: process.stderr, stdin: process.stdin, env: process.env };
}

/**
 * Exit codes: 0 done, 1 the user can fix it (bad input, missing folder or model), 2 usage, 3 a
 * bug or an outside failure, 4 the run finished but some files failed (listed in its report).
 */
export const EXIT_FILES_FAILED = 4;

export function exitCodeFor(error: unknown): number {
  return errorOutcome(error).exitCode;
}

/** One JSON document on stdout; anything not yet plain JSON (a Date, a Map) is made so. */
export function printJson(io: CliIo, value: unknown): void {
  io.stdout.write(`${JSON.stringify(toPlainJson(value), null, 2)}\n`);
}

/** Reads all of stdin (for passwords and keys given through a pipe). */
export async function readStdin(io: CliIo): Promise<string> {
  const parts: Buffer[] = [];
  for await (const chunk of io.stdin) parts.push(Buffer.isBuffer(chunk) ? chunk : Buffer.from(String(chunk)));
  return Buffer.concat(parts).toString("utf8").replace(/\r?\n$/, "");
}

/** Parses a positive whole number flag, with a message naming the flag. */
export function parseIntegerOption(name: string) {
  return (value: string): number => {
    const number = Number(value);
    if (!Number.isInteger(number) || number < 0) throw new InvalidArgumentError(`${name} takes a whole number, not "${value}"`);
    return number;
  };
}

/** "1 chunk", "3 chunks". */
export function plural(count: number, word: string, plural = `${word}s`): string {
  return `${count} ${count === 1 ? word : plural}`;
}

/**
 * A path argument with a leading "~" read as the home folder, as a shell does: the shell leaves
 * "~/My Documents" alone when it is quoted, which a path with spaces needs.
 */
export function expandHome(value: string): string {
  if (value === "~") return os.homedir();
  if (value.startsWith("~/") || (path.sep === "\\" && value.startsWith("~\\"))) return path.join(os.homedir(), value.slice(2));
  return value;
}
