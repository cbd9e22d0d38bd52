import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import { afterAll } from "vitest";
import { runChatStoreSuite } from "../chat-conformance.js";
import { openChatStore } from "./chat-store.js";

const directories: string[] = [];
afterAll(() => {
  for (const directory of directories.splice(0)) fs.rmSync(directory, { recursive: true, force: true });
});

function chatFile(): string {
  const directory = fs.mkdtempSync(path.join(os.tmpdir(), "chunkpad-chat-"));
  directories.push(directory);
  return path.join(directory, "data", "chunkpad_chat.db");
}

runChatStoreSuite({
  name: "sqlite",
  open: ({ now }) => openChatStore({ path: chatFile(), now }),
  // Closed and opened again from the file: conversations outlive the process.
  reopen: async (store) => {
    await store.close();
    return openChatStore({ path: store.path });
  },
});
