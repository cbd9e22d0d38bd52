import path from "node:path";

/** Where an added folder and its chunk files live, for one run. */

export interface FolderPlace {
  folderId: string;
  root: string;
  /** `{root}/_chunks`, or the data-dir directory of a read-only folder. */
  chunksRoot: string;
  /** Folders under chunksRoot this run found not to be links (lstatChunkFileSafely). */
  checkedFolders?: Set<string>;
}

/** The chunk file's path as the user sees it: relative to the folder, or absolute when it lives in the data dir. */
export function shownChunkFile(place: FolderPlace, chunkFile: string): string {
  const relative = path.relative(place.root, chunkFile);
  return relative.startsWith("..") || path.isAbsolute(relative) ? chunkFile : relative.split(path.sep).join("/");
}
