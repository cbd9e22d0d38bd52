import path from "node:path";
import { describe, expect, it } from "vitest";
import { isChunkpadError } from "../core/errors.js";
import { chunkFilePathFor, isChunkFilePath, sourcePathForChunkFile, trySourcePathForChunkFile } from "./paths.js";

function errorCodeOf(run: () => unknown): string | undefined {
  try {
    run();
  } catch (error) {
    return isChunkpadError(error) ? error.code : "not a ChunkpadError";
  }
  return undefined;
}

describe("chunk file paths", () => {
  it("puts a source's chunk file under _chunks/ with .md appended", () => {
    expect(chunkFilePathFor("/home/me/docs", "report.pdf", path.posix)).toBe("/home/me/docs/_chunks/report.pdf.md");
    expect(chunkFilePathFor("/home/me/docs", "subdir/memo.docx", path.posix)).toBe("/home/me/docs/_chunks/subdir/memo.docx.md");
  });

  it("infers the source path back, with forward slashes", () => {
    expect(sourcePathForChunkFile("/home/me/docs", "/home/me/docs/_chunks/subdir/memo.docx.md", path.posix)).toBe("subdir/memo.docx");
    expect(sourcePathForChunkFile("/home/me/docs/", "/home/me/docs/_chunks/a b/ü.txt.md", path.posix)).toBe("a b/ü.txt");
  });

  it("uses forward slashes in relative paths on Windows too", () => {
    const file = chunkFilePathFor("C:\\Users\\me\\Docs", "sub/dir/memo.docx", path.win32);
    expect(file).toBe("C:\\Users\\me\\Docs\\_chunks\\sub\\dir\\memo.docx.md");
    expect(sourcePathForChunkFile("C:\\Users\\me\\Docs", file, path.win32)).toBe("sub/dir/memo.docx");
    expect(chunkFilePathFor("C:\\Docs", "sub\\memo.docx", path.win32)).toBe("C:\\Docs\\_chunks\\sub\\memo.docx.md");
  });

  it("keeps a backslash in a POSIX file name as part of the name", () => {
    const file = chunkFilePathFor("/docs", "odd\\name.txt", path.posix);
    expect(file).toBe("/docs/_chunks/odd\\name.txt.md");
    expect(sourcePathForChunkFile("/docs", file, path.posix)).toBe("odd\\name.txt");
  });

  it("round-trips real paths on this platform", () => {
    const root = path.resolve("some-root");
    for (const relative of ["a.txt", "x/y/z.pdf", "notes.md", "dir.with.dots/file"]) {
      expect(sourcePathForChunkFile(root, chunkFilePathFor(root, relative))).toBe(relative);
    }
  });

  it("refuses source paths that escape the folder or are not relative", () => {
    for (const bad of ["", "../secret.txt", "a/../../b", "/etc/passwd", "a//b", "./a"]) {
      expect(errorCodeOf(() => chunkFilePathFor("/docs", bad, path.posix))).toBe("INVALID_ARGUMENT");
    }
  });

  it("says which files are not chunk files", () => {
    expect(isChunkFilePath("/docs", "/docs/_chunks/a.pdf.md", path.posix)).toBe(true);
    expect(trySourcePathForChunkFile("/docs", "/docs/a.pdf.md", path.posix)).toBeUndefined();
    expect(trySourcePathForChunkFile("/docs", "/docs/_chunks/a.pdf", path.posix)).toBeUndefined();
    expect(trySourcePathForChunkFile("/docs", "/docs/_chunks/.md", path.posix)).toBeUndefined();
    expect(trySourcePathForChunkFile("/docs", "/other/_chunks/a.md", path.posix)).toBeUndefined();
    expect(errorCodeOf(() => sourcePathForChunkFile("/docs", "/docs/_chunks", path.posix))).toBe("INVALID_ARGUMENT");
  });
});
