/** The storage room: the only place with SQL. Other rooms use these factories and types. */
export { openMainStore } from "./main-store.js";
export type { MainStore, OpenMainStoreOptions } from "./main-store.js";
export { openChatStore } from "./chat-store.js";
export type {
  ChatStore,
  Conversation,
  ConversationSummary,
  ConversationWithMessages,
  MessageChanges,
  NewConversation,
  NewMessage,
  OpenChatStoreOptions,
  StoredMessage,
  StoredMessageRole,
} from "./chat-store.js";
export { documentIdFor } from "./documents.js";
export { META_KEYS } from "./meta.js";
export type { VectorExtensionLoader } from "./vector-extension.js";
export type * from "./store-types.js";
