import fs from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { json, makeTempDir, runCli, writeFile } from "./helpers/cli.js";
import { runCliInProcess } from "./helpers/cli-in-process.js";

/**
 * What a demanding new user runs into: folders inside added folders, sources renamed after a
 * hand edit, a config file broken by hand, hand edits the reader had to repair.
 */

interface Report {
  processed: Array<{ path: string }>;
  editsSynced: Array<{ path: string; chunks: number; warnings?: string[] }>;
  skipped: Array<{ relativePath: string; reason: string }>;
  removed: string[];
  keptEdits?: Array<{ path: string; chunkFile: string }>;
}

interface SearchJson {
  results: Array<{ ref: string; relativePath: string }>;
}

describe("a folder added inside another added folder", () => {
  it("does not read the inner folder's chunk files as documents of the outer one", async () => {
    const home = makeTempDir("home");
    const outer = makeTempDir("outer");
    writeFile(outer, "top.txt", "The outer folder talks about herons.");
    writeFile(outer, "inner/giraffe.txt", "The inner folder talks about giraffes.");
    expect((await runCliInProcess(["add", path.join(outer, "inner")], { home })).code).toBe(0);

    const result = await runCliInProcess(["add", outer, "--json"], { home });
    expect(result.code, result.stderr).toBe(0);
    const report = json<Report>(result);
    expect(report.processed.map((file) => file.path).sort()).toEqual(["inner/giraffe.txt", "top.txt"]);
    expect(report.skipped.find((skip) => skip.relativePath === "inner/_chunks")?.reason).toMatch(/chunk files of the added folder/);

    const search = json<SearchJson>(await runCliInProcess(["search", "giraffes", "--json", "--folder", outer], { home }));
    expect(search.results.map((hit) => hit.relativePath)).toEqual(["inner/giraffe.txt"]);
  });

  it("still reads a user folder that happens to be called _chunks, and cleans up after the inner folder is added", async () => {
    const home = makeTempDir("home");
    const outer = makeTempDir("outer");
    writeFile(outer, "inner/giraffe.txt", "The inner folder talks about giraffes.");
    writeFile(outer, "elsewhere/_chunks/note.md", "A user folder that happens to be called _chunks.");
    expect((await runCliInProcess(["add", outer], { home })).code).toBe(0);
    expect((await runCliInProcess(["add", path.join(outer, "inner")], { home })).code).toBe(0);

    const report = json<Report>(await runCliInProcess(["process", outer, "--json"], { home }));
    expect(report.processed).toEqual([]);
    expect(report.removed).toEqual([]);
    expect(report.skipped.map((skip) => skip.relativePath)).toEqual(["inner/_chunks"]);
    const search = json<SearchJson>(await runCliInProcess(["search", "folder", "--json", "--folder", outer], { home }));
    expect(search.results.map((hit) => hit.relativePath).sort()).toEqual(["elsewhere/_chunks/note.md", "inner/giraffe.txt"]);
  });
});

