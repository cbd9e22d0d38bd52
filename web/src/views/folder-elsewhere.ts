import type { Folder } from "../api/types.js";

/**
 * Why this machine may not process, embed, upload into or remove a folder: another machine sharing
 * the database added it and has its files (decision 056). Null when the folder is this machine's.
 */
export function elsewhereReason(folder: Folder): string | null {
  if (!folder.ownedElsewhere || folder.owner === null) return null;
  return `This folder is on the machine "${folder.owner.name}": search and chat over it here; only that machine processes, embeds or removes it (run "chunkpad add ${folder.rootPath} --take-over" to move it here).`;
}
