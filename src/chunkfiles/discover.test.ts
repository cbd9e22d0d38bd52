import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { isChunkpadError } from "../core/errors.js";
import type { ChunkDraft } from "../core/types.js";
import { discoverChunkFiles, readChunkFile, removeChunkFile, writeChunkFile } from "./discover.js";
import { hashText } from "./hash.js";
import { chunkFilePathFor } from "./paths.js";

let root: string;
beforeEach(() => {
  root = fs.mkdtempSync(path.join(os.tmpdir(), "chunkpad-chunkfiles-"));
});
afterEach(() => {
  fs.rmSync(root, { recursive: true, force: true });
});

const chunks: ChunkDraft[] = [
  { content: "First chunk about rivers.", meta: { page: 1, charStart: 0, charEnd: 25, section: "Rivers" } },
  { content: "## Chunk 2 is a line of content\nSecond.", meta: { page: 2 } },
];

describe("writeChunkFile and readChunkFile", () => {
  it("writes a file that reads back as the same chunks, creating directories", async () => {
    const file = chunkFilePathFor(root, "deep/er/report.pdf");
    const written = await writeChunkFile(file, chunks, { source: "deep/er/report.pdf" });
    const read = await readChunkFile(file);
    expect(read.chunks).toEqual(chunks);
    expect(read.source).toBe("deep/er/report.pdf");
    expect(read.fileHash).toBe(written.fileHash);
    expect(written.bytes).toBe(fs.statSync(file).size);
  });

  it("replaces an existing file whole and leaves no temporary files", async () => {
    const file = chunkFilePathFor(root, "notes.txt");
    await writeChunkFile(file, chunks);
    await writeChunkFile(file, [{ content: "Only one now.", meta: {} }]);
    expect((await readChunkFile(file)).chunks).toEqual([{ content: "Only one now.", meta: {} }]);
    expect(fs.readdirSync(path.dirname(file))).toEqual(["notes.txt.md"]);
  });

  it("gives a different file hash once the user edits the file", async () => {
    const file = chunkFilePathFor(root, "notes.txt");
    const written = await writeChunkFile(file, chunks);
    fs.appendFileSync(file, "\nA note the user added.\n");
    const read = await readChunkFile(file);
    expect(read.fileHash).not.toBe(written.fileHash);
    expect(read.fileHash).toBe(hashText(fs.readFileSync(file, "utf8")));
    expect(read.chunks.at(-1)?.content).toBe("## Chunk 2 is a line of content\nSecond.\n\nA note the user added.");
  });

  it("reads a file saved with CRLF line endings", async () => {
    const file = chunkFilePathFor(root, "win.txt");
    fs.mkdirSync(path.dirname(file), { recursive: true });
    fs.writeFileSync(file, "## Chunk 1\r\n<!-- page=4 -->\r\nHello\r\n");
    expect((await readChunkFile(file)).chunks).toEqual([{ content: "Hello", meta: { page: 4 } }]);
  });

  it("reports a missing chunk file as NOT_FOUND", async () => {
    let caught: unknown;
    try {
      await readChunkFile(path.join(root, "_chunks", "missing.txt.md"));
    } catch (error) {
      caught = error;
    }
    expect(isChunkpadError(caught, "NOT_FOUND")).toBe(true);
  });
});

describe("discoverChunkFiles", () => {
  it("finds every .md chunk file with its source path, size and time", async () => {
    for (const source of ["b.txt", "a/report.pdf", "a/z/deep.docx", "c d/ü.md"]) {
      await writeChunkFile(chunkFilePathFor(root, source), chunks);
    }
    fs.writeFileSync(path.join(root, "_chunks", "a", "stray.txt"), "not a chunk file");
    fs.writeFileSync(path.join(root, "_chunks", ".b.txt.md.123.tmp"), "temporary");
    fs.mkdirSync(path.join(root, "_chunks", ".hidden"));
    fs.writeFileSync(path.join(root, "_chunks", ".hidden", "x.md"), "hidden");
    fs.writeFileSync(path.join(root, "outside.md"), "not under _chunks");
    fs.symlinkSync(path.join(root, "outside.md"), path.join(root, "_chunks", "link.md"));

    const found = await discoverChunkFiles(root);
    expect(found.map((info) => info.relativeSourcePath)).toEqual(["a/report.pdf", "a/z/deep.docx", "b.txt", "c d/ü.md"]);
    for (const info of found) {
      const stats = fs.statSync(info.path);
      expect(info.size).toBe(stats.size);
      expect(info.mtimeMs).toBe(stats.mtimeMs);
      expect(info.path).toBe(chunkFilePathFor(root, info.relativeSourcePath));
    }
  });

  it("finds nothing when the folder has no _chunks/ yet", async () => {
    expect(await discoverChunkFiles(root)).toEqual([]);
  });
});

describe("removeChunkFile", () => {
  it("removes the file and prunes the directories it leaves empty, but not _chunks/", async () => {
    const deep = chunkFilePathFor(root, "a/b/c/deep.pdf");
    const sibling = chunkFilePathFor(root, "a/keep.pdf");
    await writeChunkFile(deep, chunks);
    await writeChunkFile(sibling, chunks);

    expect(await removeChunkFile(deep)).toBe(true);
    expect(fs.existsSync(path.join(root, "_chunks", "a", "b"))).toBe(false);
    expect(fs.existsSync(sibling)).toBe(true);

    expect(await removeChunkFile(sibling, root)).toBe(true);
    expect(fs.existsSync(path.join(root, "_chunks", "a"))).toBe(false);
    expect(fs.existsSync(path.join(root, "_chunks"))).toBe(true);
    expect(await discoverChunkFiles(root)).toEqual([]);
  });

  it("returns false for a file that is already gone", async () => {
    expect(await removeChunkFile(chunkFilePathFor(root, "never.txt"), root)).toBe(false);
  });

  it("stops pruning at a directory that still holds something", async () => {
    const file = chunkFilePathFor(root, "x/y/file.txt");
    await writeChunkFile(file, chunks);
    fs.writeFileSync(path.join(root, "_chunks", "x", "user-notes.txt"), "mine");
    await removeChunkFile(file, root);
    expect(fs.existsSync(path.join(root, "_chunks", "x", "y"))).toBe(false);
    expect(fs.readdirSync(path.join(root, "_chunks", "x"))).toEqual(["user-notes.txt"]);
  });
});
