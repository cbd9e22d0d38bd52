import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { readChunkFileSafely, removeChunkFileSafely, writeChunkFileSafely } from "./safe-files.js";

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
  it("writes, reads back and deletes a chunk file, removing the folders it leaves empty but never _chunks", async () => {
    const root = chunksRoot();
    const file = path.join(root, "reports", "2024", "q1.pdf.md");
    await writeChunkFileSafely(root, file, "## Chunk 1\n\ntext\n");
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
    await expect(writeChunkFileSafely(root, path.join(root, "sub", "x.md"), "y")).rejects.toMatchObject({ code: "CHUNK_FILE_LINK" });
    await expect(removeChunkFileSafely(root, path.join(root, "linked.md"))).rejects.toMatchObject({ code: "CHUNK_FILE_LINK" });
    expect(fs.readFileSync(outside, "utf8")).toBe("secret");
    expect(fs.existsSync(path.join(path.dirname(root), "x.md"))).toBe(false);
  });
});
