import * as fs from "node:fs";
import * as path from "node:path";
import { describe, expect, it } from "vitest";

/**
 * The core's messages reach the web app and the HTTP API as they are, so none names a CLI command
 * or one of its flags: what to do next travels as `nextSteps`, which each face words (decision
 * 060). The files below are the exceptions, each with why.
 */
const SOURCE = path.resolve(import.meta.dirname, "..");
const CORE_FOLDERS = ["app", "core", "store", "ingest", "rag", "embedding", "llm", "chunking", "hub", "search"];
const ALLOWED: Record<string, string> = {
  "app/daemon/server-registry.ts": "only `chunkpad serve` and the CLI's server lookup raise these; the user is at a terminal",
  "app/migrate/migrate-store.ts": "only `chunkpad migrate` runs it",
  "app/settings/reset.ts": "its `command` field is the CLI command reset reports to the CLI",
  "app/settings/settings.ts": "each setting's `flag` names the CLI flag that sets it, for `config list`",
  "embedding/daemon.ts": "names the running `chunkpad serve` process a CLI verb talks to, not a command to type",
};
const COMMAND = /\bchunkpad (add|embed|process|resolve|serve|config|search|ask|status|sync|reset|import|export|migrate|models|folders|review|include|exclude|unlock|keys|chunks|watch|eval|mcp|remove)\b/;
const FLAG = /--(yes|reembed|mode|model|folder|into|take-over|provider|rerank|rerank-budget|document|pin|keep-mine|take-fresh|json|limit|password)\b/;

function sourceFiles(folder: string): string[] {
  return fs.readdirSync(folder, { withFileTypes: true, recursive: true })
    .filter((entry) => entry.isFile() && entry.name.endsWith(".ts") && !entry.name.endsWith(".test.ts"))
    .map((entry) => path.join(entry.parentPath, entry.name));
}

/** The file with its comments blanked out (a comment may name a command: it is for the reader of the code). */
function withoutComments(text: string): string {
  return text.replace(/\/\*[\s\S]*?\*\//g, "").replace(/^\s*\/\/.*$/gm, "").replace(/\s\/\/ .*$/gm, "");
}

describe("messages from the core", () => {
  it("name no CLI command and no CLI flag", () => {
    const offending: string[] = [];
    for (const folder of CORE_FOLDERS) {
      for (const file of sourceFiles(path.join(SOURCE, folder))) {
        const relative = path.relative(SOURCE, file).split(path.sep).join("/");
        if (ALLOWED[relative]) continue;
        withoutComments(fs.readFileSync(file, "utf8")).split("\n").forEach((line, index) => {
          if (COMMAND.test(line) || FLAG.test(line)) offending.push(`${relative}:${index + 1}: ${line.trim().slice(0, 140)}`);
        });
      }
    }
    expect(offending).toEqual([]);
  });
});
