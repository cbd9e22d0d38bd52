/**
 * The storage room: the only place with SQL. Other rooms import only from here: the
 * backend-neutral contract (contract.ts) and the factories of the SQLite implementation.
 */
export type * from "./contract.js";
export { META_KEYS } from "./contract.js";
export { openMainStore, type OpenMainStoreOptions } from "./sqlite/sqlite-store.js";
export { backendOf, openChats, openStore, storeLocation, type OpenStoresOptions, type StoreBackend, type StoreLocation } from "./registry.js";
export { openChatStore } from "./sqlite/chat-store.js";
export type { OpenChatStoreOptions } from "./sqlite/chat-store.js";
export { salvageFolders } from "./sqlite/salvage.js";
export { sqliteStoreFiles } from "./sqlite/store-files.js";
export { createFolderLocks, folderLockKey, type FolderLockOptions, type FolderLocks, type LockHolder } from "./file-locks.js";
export { describeLeaseHolder } from "./lease-holder.js";
export type { VectorExtensionLoader } from "./sqlite/vector-extension.js";
