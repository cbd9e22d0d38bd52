import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { embedTextHash } from "../../core/chunk-ref.js";
import type { KeywordQuery } from "../../core/keyword-query.js";
import { openChatStore, openMainStore } from "../../store/index.js";
import { openPostgresChatStore } from "../../store/postgres/chat-store.js";
import { openPostgresStore } from "../../store/postgres/main-store.js";
import { startPgliteServer, type PgliteServer } from "../../store/postgres/pglite-server.js";
import { migrateStore, type MigrateProgress } from "./migrate-store.js";

let server: PgliteServer;
let directory: string;
beforeAll(async () => {
  server = await startPgliteServer();
  directory = fs.mkdtempSync(path.join(os.tmpdir(), "chunkpad-migrate-"));
});
afterAll(async () => {
  await server?.stop();
  fs.rmSync(directory, { recursive: true, force: true });
});

const words = (...terms: string[]): KeywordQuery => ({ terms: terms.map((word) => ({ word, prefix: false })), match: "all", phrases: [], exclude: [] });

describe("migrate a SQLite store to PostgreSQL", () => {
  it("copies folders, documents, review decisions, vectors and conversations; both sides count and search alike", async () => {
    const source = openMainStore({ path: path.join(directory, "chunkpad.db") });
    const sourceChats = openChatStore({ path: path.join(directory, "chunkpad_chat.db") });
    const folder = await source.upsertFolder("/zoo", "/zoo/_chunks");
    await source.setFolderSettings(folder.id, { chunkSizeTokens: 200 });
    await source.syncDocument({ folderId: folder.id, relativePath: "animals.md", title: "Animals", documentType: "md", fileSize: 10, pageCount: 2, chunks: [
      { content: "The cat sleeps on the warm sofa.", meta: { page: 1, section: "Cats" } },
      { content: "The eel swims in the river.", meta: { page: 2 } },
      { content: "A fox hunts at night near the river.", meta: {} },
    ] });
    await source.upsertSource({ folderId: folder.id, relativePath: "animals.md", size: 10, mtimeMs: 5, sourceHash: "s", chunkFileHash: null, syncedChunkFileHash: null, status: "processed", errorCode: null, errorMessage: null, processedAt: "2026-01-01T00:00:00.000Z" });
    const ref = (n: number) => `${folder.id}:animals.md#${n}`;
    await source.setIncluded([ref(3)], false);
    await source.ensureVectorTable(2);
    const chunks = await source.getChunks([ref(1), ref(2)]);
    await source.upsertVectors(chunks.map((chunk, index) => ({ ref: chunk.ref, embedHash: embedTextHash(chunk), embedding: new Float32Array(index === 0 ? [1, 0] : [0, 1]) })), "model-a");
    const conversation = await sourceChats.createConversation({ title: "Rivers" });
    await sourceChats.addMessage(conversation.id, { role: "user", content: "Who swims?" });
    await sourceChats.addMessage(conversation.id, { role: "assistant", content: "The eel [C1].", citedChunks: [{ ref: ref(2), contentHash: "h", text: "The eel swims in the river." }] });

    const target = await openPostgresStore({ url: server.url, poolSize: 2 });
    const targetChats = await openPostgresChatStore({ url: server.url, poolSize: 1 });
    const progress: MigrateProgress[] = [];
    const report = await migrateStore({ source, sourceChats, target, targetChats, onProgress: (step) => progress.push(step) });

    expect(report.mismatches).toEqual([]);
    expect(report.copied).toEqual({ folders: 1, documents: 1, chunks: 3, excludedChunks: 1, vectors: 2, conversations: 1, messages: 2 });
    expect(progress.map((step) => step.stage)).toEqual(expect.arrayContaining(["documents", "vectors", "conversations", "verify"]));
    expect(await target.getFolderSettings(folder.id)).toEqual({ chunkSizeTokens: 200 });
    expect(await target.listExcludedRefs()).toEqual([ref(3)]);
    expect(await target.getChunk(ref(1))).toEqual(await source.getChunk(ref(1)));
    expect((await target.getSource(folder.id, "animals.md"))?.sourceHash).toBe("s");
    const hitsOf = async (store: typeof source) => (await store.keywordSearch(words("river"), { limit: 5 })).map((hit) => hit.chunk.ref);
    expect(await hitsOf(target)).toEqual(await hitsOf(source));
    expect((await target.vectorSearch(new Float32Array([1, 0.1]), { k: 2 })).map((hit) => [hit.chunk.ref, hit.stale])).toEqual([[ref(1), false], [ref(2), false]]);
    expect(await targetChats.getConversation(conversation.id)).toEqual(await sourceChats.getConversation(conversation.id));

    // A second run would copy over a store that already holds folders: refused.
    await expect(migrateStore({ source, sourceChats, target, targetChats })).rejects.toMatchObject({ code: "INVALID_ARGUMENT" });
    await Promise.all([source.close(), sourceChats.close(), target.close(), targetChats.close()]);
  });
});
