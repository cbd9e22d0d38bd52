import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { embedTextHash } from "../../core/chunk-ref.js";
import { ChunkpadError } from "../../core/errors.js";
import { DEFAULT_CHUNKING, DEFAULT_PARSE_LIMITS, type ParsedDocument } from "../../core/types.js";
import type { ParseJob, ParseRunner } from "../../ingest/parse-runner.js";
import { openMainStore, type MainStore } from "../../store/index.js";
import { processFolder, type ProcessContext } from "./process-folder.js";

/**
 * processFolder with a parse runner that does what a real world does to a run: files that
 * change, vanish or get saved while they are parsed, and parsers that time out. The runner is
 * passed in (the ProcessContext seam), so no module is mocked; files and SQLite are real.
 */

type Hook = (job: ParseJob) => void | Promise<void>;

/** Reads the file as text, like the text parser, after running the hook for that file (once). */
function createFakeRunner(hooks: Map<string, Hook> = new Map()) {
  const parsed: string[] = [];
  const runner: ParseRunner = {
    async parse(job) {
      const name = path.basename(job.path);
      parsed.push(name);
      const text = fs.readFileSync(job.path, "utf8");
      const hook = hooks.get(name);
      hooks.delete(name);
      await hook?.(job);
      const document: ParsedDocument = { title: name, blocks: [{ kind: "paragraph", text }], warnings: [] };
      return document;
    },
    async close() {},
  };
  return { runner, parsed, hooks };
}

let store: MainStore | undefined;
afterEach(async () => {
  await store?.close();
  store = undefined;
});

function setup(files: Record<string, string>) {
  const home = fs.mkdtempSync(path.join(os.tmpdir(), "chunkpad-process-home-"));
  const folder = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), "chunkpad-process-docs-")));
  for (const [name, text] of Object.entries(files)) fs.writeFileSync(path.join(folder, name), text);
  store = openMainStore({ path: path.join(home, "chunkpad.db") });
  const fake = createFakeRunner();
  const context: ProcessContext = {
    store,
    runner: fake.runner,
    chunking: DEFAULT_CHUNKING,
    limits: DEFAULT_PARSE_LIMITS,
    maxFileSizeBytes: 10 * 1024 * 1024,
    concurrency: 1,
    fallbackChunksRoot: (folderId) => path.join(home, "chunks", folderId),
  };
  const texts = async () => (await store!.listChunks()).map((chunk) => chunk.content).join("\n");
  const later = (name: string) => {
    const file = path.join(folder, name);
    const mtime = new Date(fs.statSync(file).mtimeMs + 5000);
    fs.utimesSync(file, mtime, mtime);
  };
  return { folder, context, fake, texts, later };
}

