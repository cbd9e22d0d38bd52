import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { openChatStore } from "./chat-store.js";

const directories: string[] = [];
afterEach(() => {
  for (const directory of directories.splice(0)) fs.rmSync(directory, { recursive: true, force: true });
});

function chatFile(): string {
  const directory = fs.mkdtempSync(path.join(os.tmpdir(), "chunkpad-chat-"));
  directories.push(directory);
  return path.join(directory, "data", "chunkpad_chat.db");
}

/** A clock that moves one second per call, so ordering by time is deterministic. */
function steppingClock(): () => Date {
  let seconds = 0;
  return () => new Date(Date.UTC(2026, 0, 1, 0, 0, seconds++));
}

describe("chat store", () => {
  it("keeps conversations and messages across a reopen", () => {
    const file = chatFile();
    const store = openChatStore({ path: file, now: steppingClock() });
    const conversation = store.createConversation({ title: "Tomatoes", provider: "ollama", model: "llama3.2" });
    store.addMessage(conversation.id, { role: "user", content: "How much sun do tomatoes need?" });
    const answer = store.addMessage(conversation.id, { role: "assistant", content: "", chunkRefs: ["ab12cd34:tomatoes.md#1"], provider: "ollama", model: "llama3.2", incomplete: true });
    expect(answer).toMatchObject({ role: "assistant", incomplete: true, chunkRefs: ["ab12cd34:tomatoes.md#1"] });
    expect(store.updateMessage(answer?.id ?? "", { content: "Full sun [C1].", incomplete: false })).toMatchObject({ content: "Full sun [C1].", incomplete: false, provider: "ollama" });
    store.close();

    const reopened = openChatStore({ path: file });
    const stored = reopened.getConversation(conversation.id);
    expect(stored).toMatchObject({ title: "Tomatoes", provider: "ollama", model: "llama3.2" });
    expect(stored?.messages.map((message) => [message.role, message.content, message.incomplete, message.chunkRefs])).toEqual([
      ["user", "How much sun do tomatoes need?", false, []],
      ["assistant", "Full sun [C1].", false, ["ab12cd34:tomatoes.md#1"]],
    ]);
    reopened.close();
  });

  it("lists conversations newest activity first with message counts, renames and deletes", () => {
    const store = openChatStore({ path: chatFile(), now: steppingClock() });
    const first = store.createConversation({ title: "First" });
    const second = store.createConversation({ title: "Second" });
    store.addMessage(first.id, { role: "user", content: "back to the first one" });
    expect(store.listConversations().map((summary) => [summary.title, summary.messageCount])).toEqual([["First", 1], ["Second", 0]]);

    expect(store.renameConversation(second.id, "Renamed")).toBe(true);
    expect(store.renameConversation("missing", "x")).toBe(false);
    expect(store.getConversation(second.id)?.title).toBe("Renamed");

    expect(store.deleteConversation(first.id)).toBe(true);
    expect(store.getConversation(first.id)).toBeNull();
    expect(store.listConversations().map((summary) => summary.title)).toEqual(["Renamed"]);
    expect(store.addMessage(first.id, { role: "user", content: "into the void" })).toBeNull();
    expect(store.updateMessage("missing", { content: "x" })).toBeNull();
    store.close();
  });
});