describe("a source renamed or deleted after its chunk file was edited by hand", () => {
  it("keeps the edited chunk file: it moves with a renamed source, and stays (and is named) when the source is deleted", async () => {
    const home = makeTempDir("home");
    const folder = makeTempDir("docs");
    writeFile(folder, "otters.txt", "Otters hold hands while they sleep.");
    expect((await runCliInProcess(["add", folder], { home })).code).toBe(0);
    const chunkFile = path.join(folder, "_chunks", "otters.txt.md");
    fs.appendFileSync(chunkFile, "\nMy own note: the sea otter uses tools.\n");
    fs.renameSync(path.join(folder, "otters.txt"), path.join(folder, "sea-otters.txt"));

    const result = await runCliInProcess(["process", folder, "--json"], { home });
    expect(result.code, result.stderr).toBe(0);
    const report = json<Report & { renamed: Array<{ from: string; to: string }> }>(result);
    // Same bytes under a new name: the document, and the user's edit with it, follow the file.
    expect(report.renamed).toEqual([{ from: "otters.txt", to: "sea-otters.txt" }]);
    expect(report.removed).toEqual([]);
    expect(report.editsSynced.map((edit) => edit.path)).toEqual(["sea-otters.txt"]);
    expect(fs.existsSync(chunkFile)).toBe(false);
    expect(fs.readFileSync(path.join(folder, "_chunks", "sea-otters.txt.md"), "utf8")).toContain("the sea otter uses tools");
    expect(json<SearchJson>(await runCliInProcess(["search", "tools", "--json"], { home })).results.length).toBe(1);

    // The text form says so too, and the kept file is not indexed as a document again.
    fs.rmSync(path.join(folder, "sea-otters.txt"));
    fs.appendFileSync(path.join(folder, "_chunks", "sea-otters.txt.md"), "\nAnother note.\n");
    const text = await runCliInProcess(["process", folder], { home });
    expect(text.stdout).toMatch(/sea-otters\.txt: source gone; kept your edited chunk file _chunks\/sea-otters\.txt\.md/);
    const search = json<SearchJson>(await runCliInProcess(["search", "otter", "--json"], { home }));
    expect(search.results).toEqual([]);
  });

  it("still removes chunk files nobody edited", async () => {
    const home = makeTempDir("home");
    const folder = makeTempDir("docs");
    writeFile(folder, "a.txt", "Alpha text.");
    expect((await runCliInProcess(["add", folder], { home })).code).toBe(0);
    fs.rmSync(path.join(folder, "a.txt"));
    const report = json<Report>(await runCliInProcess(["process", folder, "--json"], { home }));
    expect(report.removed).toEqual(["a.txt"]);
    expect(report.keptEdits ?? []).toEqual([]);
    expect(fs.existsSync(path.join(folder, "_chunks", "a.txt.md"))).toBe(false);
  });
});

describe("hand edits the chunk-file reader had to repair", () => {
  it("reports what was repaired (renumbered chunks, an unreadable metadata line)", async () => {
    const home = makeTempDir("home");
    const folder = makeTempDir("docs");
    writeFile(folder, "notes.md", "# Notes\n\nLlamas hum when they are curious.\n");
    expect((await runCliInProcess(["add", folder], { home })).code).toBe(0);
    const chunkFile = path.join(folder, "_chunks", "notes.md.md");
    const broken = fs.readFileSync(chunkFile, "utf8").replace(/<!-- chars=[^\n]*-->/, '<!-- chars=0-10 section="Not');
    fs.writeFileSync(chunkFile, `${broken}\n## Chunk 99\nZebras bark at night.\n`);

    const report = json<Report>(await runCliInProcess(["process", folder, "--json"], { home }));
    const warnings = report.editsSynced[0]?.warnings ?? [];
    expect(warnings.join("\n")).toMatch(/numbered by their position/);
    expect(warnings.join("\n")).toMatch(/metadata comment under "## Chunk 1".*kept as text/);

    fs.appendFileSync(chunkFile, "\n## Chunk 7\nMore.\n");
    const text = await runCliInProcess(["process", folder], { home });
    expect(text.stdout).toMatch(/notes\.md: your edited chunk file was taken in \(3 chunks\)\n( {4}note: .*\n)* {4}note: Chunk numbers were missing/);
  });
});

describe("a config file with a bad value", () => {
  it("can be repaired with the commands the error message names", async () => {
    const home = makeTempDir("home");
    writeFile(home, "config/config.json", JSON.stringify({ search: { limit: "ten" } }));
    const search = await runCliInProcess(["search", "anything"], { home });
    expect(search.code).toBe(1);
    expect(search.stderr).toMatch(/search\.limit/);
    expect(search.stderr).toMatch(/chunkpad config (set|unset)/);

    const path_ = await runCliInProcess(["config", "path"], { home });
    expect(path_.code, path_.stderr).toBe(0);
    expect(path_.stdout).toContain("config.json");

    const unset = await runCliInProcess(["config", "unset", "search.limit"], { home });
    expect(unset.code, unset.stderr).toBe(0);
    expect(unset.stdout).toBe("search.limit = 10\n");
    expect((await runCliInProcess(["search", "anything"], { home })).code).toBe(0);
  });

  it("can be repaired with config set, keeping the other settings", async () => {
    const home = makeTempDir("home");
    writeFile(home, "config/config.json", JSON.stringify({ search: { limit: -3, fusion: "rrf" } }));
    const set = await runCliInProcess(["config", "set", "search.limit", "5"], { home });
    expect(set.code, set.stderr).toBe(0);
    const list = await runCliInProcess(["config", "list"], { home });
    expect(list.stdout).toMatch(/^search\.limit +\s= 5 {2}\(config\)$/m);
    expect(list.stdout).toMatch(/^search\.fusion +\s= "rrf" {2}\(config\)$/m);
  });

  it("says plainly that a bad value was not saved", async () => {
    const home = makeTempDir("home");
    const set = await runCliInProcess(["config", "set", "search.limit", "-3"], { home });
    expect(set.code).toBe(1);
    expect(set.stderr).toMatch(/^chunkpad: search\.limit was not changed: /);
    expect(set.stderr).not.toMatch(/Fix it with "chunkpad config set"/);
    expect((await runCliInProcess(["config", "get", "search.limit"], { home })).stdout).toBe("10\n");
  });
});

