import { makeSnippet } from "../../search/snippet.js";
import type { MainStore, MessageSources } from "../../store/index.js";
import { locationOf, type SearchMode, type SearchResult } from "../search/search.js";

/**
 * A stored question's sources as search results again, for a chat reopened from the chat store:
 * the chunks as they are now, with the scores and toggles the question was shown. A chunk that is
 * gone (its document removed or re-chunked) is left out, so no answer is given a text it cannot see.
 */
export async function restoreSources(store: MainStore, sources: MessageSources): Promise<{ searchMode: SearchMode; chunks: SearchResult[] }> {
  const records = new Map((await store.getChunks(sources.chunks.map((source) => source.ref))).map((chunk) => [chunk.ref, chunk]));
  const folders = new Map<string, string | null>();
  const chunks: SearchResult[] = [];
  for (const source of sources.chunks) {
    const chunk = records.get(source.ref);
    if (!chunk) continue;
    if (!folders.has(chunk.folderId)) folders.set(chunk.folderId, (await store.getFolder(chunk.folderId))?.rootPath ?? null);
    chunks.push({
      ...source.scores,
      chunk,
      isIncluded: source.included,
      ref: chunk.ref,
      documentId: chunk.documentId,
      documentTitle: chunk.title,
      relativePath: chunk.relativePath,
      folderId: chunk.folderId,
      folderPath: folders.get(chunk.folderId) ?? null,
      location: locationOf(chunk),
      section: chunk.section ?? null,
      snippet: makeSnippet(chunk.content, []),
      relevancePercent: Math.round(source.scores.score * 100),
    });
  }
  return { searchMode: sources.searchMode as SearchMode, chunks };
}
