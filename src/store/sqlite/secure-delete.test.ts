import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import type { ChunkDraft } from "../../core/types.js";
import { openChatStore } from "./chat-store.js";
import { openSqliteMainStore } from "./main-store.js";

/** A word no other text in these tests contains, so finding it in the files means the text is still there. */
const SECRET_WORD = "zanzibarquokka";

const cleanups: (() => void)[] = [];
afterEach(() => {
  for (const cleanup of cleanups.splice(0).reverse()) cleanup();
});

function temporaryDirectory(): string {
  const directory = fs.mkdtempSync(path.join(os.tmpdir(), "chunkpad-secure-delete-"));
  cleanups.push(() => fs.rmSync(directory, { recursive: true, force: true }));
  return directory;
}

/** How often `word` occurs in the raw bytes of the database, its WAL and its shared-memory file. */
function occurrences(databasePath: string, word: string): Record<string, number> {
  const counts: Record<string, number> = {};
  for (const suffix of ["", "-wal", "-shm"]) {
    let bytes: Buffer;
    try {
      bytes = fs.readFileSync(`${databasePath}${suffix}`);
    } catch {
      continue;
    }
    let count = 0;
    for (let at = bytes.indexOf(word); at >= 0; at = bytes.indexOf(word, at + 1)) count += 1;
    counts[`chunkpad.db${suffix}`] = count;
  }
  return counts;
}

function novel(word: string, chunks: number): ChunkDraft[] {
  return Array.from({ length: chunks }, (_, index) => ({
    content: Array.from({ length: 40 }, (_, line) => `Chapter ${index} line ${line}: the ${word}${line % 7} walked past the lighthouse.`).join(" "),
    meta: { page: index + 1 },
  }));
}

function storeWithTwoFolders() {
  const file = path.join(temporaryDirectory(), "data", "chunkpad.db");
  const store = openSqliteMainStore({ path: file, loadVectorExtension: false });
  cleanups.push(() => store.close());
  const secret = store.upsertFolder("/secret", "/secret/_chunks");
  const kept = store.upsertFolder("/kept", "/kept/_chunks");
  const sync = (folderId: string, relativePath: string, chunks: ChunkDraft[]) =>
    store.syncDocument({ folderId, relativePath, title: relativePath, documentType: "txt", fileSize: 1, pageCount: null, chunks });
  sync(secret.id, "novel.txt", novel(SECRET_WORD, 60));
  sync(kept.id, "diary.txt", novel("pelican", 60));
  sync(secret.id, "second.txt", novel("pelican", 5));
  return { file, store, secret, kept };
}

const none = (file: string) => Object.fromEntries(Object.keys(occurrences(file, "x")).map((name) => [name, 0]));

describe("deleting leaves no text behind in the database files", () => {
  it("removes a folder's words from chunkpad.db, its WAL and shm, while the store is still open and after", () => {
    const { file, store, secret } = storeWithTwoFolders();
    expect(occurrences(file, SECRET_WORD)["chunkpad.db-wal"]).toBeGreaterThan(0);

    expect(store.removeFolder(secret.id)).toBe(true);
    expect(occurrences(file, SECRET_WORD)).toEqual(none(file));
    // The title and path of the removed document are gone too; the other folder still answers.
    expect(occurrences(file, "novel.txt")).toEqual(none(file));
    expect(store.listDocuments().map((document) => document.relativePath)).toEqual(["diary.txt"]);

    store.close();
    expect(occurrences(file, SECRET_WORD)).toEqual(none(file));
  });

  it("removes a deleted document's words (a source gone from the folder) by the time the store closes", () => {
    const { file, store, secret } = storeWithTwoFolders();
    expect(store.deleteDocument(secret.id, "novel.txt")).toBe(true);
    store.close();
    expect(occurrences(file, SECRET_WORD)).toEqual(none(file));
  });

  it("removes a deleted conversation's messages from the chat database", async () => {
    const file = path.join(temporaryDirectory(), "data", "chunkpad_chat.db");
    const chat = openChatStore({ path: file });
    cleanups.push(() => void chat.close());
    const secret = await chat.createConversation({ title: `About the ${SECRET_WORD}` });
    const kept = await chat.createConversation({ title: "Pelicans" });
    for (let turn = 0; turn < 50; turn += 1) {
      await chat.addMessage(secret.id, { role: "user", content: `Where does the ${SECRET_WORD} sleep? (${turn})` });
      await chat.addMessage(secret.id, { role: "assistant", content: `The ${SECRET_WORD} sleeps in the lighthouse [C1]. `.repeat(20) });
      await chat.addMessage(kept.id, { role: "user", content: `Where do pelicans fish? (${turn})` });
    }
    expect(await chat.deleteConversation(secret.id)).toBe(true);
    expect(occurrences(file, SECRET_WORD)).toEqual(none(file));
    expect((await chat.getConversation(kept.id))?.messages).toHaveLength(50);
  });

  it("removes a re-chunked document's old words from the database file", () => {
    const { file, store, secret } = storeWithTwoFolders();
    store.syncDocument({ folderId: secret.id, relativePath: "novel.txt", title: "novel.txt", documentType: "txt", fileSize: 1, pageCount: null, chunks: novel("pelican", 3) });
    store.close();
    expect(occurrences(file, SECRET_WORD)).toEqual(none(file));
  });
});

describe("database file permissions", () => {
  it("creates the data folder 0700 and the database, WAL and shm 0600 whatever the umask, and tightens older loose ones", async () => {
    if (process.platform === "win32") return;
    const root = temporaryDirectory();
    const previous = process.umask(0o022);
    try {
      const fresh = path.join(root, "fresh", "chunkpad.db");
      const store = openSqliteMainStore({ path: fresh, loadVectorExtension: false });
      cleanups.push(() => store.close());
      store.upsertFolder("/docs", "/docs/_chunks");
      const mode = (target: string) => (fs.statSync(target).mode & 0o777).toString(8);
      expect([mode(path.dirname(fresh)), mode(fresh), mode(`${fresh}-wal`), mode(`${fresh}-shm`)]).toEqual(["700", "600", "600", "600"]);

      // As an older Chunkpad left them: a 0755 folder and 0644 files.
      const older = path.join(root, "older", "chunkpad_chat.db");
      const first = openChatStore({ path: older });
      await first.createConversation({ title: "x" });
      fs.chmodSync(path.dirname(older), 0o755);
      for (const suffix of ["", "-wal", "-shm"]) fs.chmodSync(`${older}${suffix}`, 0o644);
      const second = openChatStore({ path: older });
      cleanups.push(() => void second.close(), () => void first.close());
      expect([mode(path.dirname(older)), mode(older), mode(`${older}-wal`), mode(`${older}-shm`)]).toEqual(["700", "600", "600", "600"]);
    } finally {
      process.umask(previous);
    }
  });
});
