import { execFileSync } from "node:child_process";
import fs from "node:fs";
import path from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { json, makeTempDir, touchLater, writeFile } from "./helpers/cli.js";
import { runCliInProcess } from "./helpers/cli-in-process.js";

/**
 * Chunkpad touches only the user's folder and never loses an edit: links in _chunks/ are
 * refused, odd names and read-only folders do not block a run, conflicts are settled per file,
 * and the exit code says when files failed.
 */

interface Report {
  folder: { rootPath: string; chunksRootPath: string };
  processed: Array<{ path: string }>;
  unchanged: string[];
  editsSynced: Array<{ path: string }>;
  skipped: Array<{ relativePath: string; reason: string }>;
  failed: Array<{ path: string; code: string; message: string }>;
  conflicts: Array<{ path: string; message: string }>;
  removed: string[];
  chunksInDataDir: boolean;
}

interface SearchJson {
  results: Array<{ relativePath: string; content?: string; snippet?: string }>;
}

const FILES_FAILED = 4;

async function searchPaths(home: string, query: string): Promise<string[]> {
  const result = await runCliInProcess(["search", query, "--json", "--mode", "keyword"], { home });
  return json<SearchJson>(result).results.map((hit) => hit.relativePath);
}

describe("symbolic links inside _chunks/", () => {
  it("never reads a chunk file that links to a file outside into search, and reports it", async () => {
    const home = makeTempDir("home");
    const folder = makeTempDir("docs");
    const outside = makeTempDir("outside");
    const secret = writeFile(outside, "credentials", "aws_secret_access_key = wombatsecret42\n");
    writeFile(folder, "notes.txt", "The heron waits by the river.");
    writeFile(folder, "other.txt", "Otters hold hands.");
    expect((await runCliInProcess(["add", folder], { home })).code).toBe(0);

    const chunkFile = path.join(folder, "_chunks", "notes.txt.md");
    fs.rmSync(chunkFile);
    fs.symlinkSync(secret, chunkFile);
    // A link standing in for a new document's chunk file too.
    writeFile(folder, "new.txt", "A new note.");
    fs.symlinkSync(secret, path.join(folder, "_chunks", "new.txt.md"));

    const result = await runCliInProcess(["process", folder, "--json"], { home });
    expect(result.code, result.stderr).toBe(FILES_FAILED);
    const report = json<Report>(result);
    expect(report.failed.map((failure) => [failure.path, failure.code])).toEqual([["new.txt", "CHUNK_FILE_LINK"], ["notes.txt", "CHUNK_FILE_LINK"]]);
    expect(report.failed[0]?.message).toMatch(/_chunks\/new\.txt\.md is a symbolic link/);
    expect(await searchPaths(home, "wombatsecret42")).toEqual([]);
    expect(fs.readFileSync(secret, "utf8")).toBe("aws_secret_access_key = wombatsecret42\n");
    expect(fs.lstatSync(chunkFile).isSymbolicLink()).toBe(true);
  });

  it("never writes or deletes through a linked subfolder, even with --force", async () => {
    const home = makeTempDir("home");
    const folder = makeTempDir("docs");
    const outside = makeTempDir("outside");
    writeFile(folder, "sub/a.txt", "Alpha text about kestrels.");
    writeFile(folder, "sub/b.txt", "Beta text about swifts.");
    writeFile(folder, "top.txt", "Top text.");
    expect((await runCliInProcess(["add", folder], { home })).code).toBe(0);

    const precious = writeFile(outside, "a.txt.md", "precious, not Chunkpad's\n");
    const alsoPrecious = writeFile(outside, "b.txt.md", "also precious\n");
    fs.rmSync(path.join(folder, "_chunks", "sub"), { recursive: true });
    fs.symlinkSync(outside, path.join(folder, "_chunks", "sub"));

    const forced = await runCliInProcess(["process", folder, "--force", "--json"], { home });
    expect(forced.code, forced.stderr).toBe(FILES_FAILED);
    expect(json<Report>(forced).failed.map((failure) => failure.code)).toEqual(["CHUNK_FILE_LINK", "CHUNK_FILE_LINK"]);
    expect(json<Report>(forced).processed.map((file) => file.path)).toEqual(["top.txt"]);

    // A source that goes away does not delete the file behind the link either.
    fs.rmSync(path.join(folder, "sub", "b.txt"));
    const cleanup = await runCliInProcess(["process", folder, "--json"], { home });
    expect(json<Report>(cleanup).failed.map((failure) => failure.path)).toEqual(["sub/a.txt", "sub/b.txt"]);
    expect(fs.readFileSync(precious, "utf8")).toBe("precious, not Chunkpad's\n");
    expect(fs.readFileSync(alsoPrecious, "utf8")).toBe("also precious\n");
    expect(fs.readdirSync(outside).sort()).toEqual(["a.txt.md", "b.txt.md"]);
  });
});

