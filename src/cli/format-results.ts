import type { SearchResult } from "../index.js";

/** The pieces of a result line that `search` and the chunks bar of `ask` and `chat` share. */

/** "3.", right-aligned to `width` digits so that the list lines up. */
export function formatResultNumber(index: number, width: number): string {
  return `${String(index + 1).padStart(width)}.`;
}

/** The relevance percentage in four columns: " 87%". */
export function formatRelevance(result: SearchResult): string {
  return `${result.relevancePercent}%`.padStart(4);
}

/** Where the chunk is: "notes/report.pdf p. 3 · Introduction". */
export function formatResultPlace(result: SearchResult): string {
  const where = [result.relativePath, result.location].filter(Boolean).join(" ");
  return `${where}${result.section ? ` · ${result.section}` : ""}`;
}
