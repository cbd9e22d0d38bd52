import fs from "node:fs";
import path from "node:path";
import { beforeAll, describe, expect, it } from "vitest";
import { makeTempDir, SHARED } from "./helpers/cli.js";
import { runCliInProcess } from "./helpers/cli-in-process.js";

const OFFICE = path.join(SHARED, "corpus/officeParser/files");

/** The section= values of a chunk file's metadata lines, in order. */
function sections(folder: string, relativePath: string): string[] {
  const text = fs.readFileSync(path.join(folder, "_chunks", `${relativePath}.md`), "utf8");
  return [...text.matchAll(/^<!-- .*section="([^"]*)".* -->$/gm)].map((match) => match[1] ?? "");
}

describe("chunkpad add: headings and slides reach the chunk metadata", () => {
  const home = makeTempDir("home");
  const folder = makeTempDir("docs");

  beforeAll(async () => {
    for (const name of ["test.docx", "test.odt", "test.html", "test.md", "test.pptx"]) fs.copyFileSync(path.join(OFFICE, name), path.join(folder, name));
    const result = await runCliInProcess(["add", folder], { home });
    expect(result.code, result.stderr).toBe(0);
  });

  it.each(["test.docx", "test.odt", "test.html", "test.md"])("names the nearest heading of each chunk of %s", (name) => {
    const found = sections(folder, name);
    expect(found[0]).toBe("Demonstration of DOCX support in calibre");
    expect(found).toContain("Text Formatting");
    expect(found).toContain("Structural Elements");
  });

  it("numbers the chunks of a presentation by slide", () => {
    const text = fs.readFileSync(path.join(folder, "_chunks", "test.pptx.md"), "utf8");
    const slides = [...text.matchAll(/slide=(\d+)/g)].map((match) => Number(match[1]));
    expect(slides).toEqual([1, 2, 3, 4, 5, 6, 7, 8, 9]);
  });
});
