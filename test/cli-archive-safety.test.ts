import { createHash } from "node:crypto";
import fs from "node:fs";
import path from "node:path";
import { PassThrough } from "node:stream";
import { strFromU8, strToU8, unzipSync, zipSync, type Zippable } from "fflate";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { main } from "../src/cli/main.js";
import { cliEnv, json, makeTempDir, runCli, writeFile, writeSampleDocuments } from "./helpers/cli.js";
import { runCliInProcess } from "./helpers/cli-in-process.js";

/**
 * `import` as an attacker's archive, a careless hand edit and a hostile target folder meet it:
 * the archive never chooses where files go, everything is checked before a byte is written, a
 * refused import leaves no file, folder or row behind (and a second try works), nothing is
 * written through a link, and every archive `export` writes imports again.
 */

type Manifest = {
  format: string;
  embedding: unknown;
  folders: Array<{
    rootPath: string;
    documents: Array<{ relativePath: string; chunks: Array<{ content: string; meta: object; included: boolean }>; source: { sourceHash: string } | null }>;
    chunkFiles: string[];
    sources: string[];
    vectors: unknown[];
  }>;
};

const mode = (target: string) => fs.statSync(target).mode & 0o777;

describe("chunkpad import refuses what it must, and leaves nothing behind", () => {
  let home: string;
  let entries: Record<string, Uint8Array>;
  let manifest: Manifest;
  /** In process, or in a child process when a call needs its own working directory. */
  const cli = (args: string[], cwd?: string) => (cwd ? runCli(args, { home, cwd }) : runCliInProcess(args, { home }));
  /** The exported archive, changed by `edit`, written as a new zip. */
  const tampered = (name: string, edit: (manifest: Manifest, files: Record<string, Uint8Array>) => void, options: { level?: 0 | 6 } = {}) => {
    const copy = structuredClone(manifest);
    const files = { ...entries };
    edit(copy, files);
    files["manifest.json"] = strToU8(JSON.stringify(copy));
    const zippable: Zippable = {};
    for (const [entry, data] of Object.entries(files)) zippable[entry] = [data, { level: options.level ?? 6 }];
    const file = path.join(home, name);
    fs.writeFileSync(file, zipSync(zippable));
    return file;
  };
  const addedFolders = async () => (await cli(["folders", "--json"])).stdout;

  beforeAll(async () => {
    home = makeTempDir("archive-safety");
    const folder = path.join(home, "docs");
    writeSampleDocuments(folder);
    expect((await cli(["add", folder])).code).toBe(0);
    const archive = path.join(home, "docs.zip");
    const exported = await cli(["export", archive, "--with-sources"]);
    expect(exported.code, exported.stderr).toBe(0);
    expect((await cli(["remove", folder])).code).toBe(0);
    entries = unzipSync(new Uint8Array(fs.readFileSync(archive)));
    manifest = JSON.parse(strFromU8(entries["manifest.json"] as Uint8Array)) as Manifest;
  });
  afterAll(() => fs.rmSync(home, { recursive: true, force: true }));

  it("never lets the archive choose a location: without --into it refuses and names the flag; --into is resolved where the user stands", async () => {
    const autostart = path.join(home, ".config", "autostart");
    const evil = tampered("autostart.zip", (edited) => {
      edited.folders[0]!.rootPath = autostart;
    });
    const refused = await cli(["import", evil]);
    expect(refused.code).toBe(1);
    expect(refused.stderr).toMatch(/--into <folder>/);
    expect(refused.stderr.trim().split("\n")).toHaveLength(1);
    expect(fs.existsSync(autostart)).toBe(false);

    const empty = await cli(["import", evil, "--into", ""]);
    expect(empty.code).toBe(1);
    expect(empty.stderr).toMatch(/--into <folder>/);

    const here = path.join(home, "elsewhere");
    fs.mkdirSync(here);
    const imported = await cli(["import", evil, "--into", "restored", "--json"], here);
    expect(imported.code, imported.stderr).toBe(0);
    expect(json<{ folders: Array<{ rootPath: string }> }>(imported).folders[0]?.rootPath).toBe(path.join(here, "restored"));
    expect(fs.readFileSync(path.join(here, "restored", "notes.md"), "utf8")).toContain("heron");
    expect(fs.existsSync(autostart)).toBe(false);
    expect((await cli(["remove", path.join(here, "restored")])).code).toBe(0);
  });

  it("on a terminal, asks where to restore instead of refusing", async () => {
    const target = path.join(home, "asked");
    const stdin = Object.assign(new PassThrough(), { isTTY: true });
    const stderr = Object.assign(new PassThrough(), { isTTY: true });
    const stdout = new PassThrough();
    let shown = "";
    for (const stream of [stdout, stderr]) stream.on("data", (data: Buffer) => (shown += data.toString()));
    stdin.end(`${target}\n`);
    const code = await main(["import", tampered("asked.zip", () => undefined)], { stdin, stdout, stderr, env: cliEnv(home) });
    expect(code, shown).toBe(0);
    expect(shown).toMatch(/Restore .*asked\.zip into which folder\? /);
    expect(fs.existsSync(path.join(target, "notes.md"))).toBe(true);
    expect((await cli(["remove", target])).code).toBe(0);
  });

  it("refuses damaged and hand-edited archives with one line and exit 1, writing no file and no row", async () => {
    const huge = "x".repeat(1024 * 1024 + 10);
    const cases: Array<[string, string, RegExp]> = [
      [tampered("chunk-cap.zip", (edited) => void (edited.folders[0]!.documents[0]!.chunks[0]!.content = huge)), "chunk over the cap in the manifest", /at most 1 MB/],
      [
        tampered("chunk-file-cap.zip", (edited, files) => void (files[`folders/0/chunks/${edited.folders[0]!.chunkFiles[0]}`] = strToU8(`## Chunk 1\n\n${huge}\n`))),
        "chunk over the cap in a chunk file",
        /more than the 1\.0 MB a chunk may hold/,
      ],
      [tampered("duplicate.zip", (edited) => void edited.folders[0]!.documents.push(structuredClone(edited.folders[0]!.documents[0]!))), "a document listed twice", /twice/],
      [
        tampered("nan.zip", (edited, files) => {
          const document = edited.folders[0]!.documents[0]!;
          edited.embedding = { embedder: { provider: "local", model: "x" }, model: "x", dimensions: 4 };
          edited.folders[0]!.vectors = [{ relativePath: document.relativePath, ordinal: 1, embedHash: "ab".repeat(32), stamp: "s" }];
          files["folders/0/vectors.f32"] = new Uint8Array(new Float32Array([0.1, Number.NaN, 0.2, 0.3]).buffer);
        }),
        "a vector that is not a number",
        /not a finite number/,
      ],
      [
        tampered("source-hash.zip", (edited, files) => void (files[`folders/0/sources/${edited.folders[0]!.sources[0]}`] = strToU8("Not the bytes the manifest describes.\n"))),
        "a source whose checksum differs",
        /size or checksum differs/,
      ],
      [tampered("unlisted.zip", (_edited, files) => void (files["folders/0/chunks/extra.md"] = strToU8("## Chunk 1\n\nsmuggled\n"))), "an entry the manifest does not list", /does not list/],
      [tampered("not-json.zip", () => undefined), "placeholder", /./],
    ];
    // A manifest that is not JSON, and an entry whose bytes no longer match its CRC-32.
    const notJson = path.join(home, "not-json.zip");
    fs.writeFileSync(notJson, zipSync({ "manifest.json": strToU8("{ this is not json") }));
    cases[cases.length - 1] = [notJson, "a manifest that is not JSON", /not a Chunkpad archive/];
    const flipped = tampered("crc.zip", () => undefined, { level: 0 });
    const bytes = fs.readFileSync(flipped);
    const at = bytes.indexOf("aardvark campaign");
    expect(at).toBeGreaterThan(0);
    bytes[at] = "A".charCodeAt(0);
    fs.writeFileSync(flipped, bytes);
    cases.push([flipped, "an entry changed after it was written", /checksum \(CRC-32\)/]);

    const target = path.join(home, "target");
    for (const [file, what, reason] of cases) {
      const result = await cli(["import", file, "--into", target]);
      expect(result.code, what).toBe(1);
      expect(result.stderr, what).toMatch(reason);
      expect(result.stderr, what).not.toMatch(/\n\s+at /);
      expect(result.stderr.trim().split("\n"), what).toHaveLength(1);
      expect(fs.existsSync(target), what).toBe(false);
    }
    expect(await addedFolders()).not.toContain(target);
  });

  it("writes nothing through a link in the target, undoes a half-done import, and a second try works", async () => {
    const archive = tampered("plain.zip", () => undefined);
    const target = path.join(home, "linked-target");
    const outside = path.join(home, "outside");
    fs.mkdirSync(target);
    fs.mkdirSync(outside);
    fs.symlinkSync(outside, path.join(target, "_chunks"));
    const refused = await cli(["import", archive, "--into", target]);
    expect(refused.code).toBe(1);
    expect(refused.stderr).toMatch(/symbolic link.*Nothing was imported/);
    expect(fs.readdirSync(outside)).toEqual([]);
    // The sources staged before the link was met are gone too, and so are the rows.
    expect(fs.readdirSync(target)).toEqual(["_chunks"]);
    expect(await addedFolders()).not.toContain(target);

    const sourceLink = path.join(home, "source-link-target");
    fs.mkdirSync(sourceLink);
    fs.symlinkSync(outside, path.join(sourceLink, "garden"));
    const viaFolder = await cli(["import", archive, "--into", sourceLink]);
    expect(viaFolder.code).toBe(1);
    expect(fs.readdirSync(outside)).toEqual([]);
    expect(fs.readdirSync(sourceLink)).toEqual(["garden"]);

    fs.rmSync(path.join(target, "_chunks"));
    const again = await cli(["import", archive, "--into", target, "--json"]);
    expect(again.code, again.stderr).toBe(0);
    expect(json<{ folders: Array<{ documents: number; sourcesWritten: number }> }>(again).folders).toMatchObject([{ documents: 3, sourcesWritten: 3 }]);
    expect(fs.readdirSync(target).filter((name) => name.startsWith("."))).toEqual([]);
  });
});

