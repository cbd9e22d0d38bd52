import type { Chunkpad, FolderOwner, Machine } from "../../index.js";

export type Ownership = { machine: Machine; owners: Record<string, FolderOwner | null> };

/** Folders have owners where machines share the store (PostgreSQL); one SQLite file has one machine. */
export async function ownershipOf(chunkpad: Chunkpad, backend: string): Promise<Ownership | null> {
  return backend === "postgres" ? await chunkpad.folderOwners() : null;
}

/** The machine that owns the folder when it is not this one, else null. */
export function otherOwnerOf(ownership: Ownership | null, folderId: string): FolderOwner | null {
  const owner = ownership?.owners[folderId];
  return owner === null || owner === undefined || owner.id === ownership?.machine.id ? null : owner;
}

/** "; belongs to <machine>" for a folder another machine owns. */
export function ownedBy(ownership: Ownership | null, folderId: string): string {
  const owner = otherOwnerOf(ownership, folderId);
  return owner === null ? "" : `; belongs to the machine "${owner.name}" (searched from here, processed there)`;
}
