import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { PassThrough } from "node:stream";
import { describe, expect, it } from "vitest";
import type { CliIo } from "../shared/io.js";
import { main } from "../main.js";

/** A terminal made of streams: what the CLI wrote, and a stdin that types `typed`. */
function terminal(typed: string): { io: CliIo; stdout: () => string; stderr: () => string } {
  const home = fs.mkdtempSync(path.join(os.tmpdir(), "chunkpad-keys-"));
  let out = "";
  let err = "";
  const stdout = new PassThrough();
  const stderr = new PassThrough();
  stdout.on("data", (data: Buffer) => (out += data.toString()));
  stderr.on("data", (data: Buffer) => (err += data.toString()));
  const stdin = Object.assign(new PassThrough(), { isTTY: true, setRawMode: () => undefined });
  stdin.end(typed);
  return {
    io: { stdout, stderr, stdin, env: { CHUNKPAD_HOME: home, HOME: home, CHUNKPAD_KEYCHAIN: "off" } },
    stdout: () => out,
    stderr: () => err,
  };
}

describe("chunkpad keys set on a terminal", () => {
  it("refuses an unknown provider before asking for the key", async () => {
    const session = terminal("sk-typed-for-nothing\r");
    expect(await main(["keys", "set", "antropic"], session.io)).toBe(1);
    expect(session.stderr()).not.toMatch(/API key \(input hidden\)/);
    expect(session.stderr()).toMatch(/not "antropic"/);
  });

  it("asks for a known provider's key without echoing it", async () => {
    const session = terminal("sk-ant-typed-123456\r");
    expect(await main(["keys", "set", "anthropic"], session.io)).toBe(0);
    expect(session.stderr()).toMatch(/anthropic API key \(input hidden\)/);
    expect(session.stdout() + session.stderr()).not.toContain("sk-ant-typed-123456");
  });
});
