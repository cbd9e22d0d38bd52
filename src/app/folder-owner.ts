import { randomUUID } from "node:crypto";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { ChunkpadError } from "../core/errors.js";
import type { FolderSummary, MainStore, StoreMachine } from "../store/index.js";

/**
 * A folder belongs to the machine that added it: its files live there, so only that machine
 * processes, embeds, watches or removes it; every machine sharing the database searches and chats
 * over it. The owner is written in the store beside the folder (meta `folder-owner:<id>`, so both
 * backends and `migrate` carry it); a machine is the id in its data folder's `machine-id` file
 * (CHUNKPAD_MACHINE_ID overrides it) and its host name (CHUNKPAD_MACHINE_NAME).
 */

/** A machine, as the store's leases name it too. */
export type Machine = StoreMachine;

export interface FolderOwner extends StoreMachine {
  /** When it became the owner (ISO time). */
  since: string;
}

/** A folder as `folders`, GET /api/folders and the web app list it: with who owns it. */
export interface AddedFolder extends FolderSummary {
  /** The machine that added it (null: none recorded yet, a folder from before owners; it becomes the next processor's). */
  owner: FolderOwner | null;
  /** True when another machine owns it: this machine searches and chats over it, but may not process, embed, watch or remove it. */
  ownedElsewhere: boolean;
}

/** The meta key holding a folder's owner (migrate copies it with the folder). */
export const ownerKey = (folderId: string) => `folder-owner:${folderId}`;

/** This machine: its id is made once and kept in the data folder. */
export function thisMachine(dataDir: string, env: NodeJS.ProcessEnv): Machine {
  const name = env.CHUNKPAD_MACHINE_NAME?.trim() || os.hostname();
  const fromEnv = env.CHUNKPAD_MACHINE_ID?.trim();
  if (fromEnv) return { id: fromEnv, name };
  const file = path.join(dataDir, "machine-id");
  try {
    const saved = fs.readFileSync(file, "utf8").trim();
    if (saved !== "") return { id: saved, name };
  } catch {
    // First use: made below.
  }
  const id = randomUUID();
  fs.mkdirSync(dataDir, { recursive: true, mode: 0o700 });
  try {
    fs.writeFileSync(file, `${id}\n`, { flag: "wx", mode: 0o600 });
    return { id, name };
  } catch {
    // Another process made it first: theirs is the id.
    return { id: fs.readFileSync(file, "utf8").trim(), name };
  }
}

export async function folderOwner(store: MainStore, folderId: string): Promise<FolderOwner | null> {
  const raw = await store.getMeta(ownerKey(folderId));
  if (raw === null || raw === undefined) return null;
  try {
    const parsed = JSON.parse(raw) as Partial<FolderOwner>;
    return typeof parsed.id === "string" ? { id: parsed.id, name: String(parsed.name ?? parsed.id), since: String(parsed.since ?? "") } : null;
  } catch {
    return null;
  }
}

/** Makes `machine` the folder's owner (adding it, or a deliberate take-over). */
export async function claimFolder(store: MainStore, folderId: string, machine: Machine): Promise<void> {
  const owner: FolderOwner = { ...machine, since: new Date().toISOString() };
  await store.setMeta(ownerKey(folderId), JSON.stringify(owner));
}

/** The owner when it is another machine; null when it is this one or nobody recorded (a folder from before owners). */
export async function otherOwner(store: MainStore, folderId: string, machine: Machine): Promise<FolderOwner | null> {
  const owner = await folderOwner(store, folderId);
  return owner === null || owner.id === machine.id ? null : owner;
}

/** FOLDER_ELSEWHERE: what was refused, who owns the folder, and the two ways on. */
export function ownedElsewhere(rootPath: string, owner: FolderOwner, action: string): ChunkpadError {
  return new ChunkpadError(
    "FOLDER_ELSEWHERE",
    `${rootPath} belongs to the machine "${owner.name}" (id ${owner.id}), which added it and has its files; only that machine can ${action} it. ` +
      "From here you can search and chat over it.",
    { nextSteps: [{ action: "take-over", folder: rootPath }] },
  );
}

/** Throws FOLDER_ELSEWHERE when the folder belongs to another machine. */
export async function checkOwner(store: MainStore, folder: { id: string; rootPath: string }, machine: Machine, action: string): Promise<void> {
  const owner = await otherOwner(store, folder.id, machine);
  if (owner !== null) throw ownedElsewhere(folder.rootPath, owner, action);
}

/** Every added folder with its recorded owner, and whether another machine owns it. */
export async function foldersWithOwners(store: MainStore, machine: Machine): Promise<AddedFolder[]> {
  return await Promise.all((await store.listFolders()).map(async (folder) => {
    const owner = await folderOwner(store, folder.id);
    return { ...folder, owner, ownedElsewhere: owner !== null && owner.id !== machine.id };
  }));
}

/** This machine, and each added folder's recorded owner (null: none recorded). */
export async function folderOwnership(store: MainStore, machine: Machine): Promise<{ machine: Machine; owners: Record<string, FolderOwner | null> }> {
  return { machine, owners: Object.fromEntries(await Promise.all((await store.listFolders()).map(async (folder) => [folder.id, await folderOwner(store, folder.id)] as const))) };
}