describe("processFolder when the world changes during a run", () => {
  it("indexes a snapshot of a source that changed while it was parsed, never recording it as a version it is not", async () => {
    const { folder, context, fake, texts } = setup({ "notes.txt": "The heron waits by the river." });
    const notes = path.join(folder, "notes.txt");
    // Changed while parsed, and again while its snapshot is parsed (a log appended to all the time).
    fake.hooks.set("notes.txt", () => {
      fs.appendFileSync(notes, " The otter swims past.");
      fake.hooks.set("notes.txt", () => fs.appendFileSync(notes, " A kingfisher dives."));
    });

    const first = await processFolder(context, folder);
    expect(first.processed.map((file) => file.path)).toEqual(["notes.txt"]);
    expect(await texts()).toContain("The otter swims past.");
    expect(await texts()).not.toContain("kingfisher");

    // The snapshot was recorded as what it was: the newer file is read again.
    const second = await processFolder(context, folder);
    expect(second.processed.map((file) => file.path)).toEqual(["notes.txt"]);
    expect(await texts()).toContain("A kingfisher dives.");
    expect((await processFolder(context, folder)).unchanged).toEqual(["notes.txt"]);
  });

  it("forgets a source deleted while it was parsed: not searchable, chunk file gone", async () => {
    const { folder, context, fake, texts, later } = setup({ "notes.txt": "The heron waits by the river.", "other.txt": "Otters play." });
    await processFolder(context, folder);
    fs.appendFileSync(path.join(folder, "notes.txt"), " More herons.");
    later("notes.txt");
    fake.hooks.set("notes.txt", (job) => fs.rmSync(job.path));

    const report = await processFolder(context, folder);
    expect(report.removed).toEqual(["notes.txt"]);
    expect(await texts()).not.toContain("heron");
    expect(fs.existsSync(path.join(folder, "_chunks", "notes.txt.md"))).toBe(false);
    expect(await texts()).toContain("Otters play.");
  });

  it("never overwrites a chunk file the user saves while its source is re-chunked", async () => {
    const { folder, context, fake, texts, later } = setup({ "notes.txt": "The heron waits by the river." });
    await processFolder(context, folder);
    fs.writeFileSync(path.join(folder, "notes.txt"), "The heron flew away.");
    later("notes.txt");
    const chunkFile = path.join(folder, "_chunks", "notes.txt.md");
    const mine = "## Chunk 1\nMy own words about the heron, saved mid-run.\n";
    fake.hooks.set("notes.txt", () => fs.writeFileSync(chunkFile, mine));

    const report = await processFolder(context, folder);
    expect(report.conflicts).toMatchObject([{ path: "notes.txt" }]);
    expect(report.conflicts[0]?.message).toMatch(/saved while Chunkpad re-chunked/);
    expect(report.conflicts[0]?.nextSteps).toEqual([{ action: "resolve-conflict", source: expect.stringMatching(/\S/) }]);
    expect(fs.readFileSync(chunkFile, "utf8")).toBe(mine);

    // The next run treats it as any conflict: the edit stays and is what the index holds.
    const next = await processFolder(context, folder);
    expect(next.conflicts.map((conflict) => conflict.path)).toEqual(["notes.txt"]);
    expect(fs.readFileSync(chunkFile, "utf8")).toBe(mine);
    expect(await texts()).toContain("saved mid-run");
  });
});

describe("processFolder's order", () => {
  it("starts the files that may take seconds (PDFs) first, the largest first, and tells the runner so", async () => {
    const { folder, context, fake } = setup({ "a-note.md": "short", "b-long-note.md": "words ".repeat(400), "c-small.pdf": "a page", "d-large.pdf": "pages ".repeat(200) });
    const slow: string[] = [];
    context.runner = { ...fake.runner, parse: (job) => (job.mayTakeSeconds && slow.push(path.basename(job.path)), fake.runner.parse(job)) };
    const report = await processFolder(context, folder);
    expect(fake.parsed).toEqual(["d-large.pdf", "c-small.pdf", "b-long-note.md", "a-note.md"]);
    expect(slow).toEqual(["d-large.pdf", "c-small.pdf"]);
    // Reported in path order all the same.
    expect(report.processed.map((file) => file.path)).toEqual(["a-note.md", "b-long-note.md", "c-small.pdf", "d-large.pdf"]);
  });
});

