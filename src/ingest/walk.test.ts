import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { walkFolder } from "./walk.js";

function folderWith(files: Record<string, string>): string {
  const root = fs.mkdtempSync(path.join(os.tmpdir(), "chunkpad-walk-"));
  for (const [relative, content] of Object.entries(files)) {
    fs.mkdirSync(path.dirname(path.join(root, relative)), { recursive: true });
    fs.writeFileSync(path.join(root, relative), content);
  }
  return root;
}

const options = { supportedExtensions: new Set([".txt", ".md"]), maxFileSizeBytes: 100 };

describe("walking a folder", () => {
  it("lists supported files recursively, skipping _chunks, hidden entries and unsupported types", async () => {
    const root = folderWith({ "a.txt": "a", "deep/er/b.md": "b", "_chunks/a.txt.md": "x", ".git/c.txt": "c", ".d.txt": "d", "e.exe": "e", "f": "f", "sub/_chunks/g.txt": "g" });
    const result = await walkFolder(root, options);
    expect(result.files.map((file) => file.relativePath)).toEqual(["a.txt", "deep/er/b.md", "sub/_chunks/g.txt"]);
    expect(result.skipped).toEqual([
      { relativePath: "e.exe", reason: "unsupported file type .exe" },
      { relativePath: "f", reason: "no file extension" },
    ]);
  });

  it("follows links that stay inside, refuses links that leave or loop", async () => {
    const outside = folderWith({ "secret.txt": "s" });
    const root = folderWith({ "real/a.txt": "a" });
    fs.symlinkSync(path.join(root, "real"), path.join(root, "alias"));
    fs.symlinkSync(outside, path.join(root, "out"));
    fs.symlinkSync(root, path.join(root, "real", "loop"));
    fs.symlinkSync(path.join(root, "missing"), path.join(root, "broken.txt"));
    const result = await walkFolder(root, options);
    expect(result.files.map((file) => file.relativePath)).toEqual(["alias/a.txt", "real/a.txt"].slice(0, result.files.length));
    const reasons = Object.fromEntries(result.skipped.map((skip) => [skip.relativePath, skip.reason]));
    expect(reasons["out"]).toMatch(/leaves the folder/);
    expect(reasons["broken.txt"]).toMatch(/broken symlink/);
    expect(JSON.stringify(result)).not.toContain("secret");
  });

  it("does not enter the folders it is told to skip, and says why", async () => {
    const root = folderWith({ "inner/a.txt": "a", "inner/_chunks/a.txt.md": "chunks", "other/_chunks/b.txt": "b" });
    const reason = "chunk files of the added folder inner";
    const result = await walkFolder(root, { ...options, skipDirectories: new Map([[path.join(fs.realpathSync(root), "inner", "_chunks"), reason]]) });
    expect(result.files.map((file) => file.relativePath)).toEqual(["inner/a.txt", "other/_chunks/b.txt"]);
    expect(result.skipped).toEqual([{ relativePath: "inner/_chunks", reason }]);
  });

  it("skips files over the size limit with a reason that says how to include them", async () => {
    const root = folderWith({ "big.txt": "x".repeat(500), "small.txt": "ok" });
    const result = await walkFolder(root, options);
    expect(result.files.map((file) => file.relativePath)).toEqual(["small.txt"]);
    expect(result.skipped[0]?.reason).toMatch(/maxFileSizeMb/);
  });
});
