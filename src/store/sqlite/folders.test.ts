import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { openSqliteMainStore } from "./main-store.js";

const cleanups: (() => void)[] = [];
afterEach(() => {
  for (const cleanup of cleanups.splice(0).reverse()) cleanup();
});

function twoProcesses() {
  const directory = fs.mkdtempSync(path.join(os.tmpdir(), "chunkpad-folders-"));
  const file = path.join(directory, "chunkpad.db");
  // The server's connection, and another process's (`chunkpad add` while `serve` runs).
  const server = openSqliteMainStore({ path: file, loadVectorExtension: false });
  const other = openSqliteMainStore({ path: file, loadVectorExtension: false });
  cleanups.push(() => fs.rmSync(directory, { recursive: true, force: true }), () => server.close(), () => other.close());
  return { server, other };
}

const add = (store: ReturnType<typeof openSqliteMainStore>, folderId: string, relativePath: string, contents: string[]) =>
  store.syncDocument({ folderId, relativePath, title: relativePath, documentType: "md", fileSize: 10, pageCount: null, chunks: contents.map((content) => ({ content, meta: {} })) });

// The folder summaries (their counts read every chunk) are kept between writes (issue 22): a
// status asked for again and again must still show every write, from this process or another.
describe("folder summaries", () => {
  it("show a write made through this connection at the next listing", () => {
    const { server } = twoProcesses();
    const folder = server.upsertFolder("/home/me/notes", "/home/me/notes/_chunks");
    expect(server.listFolders()[0]?.storedChunkCount).toBe(0);
    add(server, folder.id, "a.md", ["The heron waits.", "The river runs."]);
    expect(server.listFolders()[0]).toMatchObject({ documentCount: 1, storedChunkCount: 2 });
  });

  it("show a write made by another process at the next listing", () => {
    const { server, other } = twoProcesses();
    const folder = server.upsertFolder("/home/me/notes", "/home/me/notes/_chunks");
    expect(server.listFolders()).toHaveLength(1);
    add(other, folder.id, "a.md", ["The heron waits."]);
    expect(server.listFolders()[0]).toMatchObject({ documentCount: 1, storedChunkCount: 1 });
    other.upsertFolder("/home/me/work", "/home/me/work/_chunks");
    expect(server.listFolders().map((listed) => listed.rootPath)).toEqual(["/home/me/notes", "/home/me/work"]);
  });

  it("give each caller its own copy", () => {
    const { server } = twoProcesses();
    server.upsertFolder("/home/me/notes", "/home/me/notes/_chunks");
    const first = server.listFolders();
    (first[0] as { documentCount: number }).documentCount = 99;
    expect(server.listFolders()[0]?.documentCount).toBe(0);
  });
});