describe("processFolder caches only failures that recur", () => {
  it("retries a timed-out file next run, and does not re-parse the files that were fine", async () => {
    const { folder, context, fake } = setup({ "a.txt": "Alpha.", "b.txt": "Beta.", "slow.txt": "Slow." });
    fake.hooks.set("slow.txt", () => {
      throw new ChunkpadError("PARSE_TIMEOUT", "parsing took longer than 1 s");
    });
    const first = await processFolder(context, folder);
    expect(first.failed).toMatchObject([{ path: "slow.txt", code: "PARSE_TIMEOUT", retried: true }]);

    fake.parsed.length = 0;
    const second = await processFolder(context, folder);
    expect(fake.parsed).toEqual(["slow.txt"]);
    expect(second.processed.map((file) => file.path)).toEqual(["slow.txt"]);
    expect(second.unchanged).toEqual(["a.txt", "b.txt"]);
  });

  it("does not re-parse the whole folder after a file was cancelled (as a parser stopped by its time limit reports)", async () => {
    const { folder, context, fake } = setup({ "a.txt": "Alpha.", "b.txt": "Beta." });
    fake.hooks.set("b.txt", () => {
      throw new ChunkpadError("CANCELLED", "cancelled while reading");
    });
    await processFolder(context, folder);
    fake.parsed.length = 0;
    await processFolder(context, folder);
    expect(fake.parsed).toEqual(["b.txt"]);
    fake.parsed.length = 0;
    await processFolder(context, folder);
    expect(fake.parsed).toEqual([]);
  });

  it("on a run where nothing changed, still takes in a hand edit that keeps the chunk file's size, even one saved over it with the old time", async () => {
    const { folder, context, fake, texts } = setup({ "a.txt": "The heron waits by the river.", "b.txt": "Otters hold hands." });
    await processFolder(context, folder);
    const quiet = await processFolder(context, folder);
    expect(quiet.unchanged).toEqual(["a.txt", "b.txt"]);

    const chunkA = path.join(folder, "_chunks", "a.txt.md");
    fs.writeFileSync(chunkA, fs.readFileSync(chunkA, "utf8").replace("heron", "egret"));
    // An editor that saves to a new file and renames it over the old one, keeping size and time.
    const chunkB = path.join(folder, "_chunks", "b.txt.md");
    const before = fs.statSync(chunkB);
    const saved = path.join(folder, "_chunks", ".b.txt.md.swp");
    fs.writeFileSync(saved, fs.readFileSync(chunkB, "utf8").replace("Otters", "Beaver"));
    fs.utimesSync(saved, before.atime, before.mtime);
    fs.renameSync(saved, chunkB);
    fake.parsed.length = 0;

    const next = await processFolder(context, folder);
    expect(fake.parsed).toEqual([]);
    expect(next.editsSynced.map((edit) => edit.path)).toEqual(["a.txt", "b.txt"]);
    expect(await texts()).toContain("The egret waits by the river.");
    expect(await texts()).toContain("Beaver hold hands.");
    expect((await processFolder(context, folder)).unchanged).toEqual(["a.txt", "b.txt"]);
  });

  it("processes two folders at once on one store (one server), each run's files all recorded and reported done", async () => {
    const { folder, context } = setup({ "a.txt": "Alpha.", "b.txt": "Beta." });
    const other = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), "chunkpad-process-other-")));
    for (const name of ["c.txt", "d.txt", "e.txt"]) fs.writeFileSync(path.join(other, name), `Text of ${name}.`);
    const finalDone: number[] = [];
    const track = (index: number) => (progress: { phase: string; done: number }) => {
      if (progress.phase === "done") finalDone[index] = progress.done;
    };
    const [first, second] = await Promise.all([processFolder(context, folder, { onProgress: track(0) }), processFolder(context, other, { onProgress: track(1) })]);
    expect(first.processed.map((file) => file.path)).toEqual(["a.txt", "b.txt"]);
    expect(second.processed.map((file) => file.path)).toEqual(["c.txt", "d.txt", "e.txt"]);
    expect(finalDone).toEqual([2, 3]);
    expect((await store!.listDocuments()).length).toBe(5);
  });

  it("after a first run stopped midway (Ctrl-C), parses only what was not done", async () => {
    // Files of one size are started in path order (larger ones would go first).
    const { folder, context, fake } = setup({ "a.txt": "Alpha.", "b.txt": "Bravo.", "c.txt": "Gamma." });
    const controller = new AbortController();
    fake.hooks.set("b.txt", () => controller.abort());
    await expect(processFolder(context, folder, { signal: controller.signal })).rejects.toMatchObject({ code: "CANCELLED" });
    fake.parsed.length = 0;
    const next = await processFolder(context, folder);
    expect(fake.parsed).toEqual(["c.txt"]);
    expect(next.unchanged).toEqual(["a.txt", "b.txt"]);
  });

  it("retries a file it could not read, and keeps a broken file's failure until it changes", async () => {
    const { folder, context, fake } = setup({ "locked.txt": "Locked.", "broken.txt": "Broken." });
    fake.hooks.set("locked.txt", () => {
      throw new ChunkpadError("SOURCE_UNREADABLE", "cannot be read (EACCES)");
    });
    fake.hooks.set("broken.txt", () => {
      throw new ChunkpadError("PARSE_MALFORMED", "damaged");
    });
    await processFolder(context, folder);
    fake.parsed.length = 0;
    const second = await processFolder(context, folder);
    expect(fake.parsed).toEqual(["locked.txt"]);
    expect(second.failed).toMatchObject([{ path: "broken.txt", unchangedSinceFailure: true }]);
  });

  it("skips a document with nothing to index, with its reason, and does not parse it again until it changes", async () => {
    const { folder, context, fake } = setup({ "empty.txt": "", "pictures.txt": "only pictures", "good.txt": "Good text." });
    fake.hooks.set("pictures.txt", () => {
      throw new ChunkpadError("PARSE_EMPTY", "The Word document has no text (it is empty or holds only pictures); there is nothing to index.");
    });
    const first = await processFolder(context, folder);
    expect(first.failed).toEqual([]);
    expect(first.processed.map((file) => file.path)).toEqual(["good.txt"]);
    expect(first.skipped).toEqual([
      { relativePath: "empty.txt", reason: "no text found in the document" },
      { relativePath: "pictures.txt", reason: expect.stringMatching(/holds only pictures/) },
    ]);
    fake.parsed.length = 0;
    const second = await processFolder(context, folder);
    expect(fake.parsed).toEqual([]);
    expect(second.failed).toEqual([]);
    expect(second.skipped.map((skip) => skip.relativePath)).toEqual(["empty.txt", "pictures.txt"]);
    fs.writeFileSync(path.join(folder, "empty.txt"), "Now it has words.");
    const third = await processFolder(context, folder);
    expect(third.processed.map((file) => file.path)).toEqual(["empty.txt"]);
    expect(third.skipped.map((skip) => skip.relativePath)).toEqual(["pictures.txt"]);
  });

  it("goes on with the other files when one cannot be recorded", async () => {
    const { folder, context } = setup({ "good.txt": "Good text." });
    fs.writeFileSync(path.join(folder, "odd\\name.txt"), "A name with a backslash.");
    const report = await processFolder(context, folder);
    expect(report.processed.map((file) => file.path)).toEqual(["good.txt"]);
    expect(report.skipped).toMatchObject([{ relativePath: "odd\\name.txt", reason: expect.stringMatching(/backslash/) }]);
  });
});

