import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { lstatChunkFileSafely, narrowChunkFileMode, readChunkFileSafely, removeChunkFileSafely, writeChunkFileSafely } from "./safe-files.js";

const directories: string[] = [];
afterEach(() => {
  for (const directory of directories.splice(0)) fs.rmSync(directory, { recursive: true, force: true });
});

function chunksRoot(): string {
  const directory = fs.mkdtempSync(path.join(os.tmpdir(), "chunkpad-safe-files-"));
  directories.push(directory);
  const root = path.join(directory, "_chunks");
  fs.mkdirSync(root);
  return root;
}

describe("chunk files on disk", () => {
  it("looks at a run's checked folders once, but always at the file itself, and reading still checks the whole path", async () => {
    const root = chunksRoot();
    const file = path.join(root, "notes", "a.md.md");
    await writeChunkFileSafely(root, file, "## Chunk 1\n\ntext\n", { mode: 0o644 });
    const checked = new Set<string>();
    expect((await lstatChunkFileSafely(root, file, checked))?.isFile()).toBe(true);
    expect([...checked].sort()).toEqual([root, path.join(root, "notes")]);

    const outside = fs.mkdtempSync(path.join(os.tmpdir(), "chunkpad-safe-outside-"));
    directories.push(outside);
    fs.writeFileSync(path.join(outside, "secret"), "not Chunkpad's");
    fs.rmSync(file);
    fs.symlinkSync(path.join(outside, "secret"), file);
    await expect(lstatChunkFileSafely(root, file, checked)).rejects.toMatchObject({ code: "CHUNK_FILE_LINK" });

    // A checked folder swapped for a link mid-run: the read that follows an lstat still refuses it.
    fs.rmSync(path.join(root, "notes"), { recursive: true });
    fs.mkdirSync(path.join(outside, "notes"));
    fs.writeFileSync(path.join(outside, "notes", "a.md.md"), "## Chunk 1\n\nsecret\n");
    fs.symlinkSync(path.join(outside, "notes"), path.join(root, "notes"));
    await expect(readChunkFileSafely(root, file)).rejects.toMatchObject({ code: "CHUNK_FILE_LINK" });
    await expect(lstatChunkFileSafely(root, file, new Set())).rejects.toMatchObject({ code: "CHUNK_FILE_LINK" });
  });

  it("writes, reads back and deletes a chunk file, removing the folders it leaves empty but never _chunks", async () => {
    const root = chunksRoot();
    const file = path.join(root, "reports", "2024", "q1.pdf.md");
    await writeChunkFileSafely(root, file, "## Chunk 1\n\ntext\n", { mode: 0o644 });
    expect(await readChunkFileSafely(root, file)).toBe("## Chunk 1\n\ntext\n");
    fs.writeFileSync(path.join(root, "reports", "keep.md"), "x");
    expect(await removeChunkFileSafely(root, file)).toBe(true);
    expect(fs.existsSync(path.join(root, "reports", "2024"))).toBe(false);
    expect(fs.existsSync(path.join(root, "reports", "keep.md"))).toBe(true);
    expect(await removeChunkFileSafely(root, path.join(root, "reports", "keep.md"))).toBe(true);
    expect(fs.existsSync(path.join(root, "reports"))).toBe(false);
    expect(fs.existsSync(root)).toBe(true);
    expect(await removeChunkFileSafely(root, file)).toBe(false);
    expect(await readChunkFileSafely(root, file)).toBeUndefined();
  });

  it("never reads, writes or deletes through a link inside the chunk folder", async () => {
    const root = chunksRoot();
    const outside = path.join(path.dirname(root), "secret.txt");
    fs.writeFileSync(outside, "secret");
    fs.symlinkSync(outside, path.join(root, "linked.md"));
    fs.symlinkSync(path.dirname(root), path.join(root, "sub"));
    await expect(readChunkFileSafely(root, path.join(root, "linked.md"))).rejects.toMatchObject({ code: "CHUNK_FILE_LINK" });
    await expect(writeChunkFileSafely(root, path.join(root, "sub", "x.md"), "y", { mode: 0o600 })).rejects.toMatchObject({ code: "CHUNK_FILE_LINK" });
    await expect(removeChunkFileSafely(root, path.join(root, "linked.md"))).rejects.toMatchObject({ code: "CHUNK_FILE_LINK" });
    expect(fs.readFileSync(outside, "utf8")).toBe("secret");
    expect(fs.existsSync(path.join(path.dirname(root), "x.md"))).toBe(false);
  });

  it.skipIf(process.platform === "win32")("gives a chunk file no permission its source lacks, and narrows one written before", async () => {
    const root = chunksRoot();
    const privateSource = path.join(path.dirname(root), "diary.txt");
    fs.writeFileSync(privateSource, "private", { mode: 0o600 });
    fs.chmodSync(privateSource, 0o600);
    const file = path.join(root, "diary.txt.md");
    await writeChunkFileSafely(root, file, "## Chunk 1\n\nprivate\n", { sourcePath: privateSource });
    expect(fs.statSync(file).mode & 0o777).toBe(0o600);

    // Written when the source was readable by all; the source made private since.
    const sharedSource = path.join(path.dirname(root), "notes.txt");
    fs.writeFileSync(sharedSource, "notes");
    fs.chmodSync(sharedSource, 0o644);
    const notes = path.join(root, "notes.txt.md");
    await writeChunkFileSafely(root, notes, "## Chunk 1\n\nnotes\n", { sourcePath: sharedSource });
    expect(fs.statSync(notes).mode & 0o777).toBe(0o644 & ~process.umask());
    fs.chmodSync(sharedSource, 0o600);
    await narrowChunkFileMode(root, notes, { sourcePath: sharedSource });
    expect(fs.statSync(notes).mode & 0o777).toBe(0o600);
    // A source that is gone leaves its chunk file to the user alone.
    await writeChunkFileSafely(root, path.join(root, "gone.txt.md"), "x", { sourcePath: path.join(path.dirname(root), "gone.txt") });
    expect(fs.statSync(path.join(root, "gone.txt.md")).mode & 0o077).toBe(0);
  });
});
