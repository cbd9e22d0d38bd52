import { afterEach, describe, expect, it } from "vitest";
import type { ChatStore } from "./chat-contract.js";

/**
 * The behaviour every chat-store backend must have (as runStoreSuite for the main store).
 * `open` gives a new, empty store for each test; `reopen` (optional) opens the same data again,
 * to show that conversations outlive the process. Excluded from the build (a test helper).
 */
export interface ChatStoreSuiteOptions {
  name: string;
  open: (options: { now: () => Date }) => ChatStore | Promise<ChatStore>;
  reopen?: (store: ChatStore) => ChatStore | Promise<ChatStore>;
}

/** A clock that moves one second per call, so ordering by time is deterministic. */
function steppingClock(): () => Date {
  let seconds = 0;
  return () => new Date(Date.UTC(2026, 0, 1, 0, 0, seconds++));
}

export function runChatStoreSuite({ name, open, reopen }: ChatStoreSuiteOptions): void {
  describe(`chat store contract: ${name}`, () => {
    const opened: ChatStore[] = [];
    afterEach(async () => {
      for (const store of opened.splice(0).reverse()) await store.close();
    });
    async function fresh(): Promise<ChatStore> {
      const store = await open({ now: steppingClock() });
      opened.push(store);
      return store;
    }

    it("keeps conversations and messages, with what each answer cited", async () => {
      const store = await fresh();
      const conversation = await store.createConversation({ title: "Tomatoes", provider: "ollama", model: "llama3.2" });
      await store.addMessage(conversation.id, { role: "user", content: "How much sun do tomatoes need?" });
      const answer = await store.addMessage(conversation.id, { role: "assistant", content: "", chunkRefs: ["ab12cd34:tomatoes.md#1"], provider: "ollama", model: "llama3.2", incomplete: true });
      expect(answer).toMatchObject({ role: "assistant", incomplete: true, chunkRefs: ["ab12cd34:tomatoes.md#1"] });
      const cited = [{ ref: "ab12cd34:tomatoes.md#1", contentHash: "h1", text: "Tomatoes want full sun." }];
      expect(await store.updateMessage(answer?.id ?? "", { content: "Full sun [C1].", citedChunks: cited, incomplete: false })).toMatchObject({ content: "Full sun [C1].", incomplete: false, provider: "ollama", citedChunks: cited });

      let reader = store;
      if (reopen) {
        reader = await reopen(store);
        if (reader !== store) opened.push(reader);
      }
      const stored = await reader.getConversation(conversation.id);
      expect(stored).toMatchObject({ title: "Tomatoes", provider: "ollama", model: "llama3.2" });
      expect(stored?.messages.map((message) => [message.role, message.content, message.incomplete, message.chunkRefs])).toEqual([
        ["user", "How much sun do tomatoes need?", false, []],
        ["assistant", "Full sun [C1].", false, ["ab12cd34:tomatoes.md#1"]],
      ]);
      expect(stored?.messages[1]?.citedChunks).toEqual(cited);
    });

    it("lists conversations newest activity first with message counts, renames and deletes", async () => {
      const store = await fresh();
      const first = await store.createConversation({ title: "First" });
      const second = await store.createConversation({ title: "Second" });
      await store.addMessage(first.id, { role: "user", content: "back to the first one" });
      expect((await store.listConversations()).map((summary) => [summary.title, summary.messageCount])).toEqual([["First", 1], ["Second", 0]]);

      expect(await store.renameConversation(second.id, "Renamed")).toBe(true);
      expect(await store.renameConversation("missing", "x")).toBe(false);
      expect((await store.getConversation(second.id))?.title).toBe("Renamed");

      expect(await store.deleteConversation(first.id)).toBe(true);
      expect(await store.getConversation(first.id)).toBeNull();
      expect((await store.listConversations()).map((summary) => summary.title)).toEqual(["Renamed"]);
      expect(await store.addMessage(first.id, { role: "user", content: "into the void" })).toBeNull();
      expect(await store.updateMessage("missing", { content: "x" })).toBeNull();
    });

    it("imports a conversation as it is, ids and times kept, once", async () => {
      const source = await fresh();
      const conversation = await source.createConversation({ title: "Copied", provider: "ollama", model: "m" });
      await source.addMessage(conversation.id, { role: "user", content: "q" });
      await source.addMessage(conversation.id, { role: "assistant", content: "a [C1]", citedChunks: [{ ref: "f:a.md#1", contentHash: "h", text: "t" }] });
      const original = await source.getConversation(conversation.id);
      const target = await fresh();
      await Promise.all((await target.listConversations()).map((existing) => target.deleteConversation(existing.id)));
      expect(await target.importConversation(original!)).toBe(true);
      expect(await target.importConversation(original!)).toBe(false);
      expect(await target.getConversation(conversation.id)).toEqual(original);
    });

    it("keeps a question's sources with their relevance and the user's toggles, and changes them", async () => {
      const store = await fresh();
      const conversation = await store.createConversation({ title: "Sources" });
      const sources = {
        searchMode: "hybrid",
        chunks: [
          { ref: "f:a.md#1", included: true, scores: { score: 0.82, distance: 0.31, keywordScore: 4.5, vectorRank: 1, keywordRank: 2 } },
          { ref: "f:b.md#3", included: true, scores: { score: 0.4, pinned: true } },
        ],
      };
      const question = await store.addMessage(conversation.id, { role: "user", content: "q", sources });
      expect(question).toMatchObject({ chunkRefs: ["f:a.md#1", "f:b.md#3"], sources });
      const switchedOff = { ...sources, chunks: sources.chunks.map((chunk, index) => ({ ...chunk, included: index !== 0 })) };
      await store.updateMessage(question?.id ?? "", { sources: switchedOff });
      let reader = store;
      if (reopen) {
        reader = await reopen(store);
        if (reader !== store) opened.push(reader);
      }
      const [stored] = (await reader.getConversation(conversation.id))?.messages ?? [];
      expect(stored).toMatchObject({ chunkRefs: ["f:a.md#1", "f:b.md#3"], sources: switchedOff, citedChunks: [] });
      // A message stored without sources has none.
      const answer = await reader.addMessage(conversation.id, { role: "assistant", content: "a" });
      expect(answer?.sources).toBeNull();
    });

    it("keeps many messages in the order they were added", async () => {
      const store = await fresh();
      const conversation = await store.createConversation({ title: "Order" });
      for (let turn = 0; turn < 12; turn += 1) await store.addMessage(conversation.id, { role: turn % 2 === 0 ? "user" : "assistant", content: `turn ${turn}` });
      expect((await store.getConversation(conversation.id))?.messages.map((message) => message.content)).toEqual(Array.from({ length: 12 }, (_, turn) => `turn ${turn}`));
    });
  });
}
