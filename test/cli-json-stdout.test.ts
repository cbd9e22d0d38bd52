import fs from "node:fs";
import path from "node:path";
import { beforeAll, describe, expect, it } from "vitest";
import { json, makeTempDir, runCli, SHARED } from "./helpers/cli.js";

// Malformed PDFs that make pdf.js warn while parsing (EDGE_CASES.tsv in the shared corpus).
const WARNING_PDFS = ["PDFBOX-4352-0.pdf", "bad-PageLabels.pdf", "boundingBox_invalid.pdf", "bug1250079.pdf", "bug1606566.pdf"];

describe("--json stdout holds exactly one JSON document", () => {
  const home = makeTempDir("json-stdout-home");
  const folder = makeTempDir("json-stdout-docs");

  beforeAll(() => {
    for (const name of WARNING_PDFS) fs.copyFileSync(path.join(SHARED, "corpus/pdf.js/pdfs", name), path.join(folder, name));
    fs.writeFileSync(path.join(folder, "notes.md"), "# Notes\n\nThe river floods every spring.\n");
  });

  it("add --json: parser warnings never reach stdout", async () => {
    const result = await runCli(["add", folder, "--json"], { home });
    const report = json<{ processed: unknown[]; failed: unknown[] }>(result);
    expect(report.processed.length + report.failed.length).toBeGreaterThan(0);
  });

  it("search --json after that run", async () => {
    const result = await runCli(["search", "river", "--json", "--mode", "keyword"], { home });
    const report = json<{ results: Array<{ relativePath: string }> }>(result);
    expect(report.results.map((hit) => hit.relativePath)).toContain("notes.md");
  });
});
