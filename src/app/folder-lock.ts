/** Folder locks live with the store now (MainStore.lease); the file-lock implementation is SQLite's. */
export { createFolderLocks, describeLeaseHolder, folderLockKey, type FolderLockOptions, type FolderLocks, type LockHolder } from "../store/index.js";