describe("every archive export writes imports again", () => {
  it("round-trips a 20 MB repetitive log exported with its source, files no wider than the archive", async () => {
    const home = makeTempDir("archive-big");
    try {
      const folder = path.join(home, "logs");
      const line = "2026-01-01T00:00:00Z INFO worker heartbeat ok queue=0 latency_ms=3\n";
      const log = line.repeat(Math.ceil((20 * 1024 * 1024) / line.length));
      // Processed small (chunking 20 MB takes minutes on a busy machine), then grown to 20 MB:
      // export takes the source as it is on disk, so the archive holds all 20 MB.
      writeFile(folder, "service.log.txt", line.repeat(20));
      const added = await runCliInProcess(["add", folder], { home });
      expect(added.code, added.stderr).toBe(0);
      fs.writeFileSync(path.join(folder, "service.log.txt"), log);
      // A paste gone wrong that processing refuses: not in the index, so it stays behind, never blocking the import.
      writeFile(folder, "_chunks/pasted.txt.md", `## Chunk 1\n\n${"y".repeat(1024 * 1024 + 10)}\n`);
      const archive = path.join(home, "logs.zip");
      const exported = await runCliInProcess(["export", archive, "--with-sources"], { home });
      expect(exported.code, exported.stderr).toBe(0);
      // Far more than the 250:1 that a document's zip may expand: the ratio alone would refuse it.
      expect(fs.statSync(archive).size * 250).toBeLessThan(log.length);
      expect(mode(archive)).toBe(0o600);

      const other = makeTempDir("archive-big-other");
      try {
        const target = path.join(other, "restored");
        const imported = await runCliInProcess(["import", archive, "--into", target, "--json"], { home: other });
        expect(imported.code, imported.stderr).toBe(0);
        expect(fs.existsSync(path.join(target, "_chunks", "pasted.txt.md"))).toBe(false);
        const restored = fs.readFileSync(path.join(target, "service.log.txt"));
        expect(createHash("sha256").update(restored).digest("hex")).toBe(createHash("sha256").update(log).digest("hex"));
        expect(mode(path.join(target, "service.log.txt"))).toBe(0o600);
        expect(mode(path.join(target, "_chunks", "service.log.txt.md"))).toBe(0o600);
        const search = await runCliInProcess(["search", "heartbeat latency", "--mode", "keyword", "--json", "--limit", "1"], { home: other });
        expect(json<{ results: Array<{ relativePath: string }> }>(search).results[0]?.relativePath).toBe("service.log.txt");
      } finally {
        fs.rmSync(other, { recursive: true, force: true });
      }
    } finally {
      fs.rmSync(home, { recursive: true, force: true });
    }
  });
});
