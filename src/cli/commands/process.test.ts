import { describe, expect, it } from "vitest";
import type { ProcessReport } from "../../index.js";
import { formatProcessReport } from "../shared/render.js";

function reportWith(processed: ProcessReport["processed"]): ProcessReport {
  return {
    folder: { id: "f1", rootPath: "/docs", chunksRootPath: "/docs/_chunks" },
    processed, unchanged: [], editsSynced: [], skipped: [], failed: [], conflicts: [], removed: [], renamed: [], keptEdits: [], resolved: [], chunksInDataDir: false, chunksWritten: 0, durationMs: 0,
  };
}

describe("formatReport", () => {
  it("says 1 page, 1 slide and 1 sheet, not 1 pages", () => {
    const text = formatProcessReport(reportWith([
      { path: "a.pdf", format: "pdf", chunks: 1, pages: 1, warnings: [] },
      { path: "b.pptx", format: "pptx", chunks: 1, pages: 1, warnings: [] },
      { path: "c.xlsx", format: "xlsx", chunks: 2, pages: 1, warnings: [] },
      { path: "d.pdf", format: "pdf", chunks: 3, pages: 14, warnings: [] },
    ]));
    expect(text).toContain("+ a.pdf (pdf, 1 page): 1 chunk");
    expect(text).toContain("+ b.pptx (pptx, 1 slide): 1 chunk");
    expect(text).toContain("+ c.xlsx (xlsx, 1 sheet): 2 chunks");
    expect(text).toContain("+ d.pdf (pdf, 14 pages): 3 chunks");
  });

  it("shows each file's warnings under it, so a garbled page is not silent", () => {
    const warning = "pages 2, 3: the text is garbage (it is full of undecodable bytes); only its readable parts were indexed";
    const text = formatProcessReport(reportWith([{ path: "paper.pdf", format: "pdf", chunks: 4, pages: 23, warnings: [warning] }]));
    expect(text).toContain(`+ paper.pdf (pdf, 23 pages): 4 chunks\n    note: ${warning}`);
  });
});
