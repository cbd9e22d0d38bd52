import { randomUUID } from "node:crypto";
import type { ChatStore } from "../chat-contract.js";
import { encodeChunks } from "../chat-chunks.js";
import { toConversation, toMessage, type ConversationRow, type MessageRow } from "../rows.js";
import { createPool, describeUrl, inTransaction, toDatabaseError, withPostgresErrors } from "./connection.js";
import { migrate } from "./schema.js";

/** Conversations on PostgreSQL, in the same database as the main store (a team shares them). */

export interface OpenPostgresChatStoreOptions {
  url: string;
  poolSize?: number;
  now?: () => Date;
  newId?: () => string;
}

export async function openPostgresChatStore({ url, poolSize = 4, now = () => new Date(), newId = randomUUID }: OpenPostgresChatStoreOptions): Promise<ChatStore> {
  const where = describeUrl(url);
  const pool = createPool({ url, poolSize });
  try {
    await migrate(pool, where);
  } catch (error) {
    await pool.end().catch(() => undefined);
    throw toDatabaseError(error, where);
  }
  let closed = false;
  const close = async () => {
    if (closed) return;
    closed = true;
    await pool.end();
  };

  const store: ChatStore = {
    path: where,
    async createConversation({ title, provider = null, model = null }) {
      const timestamp = now().toISOString();
      const id = newId();
      await pool.query("INSERT INTO conversations (id, title, created_at, updated_at, provider, model) VALUES ($1, $2, $3, $3, $4, $5)", [id, title, timestamp, provider, model]);
      return { id, title, createdAt: timestamp, updatedAt: timestamp, provider, model };
    },
    async listConversations() {
      const rows = (await pool.query<ConversationRow & { message_count: number }>(
        "SELECT c.*, (SELECT COUNT(*) FROM messages m WHERE m.conversation_id = c.id) AS message_count FROM conversations c ORDER BY c.updated_at DESC, c.seq DESC",
      )).rows;
      return rows.map((row) => ({ ...toConversation(row), messageCount: Number(row.message_count) }));
    },
    async getConversation(id) {
      const row = (await pool.query<ConversationRow>("SELECT * FROM conversations WHERE id = $1", [id])).rows[0];
      if (!row) return null;
      const messages = (await pool.query<MessageRow>("SELECT * FROM messages WHERE conversation_id = $1 ORDER BY seq", [id])).rows;
      return { ...toConversation(row), messages: messages.map(toMessage) };
    },
    async addMessage(conversationId, message) {
      return inTransaction(pool, async (client) => {
        const timestamp = now().toISOString();
        const touched = (await client.query("UPDATE conversations SET updated_at = $2 WHERE id = $1", [conversationId, timestamp])).rowCount ?? 0;
        if (touched === 0) return null;
        const id = newId();
        const inserted = await client.query<MessageRow>(
          `INSERT INTO messages (id, conversation_id, role, content, chunk_refs, provider, model, created_at, incomplete) VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9) RETURNING *`,
          [id, conversationId, message.role, message.content, encodeChunks(message), message.provider ?? null, message.model ?? null, timestamp, message.incomplete === true],
        );
        return toMessage(inserted.rows[0] as MessageRow);
      });
    },
    async updateMessage(id, changes) {
      return inTransaction(pool, async (client) => {
        const row = (await client.query<MessageRow>("SELECT * FROM messages WHERE id = $1 FOR UPDATE", [id])).rows[0];
        if (!row) return null;
        const chunkRefs = changes.chunkRefs === undefined && changes.citedChunks === undefined && changes.sources === undefined ? JSON.stringify(row.chunk_refs) : encodeChunks(changes);
        const updated = await client.query<MessageRow>(
          "UPDATE messages SET content = $2, chunk_refs = $3, incomplete = $4, provider = $5, model = $6 WHERE id = $1 RETURNING *",
          [id, changes.content ?? row.content, chunkRefs, changes.incomplete ?? row.incomplete, changes.provider === undefined ? row.provider : changes.provider, changes.model === undefined ? row.model : changes.model],
        );
        await client.query("UPDATE conversations SET updated_at = $2 WHERE id = $1", [row.conversation_id, now().toISOString()]);
        return toMessage(updated.rows[0] as MessageRow);
      });
    },
    async renameConversation(id, title) {
      return ((await pool.query("UPDATE conversations SET title = $2 WHERE id = $1", [id, title])).rowCount ?? 0) > 0;
    },
    async importConversation(conversation) {
      return inTransaction(pool, async (client) => {
        const inserted = await client.query(
          "INSERT INTO conversations (id, title, created_at, updated_at, provider, model) VALUES ($1, $2, $3, $4, $5, $6) ON CONFLICT (id) DO NOTHING",
          [conversation.id, conversation.title, conversation.createdAt, conversation.updatedAt, conversation.provider, conversation.model],
        );
        if ((inserted.rowCount ?? 0) === 0) return false;
        for (const message of conversation.messages) {
          await client.query(
            "INSERT INTO messages (id, conversation_id, role, content, chunk_refs, provider, model, created_at, incomplete) VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9)",
            [message.id, conversation.id, message.role, message.content, encodeChunks(message), message.provider, message.model, message.createdAt, message.incomplete],
          );
        }
        return true;
      });
    },
    async deleteConversation(id) {
      return ((await pool.query("DELETE FROM conversations WHERE id = $1", [id])).rowCount ?? 0) > 0;
    },
    close,
    async destroy() {
      // Only the conversations: the main store's tables in the same database are its own to destroy.
      await pool.query("TRUNCATE messages, conversations");
      await close();
    },
  };
  return withPostgresErrors(store, where);
}
