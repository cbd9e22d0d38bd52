import { Command } from "commander";
import { describe, expect, it } from "vitest";
import type { CliContext } from "./context.js";
import { COMMANDS } from "./main.js";

const context = {} as CliContext;

describe("the CLI's command table", () => {
  it("names exactly the verbs each command module defines, so a run can load only its own", async () => {
    for (const entry of COMMANDS) {
      const program = new Command();
      (await entry.load())(program, context);
      expect(program.commands.map((command) => command.name()).sort()).toEqual([...entry.verbs].sort());
    }
  });

  it("gives every verb to one module only", () => {
    const verbs = COMMANDS.flatMap((entry) => entry.verbs);
    expect(new Set(verbs).size).toBe(verbs.length);
  });
});
