import { FileText, Folder as FolderIcon } from "lucide-react";
import { Fragment } from "react";
import { Pill, type Tone } from "../components/Pill.js";
import { Tree, type TreeNode } from "../components/Tree.js";
import { Skeleton } from "../components/Skeleton.js";
import { useTree } from "../hooks/queries.js";
import type { ChunkTreeFile, ChunkTreeFolder } from "../api/types.js";

export const plural = (count: number, noun: string) => `${count} ${noun}${count === 1 ? "" : "s"}`;

/** The badges of one file: what the user would act on first comes first. */
export function fileBadges(file: ChunkTreeFile, anyEmbedded: boolean): Array<{ text: string; tone: Tone }> {
  const badges: Array<{ text: string; tone: Tone }> = [];
  if (file.failed) badges.push({ text: "failed", tone: "bad" });
  if (file.conflict) badges.push({ text: "conflict", tone: "bad" });
  const excluded = file.chunkCount - file.includedCount;
  if (file.chunkCount > 0 && excluded === file.chunkCount) badges.push({ text: "excluded", tone: "neutral" });
  else if (excluded > 0) badges.push({ text: `${excluded} excluded`, tone: "neutral" });
  if (file.modifiedCount > 0) badges.push({ text: `${file.modifiedCount} modified`, tone: "warn" });
  // New: included chunks never embedded (the server does not count excluded ones).
  if (anyEmbedded && file.newCount > 0) badges.push({ text: file.newCount === file.includedCount ? "new" : `${file.newCount} new`, tone: "warn" });
  if (file.includedCount > 0 && file.embeddedCount === file.includedCount) badges.push({ text: "embedded", tone: "good" });
  return badges;
}

export function filesOf(tree: ChunkTreeFolder): ChunkTreeFile[] {
  const files: ChunkTreeFile[] = [];
  const collect = (node: ChunkTreeFolder) => node.children.forEach((child) => (child.type === "file" ? files.push(child) : collect(child)));
  collect(tree);
  return files;
}

/** The folder's chunk files as a tree with badges, in the sidebar. */
export function FolderTree({ folderId, selected, onSelect }: { folderId: string; selected: string | null; onSelect: (path: string) => void }) {
  const tree = useTree(folderId);
  if (tree.error) return <p role="alert" className="sidebar-note">{tree.error.message}</p>;
  if (!tree.data) return <Skeleton lines={4} label="Loading the chunk files" />;
  if (tree.data.tree.children.length === 0) return <p className="sidebar-note">No documents yet.</p>;
  const anyEmbedded = filesOf(tree.data.tree).some((file) => file.embeddedCount + file.modifiedCount > 0);
  const toNodes = (node: ChunkTreeFolder): TreeNode[] =>
    node.children.map((child) => {
      if (child.type === "folder") {
        return { id: `folder:${child.path}`, icon: <FolderIcon aria-hidden="true" size={14} className="tree-icon" />, label: <><span className="tree-name">{child.name}/</span> <Pill>{plural(child.fileCount, "file")}</Pill></>, children: toNodes(child) };
      }
      const base = child.path.split("/").at(-1) ?? child.path;
      return {
        id: child.path,
        icon: <FileText aria-hidden="true" size={14} className="tree-icon" />,
        label: (
          <>
            <span className="tree-name" title={child.path}>{base}</span>{" "}
            <span className="tree-badges">
              {!child.failed && <Pill>{plural(child.chunkCount, "chunk")}</Pill>}
              {fileBadges(child, anyEmbedded).map((badge) => (
                <Fragment key={badge.text}>
                  {" "}
                  <Pill tone={badge.tone}>{badge.text}</Pill>
                </Fragment>
              ))}
            </span>
          </>
        ),
      };
    });
  return <Tree label="Chunk files" nodes={toNodes(tree.data.tree)} selected={selected} onSelect={(node) => onSelect(node.id)} />;
}
