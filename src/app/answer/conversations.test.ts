import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { describe, expect, it } from "vitest";
import type { ChunkRecord } from "../../core/types.js";
import { openChatStore } from "../../store/index.js";
import { deleteConversation, findConversationId, getConversation } from "./conversations.js";

function chatStore(ids: string[]) {
  const directory = fs.mkdtempSync(path.join(os.tmpdir(), "chunkpad-conversations-"));
  let next = 0;
  return openChatStore({ path: path.join(directory, "chat.db"), newId: () => ids[next++] ?? `id-${next}` });
}

const chunk = (ref: string, page?: number): ChunkRecord => ({
  ref, documentId: "d", folderId: "f", relativePath: ref.slice(2, ref.indexOf("#")), ordinal: 1, title: "t", content: "c", contentHash: "h", included: true,
  ...(page === undefined ? {} : { page }),
});

describe("stored conversations", () => {
  it("resolves an answer's [C#] to the chunk refs stored in label order, with file and page", async () => {
    const chats = chatStore(["aaaa1111", "m1", "m2"]);
    await chats.createConversation({ title: "Warranty" });
    await chats.addMessage("aaaa1111", { role: "user", content: "How long?", chunkRefs: ["f:a.pdf#1"] });
    await chats.addMessage("aaaa1111", { role: "assistant", content: "Two years [C2]. Maybe [C1][C5].", chunkRefs: ["f:a.pdf#1", "f:b.pdf#3"] });
    const view = await getConversation(chats, async (refs) => refs.filter((ref) => ref === "f:b.pdf#3").map((ref) => chunk(ref, 4)), "aaaa");
    const answer = view.messages[1];
    expect(answer?.citations).toEqual([
      // Stored before citations kept their text: no text to show.
      { label: "C2", ref: "f:b.pdf#3", source: "b.pdf", location: "p. 4", missing: false, text: null, changed: false },
      // Deleted since: still named by its ref.
      { label: "C1", ref: "f:a.pdf#1", source: "a.pdf", location: null, missing: true, text: null, changed: true },
    ]);
    expect(answer?.invalidCitations).toEqual(["C5"]);
    expect(view.messages[0]?.citations).toEqual([]);
  });

  it("keeps the text each citation was given, and marks it changed when the chunk's text is not that any more", async () => {
    const chats = chatStore(["bbbb2222", "m1"]);
    await chats.createConversation({ title: "Garden" });
    await chats.addMessage("bbbb2222", {
      role: "assistant",
      content: "Sun [C1], water [C2], soil [C3].",
      citedChunks: [
        { ref: "f:a.md#1", contentHash: "h", text: "Tomatoes need sun." },
        { ref: "f:a.md#2", contentHash: "old", text: "Water them daily." },
        { ref: "f:gone.md#1", contentHash: "x", text: "Loam is best." },
      ],
    });
    const view = await getConversation(chats, async (refs) => refs.filter((ref) => ref.startsWith("f:a.md")).map((ref) => chunk(ref)), "bbbb");
    expect(view.messages[0]?.chunkRefs).toEqual(["f:a.md#1", "f:a.md#2", "f:gone.md#1"]);
    expect(view.messages[0]?.citations.map(({ label, text, changed, missing }) => ({ label, text, changed, missing }))).toEqual([
      { label: "C1", text: "Tomatoes need sun.", changed: false, missing: false },
      { label: "C2", text: "Water them daily.", changed: true, missing: false },
      { label: "C3", text: "Loam is best.", changed: true, missing: true },
    ]);
  });

  it("finds a conversation by a unique start of its id, and says when that is ambiguous or absent", async () => {
    const chats = chatStore(["abc-1", "abd-2"]);
    await chats.createConversation({ title: "one" });
    await chats.createConversation({ title: "two" });
    expect(await findConversationId(chats, "abc")).toBe("abc-1");
    await expect(findConversationId(chats, "ab")).rejects.toThrow(/starts 2 conversation ids/);
    await expect(findConversationId(chats, "zzz")).rejects.toThrow(expect.objectContaining({ code: "NOT_FOUND" }));
    expect(await deleteConversation(chats, "abd")).toBe("abd-2");
    expect((await chats.listConversations()).map((conversation) => conversation.id)).toEqual(["abc-1"]);
  });
});
