import type { ChunkRef, ChunkScores } from "../core/types.js";

export type StoredMessageRole = "system" | "user" | "assistant";

export interface Conversation {
  id: string;
  title: string;
  createdAt: string;
  updatedAt: string;
  provider: string | null;
  model: string | null;
}

export interface ConversationSummary extends Conversation {
  messageCount: number;
}

/** What a message cited, as it was then: a later edit of the document does not change it. */
export interface CitedChunk {
  ref: ChunkRef;
  /** Hash of the chunk's text when it was cited (as ChunkRecord.contentHash). */
  contentHash: string;
  text: string;
}

/**
 * What a question's search found, as the user last saw it: each source in the order shown, with
 * its scores (relevance) and whether the user switched it on. A reopened conversation shows it,
 * and regenerates from it.
 */
export interface MessageSources {
  /** The search that ran (keyword, vector, hybrid): it decides the guardrail's measure. */
  searchMode: string;
  chunks: Array<{ ref: ChunkRef; included: boolean; scores: ChunkScores }>;
}

export interface StoredMessage {
  id: string;
  conversationId: string;
  role: StoredMessageRole;
  content: string;
  /** The chunks the answer was given (or the question was asked) with. */
  chunkRefs: ChunkRef[];
  /** The same chunks with their text at the time, in the same order; empty for messages stored before citations kept their text. */
  citedChunks: CitedChunk[];
  /** A question's sources with their scores and toggles; null for answers and older questions. */
  sources: MessageSources | null;
  provider: string | null;
  model: string | null;
  createdAt: string;
  /** True while an answer streams, and after a stream that was cut off. */
  incomplete: boolean;
}

export interface ConversationWithMessages extends Conversation {
  messages: StoredMessage[];
}

export interface NewConversation {
  title: string;
  provider?: string | null;
  model?: string | null;
}

export interface NewMessage {
  role: StoredMessageRole;
  content: string;
  chunkRefs?: ChunkRef[];
  /** Replaces chunkRefs when given: the refs with their text at the time. */
  citedChunks?: CitedChunk[];
  /** Replaces chunkRefs when given: a question's sources with their scores and toggles. */
  sources?: MessageSources;
  provider?: string | null;
  model?: string | null;
  incomplete?: boolean;
}

export interface MessageChanges {
  content?: string;
  chunkRefs?: ChunkRef[];
  citedChunks?: CitedChunk[];
  sources?: MessageSources;
  incomplete?: boolean;
  provider?: string | null;
  model?: string | null;
}

/**
 * Conversations and their messages (the chat database), async and backend-neutral like the main
 * store: SQLite keeps them in chunkpad_chat.db, PostgreSQL in the shared database.
 */
export interface ChatStore {
  /** Where the store lives (a file path, or a connection description without secrets). */
  readonly path: string;
  createConversation(conversation: NewConversation): Promise<Conversation>;
  /** Newest activity first. */
  listConversations(): Promise<ConversationSummary[]>;
  /** The conversation with its messages in order, or null. */
  getConversation(id: string): Promise<ConversationWithMessages | null>;
  /** Appends a message; null when the conversation does not exist. */
  addMessage(conversationId: string, message: NewMessage): Promise<StoredMessage | null>;
  /** Changes a message (the streamed answer completing, or marked incomplete); null when absent. */
  updateMessage(id: string, changes: MessageChanges): Promise<StoredMessage | null>;
  renameConversation(id: string, title: string): Promise<boolean>;
  deleteConversation(id: string): Promise<boolean>;
  /** Copies a conversation as it is, ids and times kept (migrate between stores); false when its id is taken. */
  importConversation(conversation: ConversationWithMessages): Promise<boolean>;
  close(): Promise<void>;
  /** Deletes every conversation this store holds, for reset, and closes it. */
  destroy(): Promise<void>;
}