describe("keys and chat commands given odd input", () => {
  it("says so when there is no stored key to delete", async () => {
    const home = makeTempDir("home");
    const env = { CHUNKPAD_KEYCHAIN: "off" };
    const nothing = await runCliInProcess(["keys", "delete", "openai"], { home, env });
    expect(nothing.code, nothing.stderr).toBe(0);
    expect(nothing.stdout).toBe("No openai key was stored; nothing to delete.\n");
    expect((await runCliInProcess(["keys", "set", "openai"], { home, env, input: "sk-test-key-123456\n" })).code).toBe(0);
    expect((await runCliInProcess(["keys", "delete", "openai"], { home, env })).stdout).toBe("Deleted the stored openai key.\n");
  });

  it("explains /toggle without a chunk number instead of talking about chunk NaN", async () => {
    const home = makeTempDir("home");
    const chat = await runCliInProcess(["chat"], { home, input: "/toggle abc\n/toggle\n/toggle 2.5\n" });
    expect(chat.stderr).not.toContain("NaN");
    expect(chat.stderr.match(/\/toggle takes the number of a chunk, as \/chunks shows it \(for example \/toggle 2\)/g)).toHaveLength(3);
  });
});

describe("a folder given as ~/path inside quotes (a path with spaces)", () => {
  it("is read from the home folder, as the shell would have done", async () => {
    const home = makeTempDir("home");
    writeFile(home, "My Documents/notes.txt", "Notes about the lighthouse keeper.");
    // A child process: `~` is the process's own home folder (HOME), which a test process cannot lend.
    const added = await runCli(["add", "~/My Documents", "--json"], { home });
    expect(added.code, added.stderr).toBe(0);
    expect(json<{ folder: { rootPath: string } }>(added).folder.rootPath).toBe(fs.realpathSync(path.join(home, "My Documents")));
    const tree = await runCli(["chunks", "~/My Documents"], { home });
    expect(tree.code, tree.stderr).toBe(0);
    expect(tree.stdout).toContain("notes.txt.md");
  });
});

describe("a document with a very long file name", () => {
  it("is processed when its chunk file name still fits, and reported (not fatal) when it does not", async () => {
    const home = makeTempDir("home");
    const folder = makeTempDir("docs");
    const fits = `${"f".repeat(240)}.txt`; // the chunk file name is 247 bytes: fits in 255
    const tooLong = `${"t".repeat(250)}.txt`; // the chunk file name would be 257 bytes
    writeFile(folder, fits, "Pelicans fly in lines over the bay.");
    writeFile(folder, tooLong, "Pelicans dive for fish.");
    writeFile(folder, "short.txt", "A short note about pelicans.");

    const result = await runCliInProcess(["add", folder, "--json"], { home });
    expect(result.code, result.stderr).toBe(4); // finished, but one file failed
    const report = json<Report & { failed: Array<{ path: string; message: string }> }>(result);
    expect(report.processed.map((file) => file.path).sort()).toEqual([fits, "short.txt"]);
    expect(report.failed.map((failure) => failure.path)).toEqual([tooLong]);
    expect(report.failed[0]?.message).toMatch(/name is too long.*rename/i);
    expect(fs.readdirSync(path.join(folder, "_chunks")).filter((name) => name.endsWith(".tmp"))).toEqual([]);
  });
});
