import { describe, expect, it } from "vitest";
import { buildChunkTree, formatChunkTree } from "./tree.js";

const files = [
  { relativeSourcePath: "zeta.txt", chunkCount: 1 },
  { relativeSourcePath: "reports/2024/q2.pdf", chunkCount: 7, size: 10 },
  { relativeSourcePath: "Alpha.md", chunkCount: 2 },
  { relativeSourcePath: "reports/summary.docx", chunkCount: 3 },
  { relativeSourcePath: "reports/2024/q10.pdf", chunkCount: 4 },
  { relativeSourcePath: "notes/todo.txt", chunkCount: 0 },
];

describe("buildChunkTree", () => {
  it("nests folders, sums chunk counts and sorts folders first, then names", () => {
    const tree = buildChunkTree(files);
    expect(tree.chunkCount).toBe(17);
    expect(tree.fileCount).toBe(6);
    expect(tree.children.map((child) => `${child.kind}:${child.name}:${child.chunkCount}`)).toEqual([
      "folder:notes:0",
      "folder:reports:14",
      "file:Alpha.md:2",
      "file:zeta.txt:1",
    ]);
    const reports = tree.children[1]!;
    expect(reports.kind === "folder" && reports.children.map((child) => child.path)).toEqual(["reports/2024", "reports/summary.docx"]);
    const year = reports.kind === "folder" ? reports.children[0]! : undefined;
    expect(year?.kind === "folder" && year.children.map((child) => child.name)).toEqual(["q2.pdf", "q10.pdf"]);
  });

  it("keeps the caller's fields on file nodes", () => {
    const tree = buildChunkTree(files);
    const reports = tree.children.find((child) => child.name === "reports");
    const year = reports?.kind === "folder" ? reports.children[0] : undefined;
    const q2 = year?.kind === "folder" ? year.children[0] : undefined;
    expect(q2?.kind === "file" && q2.entry.size).toBe(10);
  });

  it("formats the tree as lines for a terminal", () => {
    expect(formatChunkTree(buildChunkTree(files), "docs")).toEqual([
      "docs (6 files, 17 chunks)",
      "├── notes/ (0 chunks)",
      "│   └── todo.txt (0 chunks)",
      "├── reports/ (14 chunks)",
      "│   ├── 2024/ (11 chunks)",
      "│   │   ├── q2.pdf (7 chunks)",
      "│   │   └── q10.pdf (4 chunks)",
      "│   └── summary.docx (3 chunks)",
      "├── Alpha.md (2 chunks)",
      "└── zeta.txt (1 chunk)",
    ]);
    expect(formatChunkTree(buildChunkTree([]))).toEqual([". (0 files, 0 chunks)"]);
  });
});