describe("processFolder when files are renamed or moved", () => {
  const chunkFile = (folder: string, relativePath: string) => path.join(folder, "_chunks", `${relativePath}.md`);

  it("moves a renamed file's document, review decisions and vectors without parsing it again", async () => {
    const { folder, context, fake } = setup({ "heron.txt": "The heron waits by the river.", "owl.txt": "The owl hunts at night." });
    const first = await processFolder(context, folder);
    const [chunk] = await store!.listChunks({ relativePath: "heron.txt" });
    await store!.setIncluded([chunk!.ref], false);
    if (store!.vectorAvailable) {
      await store!.ensureVectorTable(2);
      await store!.upsertVectors([{ ref: chunk!.ref, embedHash: embedTextHash(chunk!), embedding: new Float32Array([1, 0]) }], "model");
    }
    fs.mkdirSync(path.join(folder, "birds"));
    fs.renameSync(path.join(folder, "heron.txt"), path.join(folder, "birds", "heron.txt"));
    fake.parsed.length = 0;

    const report = await processFolder(context, folder);
    expect(report.renamed).toEqual([{ from: "heron.txt", to: "birds/heron.txt" }]);
    expect(report.removed).toEqual([]);
    expect(report.processed).toEqual([]);
    expect(fake.parsed).toEqual([]);
    const [moved] = await store!.listChunks({ relativePath: "birds/heron.txt" });
    expect(moved).toMatchObject({ content: "The heron waits by the river.", included: false, ref: `${first.folder.id}:birds/heron.txt#1` });
    expect(await store!.listChunks({ relativePath: "heron.txt" })).toEqual([]);
    if (store!.vectorAvailable) expect((await store!.embedState(first.folder.id)).find((row) => row.ref === moved!.ref)?.embeddedHash).toBe(embedTextHash(moved!));
    // The chunk file moved too, naming its new source; the old one is gone.
    expect(fs.existsSync(chunkFile(folder, "heron.txt"))).toBe(false);
    expect(fs.readFileSync(chunkFile(folder, "birds/heron.txt"), "utf8")).toContain('source="birds/heron.txt"');
    // Nothing is left to do: the next run finds everything unchanged.
    const third = await processFolder(context, folder);
    expect(third.unchanged).toEqual(["birds/heron.txt", "owl.txt"]);
    expect(third.renamed).toEqual([]);
  });

  it("finds a rename that happens while the folder is walked (the file listed at both paths)", async () => {
    const { folder, context, fake } = setup({ "heron.txt": "The heron waits by the river.", "owl.txt": "The owl hunts at night." });
    await processFolder(context, folder);
    const [chunk] = await store!.listChunks({ relativePath: "heron.txt" });
    await store!.setIncluded([chunk!.ref], false);
    // The walk lists the old path and the new one; the move finishes right after it.
    fs.mkdirSync(path.join(folder, "birds"));
    fs.copyFileSync(path.join(folder, "heron.txt"), path.join(folder, "birds", "heron.txt"));
    fake.parsed.length = 0;
    const report = await processFolder(context, folder, {
      onProgress: (progress) => {
        if (progress.phase === "scan" && progress.total > 0) fs.rmSync(path.join(folder, "heron.txt"), { force: true });
      },
    });
    expect(report.renamed).toEqual([{ from: "heron.txt", to: "birds/heron.txt" }]);
    expect(report.processed).toEqual([]);
    expect(report.removed).toEqual([]);
    expect(report.failed).toEqual([]);
    expect(fake.parsed).toEqual([]);
    expect((await store!.listChunks({ relativePath: "birds/heron.txt" }))[0]).toMatchObject({ included: false });
  });

  it("keeps an edited chunk file as the user left it when its source is renamed", async () => {
    const { folder, context, texts } = setup({ "heron.txt": "The heron waits by the river." });
    await processFolder(context, folder);
    const edited = fs.readFileSync(chunkFile(folder, "heron.txt"), "utf8").replace("waits", "stands still");
    fs.writeFileSync(chunkFile(folder, "heron.txt"), edited);
    fs.renameSync(path.join(folder, "heron.txt"), path.join(folder, "grey-heron.txt"));
    const report = await processFolder(context, folder);
    expect(report.renamed).toEqual([{ from: "heron.txt", to: "grey-heron.txt" }]);
    expect(fs.readFileSync(chunkFile(folder, "grey-heron.txt"), "utf8")).toBe(edited);
    expect(await texts()).toBe("The heron stands still by the river.");
  });

  it("treats a renamed and changed file, or two vanished copies of one file, as delete and add", async () => {
    const { folder, context } = setup({ "a.txt": "Same words.", "b.txt": "Same words.", "c.txt": "Old words." });
    await processFolder(context, folder);
    fs.renameSync(path.join(folder, "a.txt"), path.join(folder, "a2.txt"));
    fs.rmSync(path.join(folder, "b.txt"));
    fs.rmSync(path.join(folder, "c.txt"));
    fs.writeFileSync(path.join(folder, "c2.txt"), "New words.");
    const report = await processFolder(context, folder);
    expect(report.renamed).toEqual([]);
    expect(report.removed).toEqual(["a.txt", "b.txt", "c.txt"]);
    expect(report.processed.map((file) => file.path)).toEqual(["a2.txt", "c2.txt"]);
  });
});
