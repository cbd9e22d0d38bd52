import type { Chunkpad, FolderOwner, Machine } from "../../index.js";

export type Ownership = { machine: Machine; owners: Record<string, FolderOwner | null> };

/** Folders have owners where machines share the store (PostgreSQL); one SQLite file has one machine. */
export async function ownershipOf(chunkpad: Chunkpad, backend: string): Promise<Ownership | null> {
  return backend === "postgres" ? await chunkpad.folderOwners() : null;
}
