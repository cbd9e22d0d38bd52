import fs from "node:fs";
import path from "node:path";
import { beforeAll, describe, expect, it } from "vitest";
import { json, makeTempDir, ON_POSTGRES, SHARED, touchLater, writeFile } from "./helpers/cli.js";
import { runCliInProcess } from "./helpers/cli-in-process.js";
import { openHomeStore } from "./helpers/store.js";

interface Report {
  folder: { id: string; rootPath: string; chunksRootPath: string };
  processed: Array<{ path: string; format: string; chunks: number; pages?: number }>;
  unchanged: string[];
  editsSynced: Array<{ path: string; chunks: number }>;
  skipped: Array<{ relativePath: string; reason: string }>;
  failed: Array<{ path: string; code: string; message: string; unchangedSinceFailure: boolean }>;
  conflicts: Array<{ path: string; chunkFile: string; message: string; nextSteps: Array<{ action: string; source?: string }> }>;
  removed: string[];
  chunksWritten: number;
}

const PDFS = path.join(SHARED, "corpus/pdf.js/pdfs");

/** Keyword hits straight from the store's index (either backend), to see what `add` put there. */
async function ftsHits(home: string, word: string): Promise<string[]> {
  const store = await openHomeStore(home);
  try {
    const hits = await store.keywordSearch({ terms: [{ word, prefix: false }], match: "all", phrases: [], exclude: [] }, { limit: 100 });
    return hits.map((hit) => hit.chunk.ref).sort();
  } finally {
    await store.close();
  }
}

