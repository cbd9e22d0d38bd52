import type { ChunkRef, ChunkScores } from "../core/types.js";
import type { CitedChunk, MessageSources } from "./chat-contract.js";

/**
 * How a message's chunks are kept in its `chunk_refs` JSON array, by every chat store backend.
 * Items are refs (strings) as first stored; {ref, contentHash, text} since an answer's citations
 * keep their text; and, for a question, {ref, searchMode, included, scores} since the sources it
 * found keep their relevance and the user's toggles (a reopened conversation shows them as they
 * were, and regenerates from them). A reader that knows only refs still finds every ref.
 */

export interface EncodedChunks {
  chunkRefs?: readonly ChunkRef[] | undefined;
  citedChunks?: readonly CitedChunk[] | undefined;
  sources?: MessageSources | null | undefined;
}

export interface DecodedChunks {
  chunkRefs: ChunkRef[];
  citedChunks: CitedChunk[];
  sources: MessageSources | null;
}

export function encodeChunks({ chunkRefs, citedChunks, sources }: EncodedChunks): string {
  if (sources) return JSON.stringify(sources.chunks.map(({ ref, included, scores }) => ({ ref, searchMode: sources.searchMode, included, scores })));
  if (citedChunks !== undefined && citedChunks.length > 0) return JSON.stringify(citedChunks.map(({ ref, contentHash, text }) => ({ ref, contentHash, text })));
  return JSON.stringify(chunkRefs ?? citedChunks?.map((cited) => cited.ref) ?? []);
}

/** `value` is the column as read: JSON text (SQLite) or already parsed (PostgreSQL jsonb). */
export function decodeChunks(value: unknown): DecodedChunks {
  let items: unknown = value;
  if (typeof value === "string") {
    try {
      items = JSON.parse(value);
    } catch {
      items = [];
    }
  }
  const none: DecodedChunks = { chunkRefs: [], citedChunks: [], sources: null };
  if (!Array.isArray(items)) return none;
  const chunkRefs: ChunkRef[] = [];
  const citedChunks: CitedChunk[] = [];
  const sourceChunks: MessageSources["chunks"] = [];
  let searchMode: string | null = null;
  for (const item of items as unknown[]) {
    if (typeof item === "string") {
      chunkRefs.push(item);
      continue;
    }
    if (item === null || typeof item !== "object" || typeof (item as { ref?: unknown }).ref !== "string") continue;
    const record = item as Record<string, unknown>;
    const ref = record.ref as string;
    chunkRefs.push(ref);
    if (typeof record.contentHash === "string" && typeof record.text === "string") citedChunks.push({ ref, contentHash: record.contentHash, text: record.text });
    if (typeof record.included === "boolean" && isScores(record.scores)) {
      sourceChunks.push({ ref, included: record.included, scores: record.scores });
      if (typeof record.searchMode === "string") searchMode = record.searchMode;
    }
  }
  return {
    chunkRefs,
    citedChunks: citedChunks.length === chunkRefs.length ? citedChunks : [],
    sources: sourceChunks.length === chunkRefs.length && chunkRefs.length > 0 && searchMode !== null ? { searchMode, chunks: sourceChunks } : null,
  };
}

function isScores(value: unknown): value is ChunkScores {
  return value !== null && typeof value === "object" && typeof (value as { score?: unknown }).score === "number";
}
