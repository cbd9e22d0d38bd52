import fs from "node:fs";
import path from "node:path";
import { strToU8, zipSync } from "fflate";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { json, makeTempDir, SHARED, writeFile, writeSampleDocuments } from "./helpers/cli.js";
import { runCliInProcess } from "./helpers/cli-in-process.js";
import { TINY_BERT_DIR } from "./helpers/hub-server.js";

interface SearchJson {
  mode: string;
  results: Array<{ relativePath: string; content: string; score: number; location?: unknown }>;
}

/** The chunk tree with its review and embedding counts per file. */
const treeOf = (stdout: string) => JSON.stringify((JSON.parse(stdout) as { tree: unknown }).tree);

/**
 * export and import as a user moves an index: one folder with a PDF, an excluded chunk, a
 * hand-edited chunk file and vectors; exported, everything reset, imported, searched again.
 */
describe("chunkpad export and import", () => {
  let home: string;
  let folder: string;
  let archive: string;
  let before: { keyword: SearchJson; vector: SearchJson; hybrid: SearchJson };
  let excludedText: string;
  const cli = (args: string[], where = home) => runCliInProcess(args, { home: where });
  const search = async (query: string, mode: string, where = home) => {
    const result = await cli(["search", query, "--mode", mode, "--json", "--limit", "8"], where);
    expect(result.code, result.stderr).toBe(0);
    return json<SearchJson>(result);
  };
  const shape = (report: SearchJson) => ({ mode: report.mode, results: report.results.map((hit) => ({ path: hit.relativePath, content: hit.content, score: Number(hit.score.toFixed(6)) })) });
  const searches = async (where = home) => ({
    keyword: await search("river heron", "keyword", where),
    vector: await search("birds waiting near water", "vector", where),
    hybrid: await search("tracing compiler", "hybrid", where),
  });

  beforeAll(async () => {
    home = makeTempDir("archive");
    folder = path.join(home, "docs");
    writeSampleDocuments(folder);
    fs.copyFileSync(path.join(SHARED, "corpus", "pdf.js", "pdfs", "tracemonkey.pdf"), path.join(folder, "paper.pdf"));
    expect((await cli(["add", folder])).code).toBe(0);
    // A hand edit, taken in by the next run.
    const chunkFile = path.join(folder, "_chunks", "report.txt.md");
    fs.writeFileSync(chunkFile, fs.readFileSync(chunkFile, "utf8").replace("aardvark campaign", "aardvark and pangolin campaign"));
    const { folderId } = json<{ folderId: string }>(await cli(["chunks", folder, "--json"]));
    expect((await cli(["exclude", `${folderId}:paper.pdf#1`])).code).toBe(0);
    const embed = await cli(["embed", "--model", TINY_BERT_DIR]);
    expect(embed.code, embed.stderr).toBe(0);
    excludedText = treeOf((await cli(["chunks", folder, "--json"])).stdout);
    before = await searches();
    archive = path.join(home, "backup.zip");
    const exported = await cli(["export", archive, "--json"]);
    expect(exported.code, exported.stderr).toBe(0);
    expect(json<{ schema: string; folders: Array<{ vectors: number; documents: number }> }>(exported)).toMatchObject({ schema: "chunkpad.export/1", folders: [{ documents: 4 }] });
  });
  afterAll(() => fs.rmSync(home, { recursive: true, force: true }));

  it("round-trips: export, reset, import gives the same search results, review state and chunk files", async () => {
    const editedChunkFile = fs.readFileSync(path.join(folder, "_chunks", "report.txt.md"), "utf8");
    expect((await cli(["reset", "--yes", "--chunk-files"])).code).toBe(0);
    expect(fs.existsSync(path.join(folder, "_chunks"))).toBe(false);
    expect((await search("river heron", "keyword")).results).toEqual([]);

    const imported = await cli(["import", archive, "--into", folder, "--json"]);
    expect(imported.code, imported.stderr).toBe(0);
    const report = json<{ schema: string; configChanged: Array<{ key: string }>; folders: Array<{ rootPath: string; documents: number; vectors: number; excluded: number; sourcesFound: number }> }>(imported);
    expect(report.schema).toBe("chunkpad.import/1");
    expect(report.folders).toMatchObject([{ rootPath: folder, documents: 4, excluded: 1, sourcesFound: 4 }]);
    expect(report.folders[0]!.vectors).toBeGreaterThan(0);
    // reset forgot the model choice: the archive's model became the configured one.
    expect(report.configChanged.map((change) => change.key)).toContain("embedding.model");

    const after = await searches();
    expect(shape(after.keyword)).toEqual(shape(before.keyword));
    expect(shape(after.vector)).toEqual(shape(before.vector));
    expect(shape(after.hybrid)).toEqual(shape(before.hybrid));
    expect(fs.readFileSync(path.join(folder, "_chunks", "report.txt.md"), "utf8")).toBe(editedChunkFile);
    expect(treeOf((await cli(["chunks", folder, "--json"])).stdout)).toBe(excludedText);
    // Nothing to redo: the sources are the same bytes and every vector fits its chunk.
    const sync = await cli(["sync", "--json"]);
    expect(json<{ folders: Array<{ embedded: { embedded: number; synced: { documentsProcessed: number; editsTakenIn: number } } }> }>(sync).folders[0]?.embedded).toMatchObject({ embedded: 0, synced: { documentsProcessed: 0, editsTakenIn: 0 } });
  });

  it("restores into another folder on another machine, sources included", async () => {
    const withSources = path.join(home, "with-sources.zip");
    expect((await cli(["export", withSources, "--with-sources", "--folder", folder])).code).toBe(0);
    const other = makeTempDir("archive-other");
    try {
      const target = path.join(other, "restored");
      expect((await cli(["config", "set", "embedding.model", TINY_BERT_DIR], other)).code).toBe(0);
      const imported = await cli(["import", withSources, "--into", target], other);
      expect(imported.code, imported.stderr).toBe(0);
      expect(imported.stdout).toContain("4 source files written");
      expect(fs.readFileSync(path.join(target, "paper.pdf")).equals(fs.readFileSync(path.join(folder, "paper.pdf")))).toBe(true);
      expect(shape(await search("birds waiting near water", "vector", other))).toEqual(shape(before.vector));
      const process = await cli(["process", target, "--json"], other);
      expect(json<{ processed: unknown[]; unchanged: string[] }>(process)).toMatchObject({ processed: [], unchanged: ["garden/tomatoes.md", "notes.md", "paper.pdf", "report.txt"] });
    } finally {
      fs.rmSync(other, { recursive: true, force: true });
    }
  });

  it("refuses vectors of another model unless --reembed, and then embeds with the configured one", async () => {
    const other = makeTempDir("archive-model");
    try {
      expect((await cli(["config", "set", "embedding.model", "bge-small-en-v1.5"], other)).code).toBe(0);
      const refused = await cli(["import", archive, "--into", path.join(other, "docs")], other);
      expect(refused.code).not.toBe(0);
      expect(refused.stderr).toMatch(/made by .*tiny-bert.*--reembed/s);
      expect(fs.existsSync(path.join(other, "docs"))).toBe(false);

      expect((await cli(["config", "set", "embedding.model", TINY_BERT_DIR], other)).code).toBe(0);
      expect((await cli(["config", "set", "embedding.dtype", "fp32"], other)).code).toBe(0);
      const reembedded = await cli(["import", archive, "--into", path.join(other, "docs"), "--reembed", "--json"], other);
      expect(reembedded.code, reembedded.stderr).toBe(0);
      const report = json<{ vectorsSkipped: string | null; embedded: { embedded: number } | null; folders: Array<{ vectors: number }> }>(reembedded);
      expect(report.vectorsSkipped).toMatch(/^re-embedded: /);
      expect(report.folders[0]?.vectors).toBe(0);
      expect(report.embedded?.embedded).toBeGreaterThan(0);
    } finally {
      fs.rmSync(other, { recursive: true, force: true });
    }
  });

  it("refuses an archive that names a file outside its folder, writing nothing", async () => {
    const evil = path.join(home, "evil.zip");
    const manifest = { format: "chunkpad.archive/1", createdAt: "2026-01-01T00:00:00Z", embedding: null, folders: [{ prefix: "folders/0/", rootPath: path.join(home, "evil-target"), chunking: { chunkSizeTokens: 400, chunkOverlapTokens: 60 }, newChunksIncluded: true, documents: [], chunkFiles: ["../../escaped.md"], sources: [], vectors: [] }] };
    fs.writeFileSync(evil, zipSync({ "manifest.json": strToU8(JSON.stringify(manifest)), "folders/0/chunks/../../escaped.md": strToU8("gotcha") }));
    const result = await cli(["import", evil, "--into", path.join(home, "evil-target")]);
    expect(result.code).toBe(1);
    expect(result.stderr).toMatch(/outside its folder/);
    expect(fs.existsSync(path.join(home, "evil-target"))).toBe(false);
    expect(fs.existsSync(path.join(home, "escaped.md"))).toBe(false);

    writeFile(home, "not-an-archive.zip", "hello");
    const junk = await cli(["import", path.join(home, "not-an-archive.zip"), "--into", path.join(home, "junk-target")]);
    expect(junk.stderr).toMatch(/not a Chunkpad archive/);
  });
});
