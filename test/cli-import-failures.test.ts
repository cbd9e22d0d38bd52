import fs from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { json, makeTempDir, SHARED, writeFile } from "./helpers/cli.js";
import { runCliInProcess } from "./helpers/cli-in-process.js";

interface Report {
  processed: Array<{ path: string }>;
  skipped: Array<{ relativePath: string; reason: string }>;
  failed: Array<{ path: string; code: string; unchangedSinceFailure: boolean }>;
}

describe("chunkpad import keeps what the index knew about files it could not index", () => {
  it("does not parse a broken or empty file again after an import, while it has not changed", async () => {
    const folder = makeTempDir("import-failures");
    writeFile(folder, "notes.md", "# Herons\n\nThe heron waits by the river at dawn.\n");
    writeFile(folder, "empty.txt", "");
    writeFile(folder, "broken.pdf", "%PDF-1.7\nthis is not really a pdf\n");
    fs.copyFileSync(path.join(SHARED, "corpus", "pdf.js", "pdfs", "issue6010_1.pdf"), path.join(folder, "locked.pdf"));
    const first = { home: makeTempDir("home") };
    const added = json<Report>(await runCliInProcess(["add", folder, "--json"], first));
    expect(added.failed.map((failure) => failure.path).sort()).toEqual(["broken.pdf", "locked.pdf"]);
    const archive = path.join(makeTempDir("archive"), "index.zip");
    expect((await runCliInProcess(["export", archive], first)).code).toBe(0);

    const second = { home: makeTempDir("home") };
    const imported = await runCliInProcess(["import", archive, "--into", folder], second);
    expect(imported.code, imported.stderr).toBe(0);
    const again = await runCliInProcess(["process", folder, "--json"], second);
    const report = json<Report>(again);
    expect(report.processed).toEqual([]);
    expect(report.failed).toEqual([
      expect.objectContaining({ path: "broken.pdf", code: "PARSE_MALFORMED", unchangedSinceFailure: true }),
      expect.objectContaining({ path: "locked.pdf", code: "PARSE_ENCRYPTED", unchangedSinceFailure: true }),
    ]);
    expect(report.skipped).toEqual([{ relativePath: "empty.txt", reason: "empty file (0 bytes)" }]);

    // Changed since the export: read again.
    writeFile(folder, "empty.txt", "Now with words about herons.");
    const changed = json<Report>(await runCliInProcess(["process", folder, "--json"], second));
    expect(changed.processed.map((file) => file.path)).toEqual(["empty.txt"]);
  });
});
