import readline from "node:readline";
import type { CliIo } from "./io.js";

/**
 * Reading from the user: lines (a chat typed on a terminal or piped in by a script), a yes/no
 * question, and hidden input for API keys. Prompts go to stderr so stdout stays for results.
 */

export interface LineReader {
  /** The next line, or null at the end of input (EOF, Ctrl-D). */
  next(): Promise<string | null>;
  close(): void;
}

/** Lines from stdin, one at a time, buffered so lines piped in while an answer streams are kept. */
export function createLineReader(io: CliIo): LineReader {
  const lines: string[] = [];
  const waiting: Array<(line: string | null) => void> = [];
  let ended = false;
  const reader = readline.createInterface({ input: io.stdin, terminal: false, crlfDelay: Infinity });
  reader.on("line", (line) => {
    const wake = waiting.shift();
    if (wake) wake(line);
    else lines.push(line);
  });
  reader.on("close", () => {
    ended = true;
    for (const wake of waiting.splice(0)) wake(null);
  });
  return {
    next() {
      const line = lines.shift();
      if (line !== undefined) return Promise.resolve(line);
      if (ended) return Promise.resolve(null);
      return new Promise((resolve) => waiting.push(resolve));
    },
    close: () => reader.close(),
  };
}

/** True when both ends are a terminal, so a question can be asked and answered. */
export function canPrompt(io: CliIo): boolean {
  return Boolean(io.stdin.isTTY && io.stderr.isTTY);
}

/** Asks a yes/no question on stderr; anything but y/yes (including EOF) is no. */
export async function askYesNo(io: CliIo, question: string, lines?: LineReader): Promise<boolean> {
  io.stderr.write(`${question} [y/N] `);
  const reader = lines ?? createLineReader(io);
  try {
    const answer = await reader.next();
    if (answer === null) io.stderr.write("\n");
    return /^\s*y(es)?\s*$/i.test(answer ?? "");
  } finally {
    if (!lines) reader.close();
  }
}

const ENTER = new Set(["\r", "\n"]);
const CTRL_C = "\u0003";
const CTRL_D = "\u0004";
const BACKSPACE = new Set(["\u007f", "\b"]);

/**
 * Reads a line without echoing it (raw mode), for secrets typed on a terminal. Resolves null
 * when the user cancels (Ctrl-C) or input ends before Enter.
 */
export function readHidden(io: CliIo, prompt: string): Promise<string | null> {
  const stdin = io.stdin;
  io.stderr.write(prompt);
  return new Promise((resolve) => {
    let value = "";
    const finish = (result: string | null) => {
      stdin.off("data", onData);
      stdin.off("end", onEnd);
      stdin.setRawMode?.(false);
      stdin.pause();
      io.stderr.write("\n");
      resolve(result);
    };
    const onEnd = () => finish(null);
    const onData = (data: Buffer | string) => {
      for (const character of data.toString()) {
        if (ENTER.has(character)) return finish(value);
        if (character === CTRL_C) return finish(null);
        if (character === CTRL_D) return finish(value === "" ? null : value);
        if (BACKSPACE.has(character)) value = value.slice(0, -1);
        else if (character >= " ") value += character;
      }
    };
    stdin.setRawMode?.(true);
    stdin.on("data", onData);
    stdin.on("end", onEnd);
    stdin.resume();
  });
}
