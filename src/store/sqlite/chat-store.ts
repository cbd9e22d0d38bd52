import { randomUUID } from "node:crypto";
import type { ChatStore } from "../chat-contract.js";
import { encodeChunks } from "../chat-chunks.js";
import { toConversation, toMessage, type ConversationRow, type MessageRow as StoredMessageRow } from "../rows.js";
import type { SqliteDatabase } from "./database.js";
import { checkpointDeletedContent, DEFAULT_BUSY_TIMEOUT_MS, openDatabase, toChunkpadError, withDatabaseErrors, writeTransaction } from "./database.js";
import { CHAT_MIGRATIONS, runMigrations } from "./migrations.js";
import { removeSqliteStoreFiles } from "./store-files.js";

/** A messages row as SQLite keeps it: chunk refs as JSON text, incomplete as 0/1. */
type MessageRow = StoredMessageRow<string, number>;

export interface OpenChatStoreOptions {
  /** Path of chunkpad_chat.db (or ":memory:"); parent folders are created. */
  path: string;
  busyTimeoutMs?: number;
  now?: () => Date;
  newId?: () => string;
}

/** The contract's ChatStore with synchronous methods (better-sqlite3 is synchronous). */
type ChatEngine = { [K in Exclude<keyof ChatStore, "destroy">]: ChatStore[K] extends (...args: infer A) => Promise<infer R> ? (...args: A) => R : ChatStore[K] };

export function openChatStore({ path, busyTimeoutMs = DEFAULT_BUSY_TIMEOUT_MS, now = () => new Date(), newId = randomUUID }: OpenChatStoreOptions): ChatStore {
  const db = openDatabase({ path, busyTimeoutMs });
  try {
    runMigrations(db, CHAT_MIGRATIONS, "chat");
    return toAsync(withDatabaseErrors(createChatStore(db, path, now, newId), path));
  } catch (error) {
    db.close();
    throw toChunkpadError(error, path);
  }
}

/** The async contract over the synchronous engine: a microtask per call (as the main store). */
function toAsync(engine: ChatEngine): ChatStore {
  return {
    path: engine.path,
    createConversation: async (conversation) => engine.createConversation(conversation),
    listConversations: async () => engine.listConversations(),
    getConversation: async (id) => engine.getConversation(id),
    addMessage: async (conversationId, message) => engine.addMessage(conversationId, message),
    updateMessage: async (id, changes) => engine.updateMessage(id, changes),
    renameConversation: async (id, title) => engine.renameConversation(id, title),
    deleteConversation: async (id) => engine.deleteConversation(id),
    importConversation: async (conversation) => engine.importConversation(conversation),
    close: async () => engine.close(),
    destroy: async () => {
      engine.close();
      await removeSqliteStoreFiles(engine.path);
    },
  };
}

function createChatStore(db: SqliteDatabase, path: string, now: () => Date, newId: () => string): ChatEngine {
  const conversationById = db.prepare<[string], ConversationRow>("SELECT * FROM conversations WHERE id = ?");
  const messageById = db.prepare<[string], MessageRow>("SELECT * FROM messages WHERE id = ?");
  const messagesOf = db.prepare<[string], MessageRow>("SELECT * FROM messages WHERE conversation_id = ? ORDER BY seq");
  const touch = db.prepare("UPDATE conversations SET updated_at = ? WHERE id = ?");

  return {
    path,

    createConversation({ title, provider = null, model = null }) {
      const timestamp = now().toISOString();
      const id = newId();
      db.prepare("INSERT INTO conversations (id, title, created_at, updated_at, provider, model) VALUES (?, ?, ?, ?, ?, ?)").run(
        id, title, timestamp, timestamp, provider, model,
      );
      return { id, title, createdAt: timestamp, updatedAt: timestamp, provider, model };
    },

    listConversations() {
      return db
        .prepare<[], ConversationRow & { message_count: number }>(`
          SELECT c.*, (SELECT COUNT(*) FROM messages m WHERE m.conversation_id = c.id) AS message_count
          FROM conversations c ORDER BY c.updated_at DESC, c.rowid DESC`)
        .all()
        .map((row) => ({ ...toConversation(row), messageCount: row.message_count }));
    },

    getConversation(id) {
      const row = conversationById.get(id);
      if (!row) return null;
      return { ...toConversation(row), messages: messagesOf.all(id).map(toMessage) };
    },

    addMessage(conversationId, message) {
      return writeTransaction(db, () => {
        if (!conversationById.get(conversationId)) return null;
        const timestamp = now().toISOString();
        const id = newId();
        db.prepare(`
          INSERT INTO messages (id, conversation_id, role, content, chunk_refs, provider, model, created_at, incomplete)
          VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)`).run(
          id, conversationId, message.role, message.content, encodeChunks(message),
          message.provider ?? null, message.model ?? null, timestamp, message.incomplete ? 1 : 0,
        );
        touch.run(timestamp, conversationId);
        return toMessage(messageById.get(id) as MessageRow);
      });
    },

    updateMessage(id, changes) {
      return writeTransaction(db, () => {
        const row = messageById.get(id);
        if (!row) return null;
        const next: MessageRow = {
          ...row,
          content: changes.content ?? row.content,
          chunk_refs: changes.chunkRefs === undefined && changes.citedChunks === undefined && changes.sources === undefined ? row.chunk_refs : encodeChunks(changes),
          incomplete: changes.incomplete === undefined ? row.incomplete : changes.incomplete ? 1 : 0,
          provider: changes.provider === undefined ? row.provider : changes.provider,
          model: changes.model === undefined ? row.model : changes.model,
        };
        db.prepare("UPDATE messages SET content = ?, chunk_refs = ?, incomplete = ?, provider = ?, model = ? WHERE id = ?").run(
          next.content, next.chunk_refs, next.incomplete, next.provider, next.model, id,
        );
        touch.run(now().toISOString(), row.conversation_id);
        return toMessage(next);
      });
    },

    importConversation(conversation) {
      return writeTransaction(db, () => {
        if (conversationById.get(conversation.id)) return false;
        db.prepare("INSERT INTO conversations (id, title, created_at, updated_at, provider, model) VALUES (?, ?, ?, ?, ?, ?)").run(
          conversation.id, conversation.title, conversation.createdAt, conversation.updatedAt, conversation.provider, conversation.model,
        );
        const insert = db.prepare(`
          INSERT INTO messages (id, conversation_id, role, content, chunk_refs, provider, model, created_at, incomplete)
          VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)`);
        for (const message of conversation.messages) {
          insert.run(
            message.id, conversation.id, message.role, message.content, encodeChunks(message),
            message.provider, message.model, message.createdAt, message.incomplete ? 1 : 0,
          );
        }
        return true;
      });
    },

    renameConversation(id, title) {
      return db.prepare("UPDATE conversations SET title = ? WHERE id = ?").run(title, id).changes > 0;
    },

    deleteConversation(id) {
      const deleted = db.prepare("DELETE FROM conversations WHERE id = ?").run(id).changes > 0;
      // secure_delete zeroed the rows; the checkpoint drops the WAL's older copies of them.
      if (deleted) checkpointDeletedContent(db);
      return deleted;
    },

    close() {
      if (db.open) db.close();
    },
  };
}
