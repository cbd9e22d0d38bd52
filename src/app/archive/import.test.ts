import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { strToU8, zipSync } from "fflate";
import { afterEach, describe, expect, it } from "vitest";
import { renderChunkFile } from "../../chunkfiles/format.js";
import { openMainStore, type MainStore } from "../../store/index.js";
import { ARCHIVE_FORMAT, type Manifest } from "./archive-format.js";
import { importArchive, type ImportDependencies } from "./import.js";

/**
 * An import stopped half-way by a crash: the rows it wrote stay in the database, the process
 * gone before it could undo them. The next import into the same folder must start clean. The
 * crash is a store that fails (and cannot undo) from one call on; files and SQLite are real.
 */

let store: MainStore | undefined;
afterEach(async () => {
  await store?.close();
  store = undefined;
});

function archiveOf(directory: string): string {
  const chunks = [{ content: "The heron waits by the river at dawn.", meta: {} }];
  const chunkFile = renderChunkFile(chunks, { source: "notes.md" });
  const manifest: Manifest = {
    format: ARCHIVE_FORMAT,
    createdAt: "2026-01-01T00:00:00Z",
    embedding: null,
    folders: [
      {
        prefix: "folders/0/",
        rootPath: "/somewhere/else",
        chunking: { chunkSizeTokens: 400, chunkOverlapTokens: 60 },
        newChunksIncluded: true,
        documents: [{ relativePath: "notes.md", title: "Notes", documentType: "markdown", fileSize: 40, pageCount: null, source: null, chunks: chunks.map((chunk) => ({ ...chunk, included: true })) }],
        chunkFiles: ["notes.md.md"],
        sources: [],
        vectors: [],
      },
    ],
  };
  const file = path.join(directory, "notes.zip");
  fs.writeFileSync(file, zipSync({ "manifest.json": strToU8(JSON.stringify(manifest)), "folders/0/chunks/notes.md.md": strToU8(chunkFile) }), { mode: 0o600 });
  return file;
}

/** The store as a crash leaves it: from `from` on, no call reaches the database (the undo neither). */
function crashing(real: MainStore, from: keyof MainStore): MainStore {
  let crashed = false;
  const undo = new Set<PropertyKey>(["removeFolder", "deleteMeta", "deleteDocument", "deleteSource"]);
  return new Proxy(real, {
    get(target, property) {
      const value = Reflect.get(target, property) as unknown;
      if (typeof value !== "function") return value;
      return async (...args: unknown[]) => {
        if (property === from) crashed = true;
        if (crashed && (property === from || undo.has(property))) throw new Error("power cut");
        return (value as (...parameters: unknown[]) => unknown).apply(target, args);
      };
    },
  });
}

describe("importArchive after a crash", () => {
  it("undoes the rows of an import that never finished, so a second try works and holds each document once", async () => {
    const directory = fs.mkdtempSync(path.join(os.tmpdir(), "chunkpad-import-crash-"));
    const file = archiveOf(directory);
    const into = path.join(directory, "restored");
    store = openMainStore({ path: path.join(directory, "chunkpad.db") });
    const dependencies = (candidate: MainStore): ImportDependencies => ({ store: candidate, configuredIdentity: null, fallbackChunksRoot: (folderId) => path.join(directory, "chunks", folderId) });

    await expect(importArchive(dependencies(crashing(store, "updateFolderStats")), file, { into })).rejects.toThrow(/power cut/);
    // The crash left rows behind, as a killed process would.
    expect((await store.listDocuments()).map((document) => document.relativePath)).toEqual(["notes.md"]);

    const report = await importArchive(dependencies(store), file, { into });
    expect(report.folders).toMatchObject([{ rootPath: path.join(fs.realpathSync(directory), "restored"), documents: 1, chunkFilesWritten: 1 }]);
    expect((await store.listChunks()).map((chunk) => chunk.content)).toEqual(["The heron waits by the river at dawn."]);
    expect(fs.readdirSync(path.join(into, "_chunks"))).toEqual(["notes.md.md"]);
    expect((fs.statSync(path.join(into, "_chunks", "notes.md.md")).mode & 0o777).toString(8)).toBe("600");
    fs.rmSync(directory, { recursive: true, force: true });
  });
});