describe("a file name with a backslash", () => {
  it("is reported while the rest of the folder is processed and recorded", async () => {
    const home = makeTempDir("home");
    const folder = makeTempDir("docs");
    writeFile(folder, "good.txt", "Herons at dawn.");
    writeFile(folder, "odd\\name.txt", "A name with a backslash.");
    writeFile(folder, "zebra.txt", "Zebras at dusk.");

    const first = await runCliInProcess(["add", folder, "--json"], { home });
    expect(first.code, first.stderr).toBe(0);
    const report = json<Report>(first);
    expect(report.processed.map((file) => file.path)).toEqual(["good.txt", "zebra.txt"]);
    expect(report.skipped).toEqual([{ relativePath: "odd\\name.txt", reason: expect.stringMatching(/backslash.*rename it/) }]);
    expect(await searchPaths(home, "zebras")).toEqual(["zebra.txt"]);

    const second = json<Report>(await runCliInProcess(["process", folder, "--json"], { home }));
    expect(second.unchanged).toEqual(["good.txt", "zebra.txt"]);
  });
});

describe("a read-only folder", () => {
  const home = makeTempDir("home");
  const folder = makeTempDir("readonly");
  writeFile(folder, "notes.txt", "Read-only herons.");
  // Root ignores permission bits, so as root the folder is made immutable (EPERM for everyone);
  // otherwise it is made read-only. Either way a real write attempt fails, as on a read-only disk.
  const asRoot = process.getuid?.() === 0;
  const lock = () => (asRoot ? execFileSync("chattr", ["+i", folder]) : fs.chmodSync(folder, 0o555));
  const unlock = () => (asRoot ? execFileSync("chattr", ["-i", folder]) : fs.chmodSync(folder, 0o755));
  afterAll(unlock);

  it("is indexed with its chunk files in the data dir, and says so", async () => {
    lock();
    expect(() => fs.writeFileSync(path.join(folder, "probe"), "x"), "the test folder must refuse writes").toThrow();
    const result = await runCliInProcess(["add", folder, "--json"], { home });
    expect(result.code, result.stderr).toBe(0);
    const report = json<Report>(result);
    expect(report.chunksInDataDir).toBe(true);
    expect(report.folder.chunksRootPath.startsWith(path.join(home, "data"))).toBe(true);
    expect(report.processed.map((file) => file.path)).toEqual(["notes.txt"]);
    expect(fs.readFileSync(path.join(report.folder.chunksRootPath, "notes.txt.md"), "utf8")).toContain("Read-only herons.");
    expect(fs.existsSync(path.join(folder, "_chunks"))).toBe(false);
    expect(await searchPaths(home, "herons")).toEqual(["notes.txt"]);

    const text = await runCliInProcess(["process", folder], { home });
    expect(text.stdout).toMatch(/the folder is read-only, so its chunk files are kept in Chunkpad's data folder/);
    expect(text.stdout).toMatch(/unchanged 1/);
  });
});

describe("exit codes", () => {
  it("exits 0 when every file was processed and 4 when some failed, and says why", async () => {
    const home = makeTempDir("home");
    const folder = makeTempDir("docs");
    writeFile(folder, "good.txt", "Good text.");
    expect((await runCliInProcess(["add", folder], { home })).code).toBe(0);

    writeFile(folder, "broken.pdf", "%PDF-1.7 this is not really a PDF");
    const failed = await runCliInProcess(["process", folder], { home });
    expect(failed.code).toBe(FILES_FAILED);
    expect(failed.stderr).toMatch(/1 file failed .*exit code 4/);

    const help = await runCliInProcess(["add", "--help"], { home });
    expect(help.stdout).toMatch(/4 the run finished but some files failed/);
  });
});

describe("adding the root of the disk or the home folder", () => {
  it("is refused without --yes when nobody can be asked", async () => {
    const home = makeTempDir("home");
    for (const target of ["/", home]) {
      const result = await runCliInProcess(["add", target], { home });
      expect(result.code).toBe(1);
      expect(result.stderr).toMatch(/Not adding .*(the root of the disk|your whole home folder).*--yes/);
    }
    expect((await runCliInProcess(["folders", "--json"], { home })).stdout).not.toMatch(/rootPath/);
  });
});

describe("a hand-edited chunk far too large", () => {
  it("is refused with a message, and the index keeps the previous text", async () => {
    const home = makeTempDir("home");
    const folder = makeTempDir("docs");
    writeFile(folder, "notes.txt", "The heron waits by the river.");
    expect((await runCliInProcess(["add", folder], { home })).code).toBe(0);
    const huge = `${"pelican ".repeat(256 * 1024)}`; // 2 MB in one chunk
    fs.writeFileSync(path.join(folder, "_chunks", "notes.txt.md"), `## Chunk 1\n${huge}\n`);

    const result = await runCliInProcess(["process", folder], { home });
    expect(result.code).toBe(FILES_FAILED);
    expect(result.stdout).toMatch(/chunk 1 of _chunks\/notes\.txt\.md holds 2\.0 MB of text, more than the 1\.0 MB a chunk may hold/);
    expect(await searchPaths(home, "pelican")).toEqual([]);
    expect(await searchPaths(home, "heron")).toEqual(["notes.txt"]);
  });
});

describe("chunkpad resolve: one file's conflict", () => {
  async function conflicted() {
    const home = makeTempDir("home");
    const folder = makeTempDir("docs");
    const source = writeFile(folder, "notes.txt", "The heron waits by the river.");
    writeFile(folder, "other.txt", "Otters.");
    writeFile(folder, "third.txt", "Kestrels hover.");
    expect((await runCliInProcess(["add", folder], { home })).code).toBe(0);
    const chunkFile = path.join(folder, "_chunks", "notes.txt.md");
    const thirdChunkFile = path.join(folder, "_chunks", "third.txt.md");
    fs.appendFileSync(chunkFile, "\nMy note: herons nest in colonies.\n");
    fs.appendFileSync(thirdChunkFile, "\nMy note on kestrels.\n");
    fs.writeFileSync(source, "The heron flew to the estuary.");
    touchLater(source);
    fs.writeFileSync(path.join(folder, "third.txt"), "Kestrels hover over fields.");
    touchLater(path.join(folder, "third.txt"));
    const result = await runCliInProcess(["process", folder], { home });
    expect(result.stdout).toMatch(new RegExp(`chunkpad resolve ${source.replace(/[.*+?^${}()|[\]\\]/g, "\\$&")} --keep-mine`));
    return { home, folder, source, chunkFile, thirdChunkFile };
  }

  it("--keep-mine keeps the edit for that file only, until the source changes again", async () => {
    const { home, folder, source, chunkFile, thirdChunkFile } = await conflicted();
    const resolved = await runCliInProcess(["resolve", source, "--keep-mine"], { home });
    expect(resolved.code, resolved.stderr).toBe(0);
    expect(resolved.stdout).toMatch(/Kept your edited chunk file for notes\.txt; if the source changes again/);

    const next = json<Report>(await runCliInProcess(["process", folder, "--json"], { home }));
    expect(next.conflicts.map((conflict) => conflict.path)).toEqual(["third.txt"]);
    expect(fs.readFileSync(chunkFile, "utf8")).toContain("herons nest in colonies");
    expect(fs.readFileSync(thirdChunkFile, "utf8")).toContain("My note on kestrels");
    expect(await searchPaths(home, "colonies")).toEqual(["notes.txt"]);

    fs.writeFileSync(source, "The heron came back.");
    touchLater(source, 10);
    const changed = json<Report>(await runCliInProcess(["process", folder, "--json"], { home }));
    expect(changed.conflicts.map((conflict) => conflict.path)).toEqual(["notes.txt", "third.txt"]);
    expect(fs.readFileSync(chunkFile, "utf8")).toContain("herons nest in colonies");
  });

  it("--take-fresh replaces that file's chunk file with fresh chunks (named by its chunk file too)", async () => {
    const { home, folder, chunkFile, thirdChunkFile } = await conflicted();
    const resolved = await runCliInProcess(["resolve", chunkFile, "--take-fresh"], { home });
    expect(resolved.code, resolved.stderr).toBe(0);
    expect(resolved.stdout).toMatch(/Replaced the chunk file of notes\.txt with fresh chunks/);
    expect(fs.readFileSync(chunkFile, "utf8")).toContain("The heron flew to the estuary.");
    expect(fs.readFileSync(chunkFile, "utf8")).not.toContain("colonies");
    expect(fs.readFileSync(thirdChunkFile, "utf8")).toContain("My note on kestrels");
    expect(await searchPaths(home, "estuary")).toEqual(["notes.txt"]);

    const next = json<Report>(await runCliInProcess(["process", folder, "--json"], { home }));
    expect(next.conflicts.map((conflict) => conflict.path)).toEqual(["third.txt"]);
  });

  it("asks for exactly one choice", async () => {
    const home = makeTempDir("home");
    const result = await runCliInProcess(["resolve", "/tmp/x.txt"], { home });
    expect(result.code).toBe(1);
    expect(result.stderr).toMatch(/--keep-mine .* or --take-fresh/);
  });
});
