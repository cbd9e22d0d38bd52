import type { ChunkRef } from "../core/types.js";
import type { FusedResult } from "./fuse.js";

/**
 * Results per document: a list of ten results should name ten documents, not one document's
 * ten chunks. Each document keeps its best `perDocument` chunks in the list, in score order;
 * its other matching chunks ride along on its first result (`moreInDocument`), so nothing
 * found is hidden, only folded.
 */

export interface MoreInDocument {
  ref: ChunkRef;
  score: number;
}

export type GroupedResult = FusedResult & { moreInDocument?: MoreInDocument[] };

export function groupByDocument(results: readonly FusedResult[], documentOf: (ref: ChunkRef) => string, perDocument: number): GroupedResult[] {
  if (!(perDocument >= 1)) return [...results];
  const kept = new Map<string, GroupedResult[]>();
  const out: GroupedResult[] = [];
  for (const result of results) {
    const document = documentOf(result.ref);
    const shown = kept.get(document) ?? [];
    if (shown.length < perDocument) {
      const row: GroupedResult = { ...result };
      shown.push(row);
      kept.set(document, shown);
      out.push(row);
    } else {
      const first = shown[0] as GroupedResult;
      (first.moreInDocument ??= []).push({ ref: result.ref, score: result.score });
    }
  }
  return out;
}
