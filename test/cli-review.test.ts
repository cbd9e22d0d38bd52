import path from "node:path";
import { beforeAll, describe, expect, it } from "vitest";
import { json, makeTempDir, writeFile } from "./helpers/cli.js";
import { runCliInProcess } from "./helpers/cli-in-process.js";

interface SearchReport {
  results: Array<{ ref: string; relativePath: string }>;
}

interface ChunkState {
  ref: string;
  relativePath: string;
  ordinal: number;
  included: boolean;
  embedState: string;
}

describe("chunkpad exclude / include", () => {
  const home = makeTempDir("home");
  const folder = makeTempDir("docs");
  let folderId = "";

  const found = async (query: string): Promise<string[]> => {
    const result = await runCliInProcess(["search", query, "--json", "--limit", "50", "--per-document", "0"], { home });
    expect(result.code, result.stderr).toBe(0);
    return json<SearchReport>(result).results.map((row) => row.ref);
  };
  const ref = (file: string, n: number) => `${folderId}:${file}#${n}`;

  beforeAll(async () => {
    // Small chunks, so notes.md becomes several chunks that all mention the kestrel.
    const paragraphs = Array.from({ length: 6 }, (_, index) => `Section ${index + 1}. The kestrel hovered over field number ${index + 1}, ${"watching the grass below and waiting for a vole to move ".repeat(4)}`);
    writeFile(folder, "notes.md", `# Birds\n\n${paragraphs.join("\n\n")}\n`);
    writeFile(folder, "reports/q3.txt", "Quarterly report: the kestrel survey budget grew.\n");
    writeFile(folder, "reports/q4.txt", "Year-end report: kestrel numbers held steady.\n");
    writeFile(folder, "letters/thanks.md", "# Thanks\n\nThank you for the kestrel photographs.\n");
    const added = await runCliInProcess(["add", folder, "--chunk-size", "64", "--overlap", "8", "--json"], { home });
    expect(added.code, added.stderr).toBe(0);
    folderId = json<{ folder: { id: string } }>(added).folder.id;
  });

  it("excludes a chunk by ref so search stops returning it, and includes it back", async () => {
    const before = await found("kestrel");
    const noteChunks = before.filter((item) => item.includes(":notes.md#"));
    expect(noteChunks.length).toBeGreaterThan(2);
    const [kept = "", target = ""] = noteChunks;

    const excluded = await runCliInProcess(["exclude", target], { home });
    expect(excluded.code, excluded.stderr).toBe(0);
    expect(excluded.stdout).toMatch(/^Excluded 1 chunk\.$/m);
    const after = await found("kestrel");
    expect(after).not.toContain(target);
    expect(after).toContain(kept);
    expect(after).toHaveLength(before.length - 1);

    const again = await runCliInProcess(["exclude", target], { home });
    expect(again.stdout).toMatch(/Excluded 0 chunks \(1 already excluded\)/);

    const included = await runCliInProcess(["include", target], { home });
    expect(included.stdout).toMatch(/^Included 1 chunk\.$/m);
    expect(await found("kestrel")).toEqual(before);
  });

  it("takes a ref without its folder id: path#n", async () => {
    const [first = ""] = (await found("kestrel")).filter((item) => item.includes(":notes.md#"));
    const short = first.slice(first.indexOf(":") + 1);
    expect((await runCliInProcess(["exclude", short], { home })).stdout).toMatch(/^Excluded 1 chunk\.$/m);
    expect(await found("kestrel")).not.toContain(first);
    expect((await runCliInProcess(["include", short], { home })).stdout).toMatch(/^Included 1 chunk\.$/m);
  });

  it("excludes every chunk of a file, by path inside the folder or absolute", async () => {
    const excluded = await runCliInProcess(["exclude", "notes.md"], { home });
    expect(excluded.code, excluded.stderr).toBe(0);
    expect(excluded.stdout).toMatch(/Excluded \d+ chunks/);
    expect((await found("kestrel")).filter((item) => item.includes(":notes.md#"))).toEqual([]);
    const included = await runCliInProcess(["include", path.join(folder, "notes.md")], { home });
    expect(included.code, included.stderr).toBe(0);
    expect((await found("kestrel")).filter((item) => item.includes(":notes.md#")).length).toBeGreaterThan(2);
  });

  it("excludes by glob, within --folder", async () => {
    const excluded = await runCliInProcess(["exclude", "reports/*.txt", "--folder", folder], { home });
    expect(excluded.code, excluded.stderr).toBe(0);
    expect(excluded.stdout).toContain("reports/*.txt: 2 files, 2 chunks");
    const after = await found("kestrel");
    expect(after).not.toContain(ref("reports/q3.txt", 1));
    expect(after).not.toContain(ref("reports/q4.txt", 1));
    expect(after).toContain(ref("letters/thanks.md", 1));

    const states = json<ChunkState[]>(await runCliInProcess(["chunks", folder, "--chunks", "--json"], { home }));
    expect(states.filter((state) => !state.included).map((state) => state.ref).sort()).toEqual([ref("reports/q3.txt", 1), ref("reports/q4.txt", 1)]);
    expect(states.every((state) => state.embedState === "new")).toBe(true);
    const text = await runCliInProcess(["chunks", folder, "--chunks"], { home });
    expect(text.stdout).toMatch(/^reports\/q3\.txt\n {2}#1 {2}excluded, new \(not embedded\) {2}Quarterly report/m);
    const tree = await runCliInProcess(["chunks", folder], { home });
    expect(tree.stdout).toMatch(/q3\.txt\.md {2}1 chunk {2}\(1 excluded\)/);

    const included = await runCliInProcess(["include", "**/q?.txt"], { home });
    expect(included.stdout).toMatch(/^Included 2 chunks\.$/m);
    expect(await found("kestrel")).toContain(ref("reports/q3.txt", 1));
  });

  it("says what matched nothing, and exits 1 only when nothing matched at all", async () => {
    const nothing = await runCliInProcess(["exclude", "missing.pdf", "*.xlsx", `${folderId}:notes.md#99`], { home });
    expect(nothing.code).toBe(1);
    expect(nothing.stderr).toContain('nothing matches "missing.pdf"');
    expect(nothing.stderr).toContain('nothing matches "*.xlsx"');
    expect(nothing.stderr).toContain(`nothing matches "${folderId}:notes.md#99"`);
    expect(nothing.stdout).toBe("");

    const some = await runCliInProcess(["exclude", "letters/thanks.md", "missing.pdf"], { home });
    expect(some.code).toBe(0);
    expect(some.stdout).toMatch(/^Excluded 1 chunk\.$/m);
    expect(some.stderr).toContain('nothing matches "missing.pdf"');
    await runCliInProcess(["include", "letters/thanks.md"], { home });

    const otherFolder = await runCliInProcess(["exclude", "notes.md", "--folder", makeTempDir("never")], { home });
    expect(otherFolder.code).toBe(1);
    expect(otherFolder.stderr).toMatch(/has not been added yet/);
  });
});
