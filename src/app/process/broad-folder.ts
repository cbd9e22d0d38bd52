import fs from "node:fs";
import path from "node:path";

/**
 * Adding the root of the disk or the whole home folder is almost always a slip (every document
 * under it parsed, a _chunks/ folder written there): the faces ask, or want an explicit yes (the
 * CLI's --yes, the HTTP job's confirmBroadFolder). Links are followed, so a link to / is / too.
 */
export interface BroadFolder {
  /** The folder, resolved through links. */
  target: string;
  what: "the root of the disk" | "your whole home folder";
}

function real(candidate: string): string {
  try {
    return fs.realpathSync(path.resolve(candidate));
  } catch {
    return path.resolve(candidate);
  }
}

export function describeBroadFolder(folder: string, homeDir: string): BroadFolder | undefined {
  const target = real(folder);
  if (path.parse(target).root === target) return { target, what: "the root of the disk" };
  if (target === real(homeDir)) return { target, what: "your whole home folder" };
  return undefined;
}