describe("chunkpad add / process: Step 1 on a real folder", () => {
  const home = makeTempDir("home");
  const folder = makeTempDir("docs");
  let first: Report;

  beforeAll(async () => {
    writeFile(folder, "notes.md", "# Field notes\n\nThe heron waits by the river.\n\n## Weather\n\nRain all week, the river rose.\n");
    writeFile(folder, "report.txt", "Quarterly report.\n\nRevenue grew in the northern region thanks to the aardvark campaign.\n");
    writeFile(folder, "sub/page.html", "<html><head><title>Garden</title></head><body><nav>Home | About</nav><main><h1>Tomatoes</h1><p>Tomatoes need full sun and steady watering to ripen well.</p><h2>Pests</h2><p>Aphids gather under the leaves in early summer.</p></main></body></html>");
    fs.copyFileSync(path.join(PDFS, "file_pdfjs_test.pdf"), path.join(folder, "manual.pdf"));
    fs.copyFileSync(path.join(PDFS, "issue6010_1.pdf"), path.join(folder, "locked.pdf"));
    writeFile(folder, "broken.pdf", "%PDF-1.7\nthis is not really a pdf\n");
    writeFile(folder, "empty.txt", "");
    // Binary (PNG signature and NULs): an unknown extension is read only when its content is text.
    writeFile(folder, "picture.xyz", new Uint8Array([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 0, 0, 0, 0x0d, 0x49, 0x48, 0x44, 0x52]));
    writeFile(folder, ".hidden/secret.txt", "hidden text");
    writeFile(folder, ".dotfile.txt", "hidden text");
    fs.symlinkSync("/etc", path.join(folder, "outside-link"));

    const result = await runCliInProcess(["add", folder, "--json"], { home });
    expect(result.code, result.stderr).toBe(4); // finished, but some files failed (they are listed)
    first = json<Report>(result);
  });

  it("processes every supported document into a chunk file under _chunks/", () => {
    expect(first.processed.map((file) => file.path).sort()).toEqual(["manual.pdf", "notes.md", "report.txt", "sub/page.html"]);
    for (const file of first.processed) {
      const chunkFile = path.join(folder, "_chunks", `${file.path}.md`);
      expect(fs.existsSync(chunkFile), chunkFile).toBe(true);
      expect(fs.readFileSync(chunkFile, "utf8")).toMatch(/^## Chunk 1$/m);
    }
    expect(first.chunksWritten).toBe(first.processed.reduce((sum, file) => sum + file.chunks, 0));
  });

  it("reports broken and encrypted files as failures and empty and unsupported ones as skips, with reasons, and skips hidden ones and links that leave the folder", () => {
    const failures = Object.fromEntries(first.failed.map((failure) => [failure.path, failure.code]));
    expect(failures).toEqual({ "broken.pdf": "PARSE_MALFORMED", "locked.pdf": "PARSE_ENCRYPTED" });
    expect(first.failed.find((failure) => failure.path === "locked.pdf")?.message).toMatch(/password/i);
    const skipped = Object.fromEntries(first.skipped.map((skip) => [skip.relativePath, skip.reason]));
    expect(skipped["empty.txt"]).toBe("empty file (0 bytes)");
    expect(skipped["picture.xyz"]).toMatch(/unsupported/);
    expect(skipped["outside-link"]).toMatch(/leaves the folder/);
    const everything = JSON.stringify(first);
    expect(everything).not.toContain("secret.txt");
    expect(everything).not.toContain(".dotfile.txt");
  });

  it("keeps page numbers and headings in the chunk metadata", () => {
    const pdfChunks = fs.readFileSync(path.join(folder, "_chunks", "manual.pdf.md"), "utf8");
    const pages = [...pdfChunks.matchAll(/page=(\d+)/g)].map((match) => Number(match[1]));
    expect(pages[0]).toBe(1);
    expect(Math.max(...pages)).toBeGreaterThan(1);
    expect(fs.readFileSync(path.join(folder, "_chunks", "notes.md.md"), "utf8")).toMatch(/section="(Field notes|Weather)"/);
    expect(fs.readFileSync(path.join(folder, "_chunks", "sub", "page.html.md"), "utf8")).toContain("Tomatoes need full sun");
    expect(fs.readFileSync(path.join(folder, "_chunks", "sub", "page.html.md"), "utf8")).not.toContain("Home | About");
  });

  it("puts chunk text into the keyword index right away", async () => {
    expect(await ftsHits(home, "aardvark")).toEqual([`${first.folder.id}:report.txt#1`]);
  });

  it("opens an encrypted PDF when given the password on stdin", async () => {
    const result = await runCliInProcess(["process", folder, "--password-stdin", "--json"], { home, input: "abc\n" });
    const report = json<Report>(result);
    expect(report.processed.map((file) => file.path)).toContain("locked.pdf");
    expect(report.failed.map((failure) => failure.path)).not.toContain("locked.pdf");
  });

  it("skips everything on a second run when nothing changed", async () => {
    const report = json<Report>(await runCliInProcess(["process", folder, "--json"], { home }));
    expect(report.processed).toEqual([]);
    expect(report.chunksWritten).toBe(0);
    expect(report.unchanged.sort()).toEqual(["locked.pdf", "manual.pdf", "notes.md", "report.txt", "sub/page.html"]);
    expect(report.failed.every((failure) => failure.unchangedSinceFailure)).toBe(true);
  });

  it("takes a hand edit of a chunk file into the index, then keeps it when the source changes too", async () => {
    const chunkFile = path.join(folder, "_chunks", "report.txt.md");
    const edited = fs.readFileSync(chunkFile, "utf8").replace("aardvark campaign", "pangolin campaign");
    fs.writeFileSync(chunkFile, edited);

    const afterEdit = json<Report>(await runCliInProcess(["process", folder, "--json"], { home }));
    expect(afterEdit.editsSynced.map((edit) => edit.path)).toEqual(["report.txt"]);
    expect(await ftsHits(home, "pangolin")).toEqual([`${afterEdit.folder.id}:report.txt#1`]);
    expect(await ftsHits(home, "aardvark")).toEqual([]);

    const source = writeFile(folder, "report.txt", "Quarterly report, revised.\n\nRevenue grew in the southern region thanks to the aardvark campaign.\n");
    touchLater(source);
    const conflict = json<Report>(await runCliInProcess(["process", folder, "--json"], { home }));
    expect(conflict.conflicts.map((item) => item.path)).toEqual(["report.txt"]);
    expect(conflict.conflicts[0]?.nextSteps).toEqual([{ action: "resolve-conflict", source: expect.stringMatching(/report\.txt$/) }]);
    expect(fs.readFileSync(chunkFile, "utf8")).toBe(edited);

    const again = json<Report>(await runCliInProcess(["process", folder, "--json"], { home }));
    expect(again.conflicts.map((item) => item.path)).toEqual(["report.txt"]);

    const forced = json<Report>(await runCliInProcess(["process", folder, "--force", "--json"], { home }));
    expect(forced.conflicts).toEqual([]);
    expect(forced.processed.map((file) => file.path)).toContain("report.txt");
    expect(fs.readFileSync(chunkFile, "utf8")).toContain("southern region");
    expect(await ftsHits(home, "southern")).toEqual([`${forced.folder.id}:report.txt#1`]);
  });

  it("re-chunks a changed source and removes the chunk file of a deleted one", async () => {
    const notes = writeFile(folder, "notes.md", "# Field notes\n\nThe heron left; a kingfisher arrived.\n");
    touchLater(notes);
    fs.rmSync(path.join(folder, "sub", "page.html"));
    const report = json<Report>(await runCliInProcess(["process", folder, "--json"], { home }));
    expect(report.processed.map((file) => file.path)).toEqual(["notes.md"]);
    expect(report.removed).toEqual(["sub/page.html"]);
    expect(fs.existsSync(path.join(folder, "_chunks", "sub", "page.html.md"))).toBe(false);
    expect(fs.readFileSync(path.join(folder, "_chunks", "notes.md.md"), "utf8")).toContain("kingfisher");
    expect(await ftsHits(home, "tomatoes")).toEqual([]);
    expect(await ftsHits(home, "heron")).toHaveLength(1);
  });

  it("lists folders and the chunk tree, as text and as JSON", async () => {
    const folders = json<Array<{ rootPath: string; documentCount: number; storedChunkCount: number }>>(await runCliInProcess(["folders", "--json"], { home }));
    expect(folders).toHaveLength(1);
    expect(folders[0]?.rootPath).toBe(fs.realpathSync(folder));
    expect(folders[0]?.documentCount).toBe(4);

    const tree = json<{ fileCount: number; chunkCount: number }>(await runCliInProcess(["chunks", folder, "--json"], { home }));
    expect(tree.fileCount).toBe(4);
    expect(tree.chunkCount).toBe(folders[0]?.storedChunkCount);

    const text = await runCliInProcess(["chunks", folder], { home });
    expect(text.code).toBe(0);
    expect(text.stdout).toMatch(/manual\.pdf\.md\s+\d+ chunks?/);
    // A file that could not be read is in the tree with why, though it has no chunk file.
    expect(text.stdout).toMatch(/broken\.pdf\s+0 chunks\s+\(failed: /);
  });

  it("remembers chunk settings per folder and re-chunks when they change", async () => {
    const report = json<Report>(await runCliInProcess(["process", folder, "--chunk-size", "64", "--overlap", "8", "--json"], { home }));
    expect(report.processed.length).toBeGreaterThanOrEqual(3);
    const small = json<Report>(await runCliInProcess(["process", folder, "--json"], { home }));
    expect(small.processed).toEqual([]);
    const bad = await runCliInProcess(["process", folder, "--chunk-size", "50", "--overlap", "60"], { home });
    expect(bad.code).toBe(1);
    expect(bad.stderr).toMatch(/overlap/i);
    const zero = await runCliInProcess(["process", folder, "--chunk-size", "0"], { home });
    expect(zero.code).toBe(1);
    expect(zero.stderr).toMatch(/chunk size of 0 tokens is too small/);
    const huge = await runCliInProcess(["process", folder, "--chunk-size", "100000", "--json"], { home });
    expect(huge.code).toBe(1);
    expect(huge.stderr).toMatch(/chunk size of 100000 tokens is too large/);
  });
});

describe("chunkpad CLI basics", () => {
  const home = makeTempDir("home-basics");

  it("prints --help for every verb and sub-verb it lists", async () => {
    /** The commands a help text lists under "Commands:", without "help" itself. */
    const listed = (help: string) =>
      [...(help.split("Commands:")[1] ?? "").matchAll(/^ {2}([a-z-]+)/gm)].map((match) => match[1] ?? "").filter((name) => name !== "help");
    const verbs = listed((await runCliInProcess(["--help"], { home })).stdout);
    expect(verbs).toEqual(expect.arrayContaining(["add", "process", "folders", "chunks", "config"]));
    for (const verb of verbs) {
      const result = await runCliInProcess([verb, "--help"], { home });
      expect(result.code, verb).toBe(0);
      expect(result.stdout).toMatch(new RegExp(`^Usage: chunkpad ${verb}\\b`));
      for (const subVerb of listed(result.stdout)) {
        const sub = await runCliInProcess([verb, subVerb, "--help"], { home });
        expect(sub.code, `${verb} ${subVerb}`).toBe(0);
        expect(sub.stdout).toMatch(new RegExp(`^Usage: chunkpad ${verb} ${subVerb}\\b`));
      }
    }
  }, 180_000); // about 30 CLI starts, one after another

  it("explains a missing folder instead of crashing", async () => {
    const result = await runCliInProcess(["add", path.join(home, "no-such-folder")], { home });
    expect(result.code).toBe(1);
    expect(result.stderr).toMatch(/is not a folder/);
    expect(result.stderr).not.toMatch(/at .*\.js:\d+/);
  });

  it("keeps all state under CHUNKPAD_HOME", async () => {
    const docs = makeTempDir("docs-basics");
    writeFile(docs, "a.txt", "Some words worth keeping.");
    expect((await runCliInProcess(["add", docs], { home })).code).toBe(0);
    // The store is there too, unless it is a PostgreSQL server's: then no SQLite file is made beside it.
    expect(fs.existsSync(path.join(home, "data", "chunkpad.db"))).toBe(!ON_POSTGRES);
    const paths = await runCliInProcess(["config", "path"], { home });
    for (const line of paths.stdout.trim().split("\n")) expect(line.split(": ")[1]?.startsWith(home)).toBe(true);
  });

  it("validates config values", async () => {
    expect((await runCliInProcess(["config", "set", "search.minScore", "0.3"], { home })).code).toBe(0);
    expect((await runCliInProcess(["config", "get", "search.minScore"], { home })).stdout.trim()).toBe("0.3");
    const bad = await runCliInProcess(["config", "set", "search.minScore", "lots"], { home });
    expect(bad.code).toBe(1);
    expect(bad.stderr).toMatch(/search\.minScore/);
  });
});

describe("chunkpad remove", () => {
  it("forgets a folder (search no longer finds it) and keeps its chunk files unless asked", async () => {
    const home = makeTempDir("home-remove");
    const docs = makeTempDir("docs-remove");
    writeFile(docs, "a.txt", "The okapi lives in the rainforest.");
    expect((await runCliInProcess(["add", docs], { home })).code).toBe(0);
    expect(await ftsHits(home, "okapi")).toHaveLength(1);

    const removed = await runCliInProcess(["remove", docs], { home });
    expect(removed.code, removed.stderr).toBe(0);
    expect(removed.stdout).toMatch(/Kept .*_chunks/);
    expect(await ftsHits(home, "okapi")).toEqual([]);
    expect(json<unknown[]>(await runCliInProcess(["folders", "--json"], { home }))).toEqual([]);
    expect(fs.existsSync(path.join(docs, "_chunks", "a.txt.md"))).toBe(true);
    expect(fs.existsSync(path.join(docs, "a.txt"))).toBe(true);

    const again = await runCliInProcess(["remove", docs], { home });
    expect(again.code).toBe(1);
    expect(again.stderr).toMatch(/has not been added/);

    expect((await runCliInProcess(["add", docs], { home })).code).toBe(0);
    const deleted = await runCliInProcess(["remove", docs, "--delete-chunks"], { home });
    expect(deleted.code).toBe(0);
    expect(fs.existsSync(path.join(docs, "_chunks"))).toBe(false);
    expect(fs.existsSync(path.join(docs, "a.txt"))).toBe(true);
  });
});
