/** What the tree needs of a chunk file; anything else the caller passes rides along on the node. */
export interface ChunkTreeEntry {
  relativeSourcePath: string;
  chunkCount: number;
}

export interface ChunkTreeFile<T extends ChunkTreeEntry = ChunkTreeEntry> {
  kind: "file";
  name: string;
  /** The source path relative to the folder root, forward slashes. */
  path: string;
  chunkCount: number;
  entry: T;
}

export interface ChunkTreeFolder<T extends ChunkTreeEntry = ChunkTreeEntry> {
  kind: "folder";
  /** "" for the root. */
  name: string;
  path: string;
  /** Chunks in every file below this folder. */
  chunkCount: number;
  /** Files below this folder, at any depth. */
  fileCount: number;
  children: Array<ChunkTreeNode<T>>;
}

export type ChunkTreeNode<T extends ChunkTreeEntry = ChunkTreeEntry> = ChunkTreeFile<T> | ChunkTreeFolder<T>;

const collator = new Intl.Collator("en", { numeric: true, sensitivity: "base" });

function compareNodes(a: ChunkTreeNode, b: ChunkTreeNode): number {
  if (a.kind !== b.kind) return a.kind === "folder" ? -1 : 1;
  return collator.compare(a.name, b.name) || (a.name < b.name ? -1 : a.name > b.name ? 1 : 0);
}

function sortAndCount<T extends ChunkTreeEntry>(folder: ChunkTreeFolder<T>): void {
  folder.chunkCount = 0;
  folder.fileCount = 0;
  for (const child of folder.children) {
    if (child.kind === "folder") {
      sortAndCount(child);
      folder.fileCount += child.fileCount;
    } else {
      folder.fileCount += 1;
    }
    folder.chunkCount += child.chunkCount;
  }
  folder.children.sort(compareNodes);
}

/** Folders and files from relative source paths, chunk counts summed per folder; folders first, then by name. */
export function buildChunkTree<T extends ChunkTreeEntry>(entries: readonly T[]): ChunkTreeFolder<T> {
  const root: ChunkTreeFolder<T> = { kind: "folder", name: "", path: "", chunkCount: 0, fileCount: 0, children: [] };
  const folders = new Map<string, ChunkTreeFolder<T>>([["", root]]);
  for (const entry of entries) {
    const segments = entry.relativeSourcePath.split("/").filter((segment) => segment.length > 0);
    const name = segments.pop();
    if (name === undefined) continue;
    let folder = root;
    for (const segment of segments) {
      const folderPath = folder.path ? `${folder.path}/${segment}` : segment;
      let next = folders.get(folderPath);
      if (!next) {
        next = { kind: "folder", name: segment, path: folderPath, chunkCount: 0, fileCount: 0, children: [] };
        folders.set(folderPath, next);
        folder.children.push(next);
      }
      folder = next;
    }
    folder.children.push({ kind: "file", name, path: segments.concat(name).join("/"), chunkCount: entry.chunkCount, entry });
  }
  sortAndCount(root);
  return root;
}

/** The tree as text lines, like `tree`: "├── notes/ (12)". The root line names the total. */
export function formatChunkTree(tree: ChunkTreeFolder, rootLabel = "."): string[] {
  const plural = (count: number): string => `${count} chunk${count === 1 ? "" : "s"}`;
  const lines = [`${rootLabel} (${tree.fileCount} file${tree.fileCount === 1 ? "" : "s"}, ${plural(tree.chunkCount)})`];
  const walk = (folder: ChunkTreeFolder, prefix: string): void => {
    folder.children.forEach((child, index) => {
      const last = index === folder.children.length - 1;
      const label = child.kind === "folder" ? `${child.name}/` : child.name;
      lines.push(`${prefix}${last ? "└── " : "├── "}${label} (${plural(child.chunkCount)})`);
      if (child.kind === "folder") walk(child, `${prefix}${last ? "    " : "│   "}`);
    });
  };
  walk(tree, "");
  return lines;
}
