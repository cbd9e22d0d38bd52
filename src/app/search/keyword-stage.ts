import type { ChunkRef } from "../../core/types.js";
import { formatKeywordQuery, type KeywordQuery } from "../../core/keyword-query.js";
import { keywordQueryOf, phrasesOf } from "../../search/normalize.js";
import type { ParsedQuery } from "../../search/query-parse.js";
import type { KeywordHit, VectorHit } from "../../search/fuse.js";
import type { MainStore, SearchScope } from "../../store/index.js";

/**
 * The keyword stage of a search: every chunk holding all the query's words (and its quoted
 * phrases) first, by keyword score, then the chunks holding only some of them, by keyword score,
 * in one ranking. Asking for more results only lengthens the list: the first results never depend
 * on the limit (the all-word list used to be dropped for the any-word one whenever it held fewer
 * results than the limit, so `--limit 2` and `--limit 3` could rank different chunks first).
 */

export interface KeywordStage {
  /** What the store ran, in the search syntax: the all-word query, then the any-word one when it ran. Null without words. */
  expression: string | null;
  hits: KeywordHit[];
  /** Each hit's document, for grouping: a search reads whole only the chunks it shows. */
  documents: Map<ChunkRef, string>;
  /** Quoted phrases no chunk in the scope holds, searched as their words instead. */
  relaxedPhrases: string[];
  /** The plans that ran (or would run), for scoring chunks the vector stage found. */
  plans: { all: KeywordQuery | null; any: KeywordQuery | null };
}

export async function runKeywordStage(store: MainStore, parsed: ParsedQuery, candidates: number, scope: SearchScope): Promise<KeywordStage> {
  const relaxedPhrases = await phrasesNoChunkHolds(store, parsed, scope);
  const relaxed = new Set(relaxedPhrases);
  const asked = keywordQueryOf(parsed, { match: "all", relaxed });
  if (asked === null) return { expression: null, hits: [], documents: new Map(), relaxedPhrases, plans: { all: null, any: null } };
  const all = await store.planKeywordQuery(asked);
  const allText = formatKeywordQuery(all);
  const loosened = keywordQueryOf(parsed, { match: "any", relaxed });
  const anyPlan = loosened === null ? null : await store.planKeywordQuery(loosened);
  const any = anyPlan !== null && formatKeywordQuery(anyPlan) !== allText ? anyPlan : null;

  const found = await store.keywordSearchRefs(all, { limit: candidates, ...scope });
  const hits: KeywordHit[] = found.map((hit) => ({ ref: hit.ref, score: hit.score, hasVector: hit.hasVector, allWords: true }));
  const documents = new Map(found.map((hit) => [hit.ref, hit.documentId]));
  // Fewer all-word matches than candidates: all of them are in, and the rest follow.
  if (found.length >= candidates || any === null) return { expression: allText, hits, documents, relaxedPhrases, plans: { all, any } };
  for (const hit of await store.keywordSearchRefs(any, { limit: candidates, ...scope })) {
    if (documents.has(hit.ref)) continue;
    hits.push({ ref: hit.ref, score: hit.score, hasVector: hit.hasVector, allWords: false });
    documents.set(hit.ref, hit.documentId);
  }
  return { expression: `${allText}, then ${formatKeywordQuery(any)}`, hits, documents, relaxedPhrases, plans: { all, any } };
}

/**
 * Quoted phrases that no included chunk in the scope holds, alone or together with the phrases
 * kept before them (in the order typed). A required phrase that matches nothing would empty the
 * results (a fully quoted question, a phrase misremembered by one word, two phrases no one chunk
 * holds both of): the search runs its words instead and says so.
 */
async function phrasesNoChunkHolds(store: MainStore, parsed: ParsedQuery, scope: SearchScope): Promise<string[]> {
  const kept: string[][] = [];
  const missing: string[] = [];
  for (const words of phrasesOf(parsed)) {
    const count = await store.countKeywordMatches({ terms: [], match: "all", phrases: [...kept, words], exclude: [] }, scope);
    if (count === 0) missing.push(words.join(" "));
    else kept.push(words);
  }
  return missing;
}

/**
 * Hybrid search scores the union: a chunk only the keyword stage found gets its real vector
 * similarity (from its stored vector), and a chunk only the vector stage found gets its real
 * keyword score for the query (0 when it holds no query word). Without this a keyword-only chunk
 * scored 0 on the vector side and could never beat about 0.3 (decision 041).
 */
export async function scoreTheUnion(
  store: MainStore,
  { embedding, keyword, vectorHits }: { embedding: Float32Array; keyword: KeywordStage; vectorHits: VectorHit[] },
): Promise<{ vectorHits: VectorHit[]; keywordHits: KeywordHit[] }> {
  const keywordRefs = new Set(keyword.hits.map((hit) => hit.ref));
  const vectorRefs = new Set(vectorHits.map((hit) => hit.ref));
  const keywordOnly = keyword.hits.filter((hit) => !vectorRefs.has(hit.ref) && hit.hasVector !== false).map((hit) => hit.ref);
  const vectorOnly = vectorHits.filter((hit) => !keywordRefs.has(hit.ref)).map((hit) => hit.ref);
  const similarities = await store.vectorScores(embedding, keywordOnly);
  const lookedUp: VectorHit[] = [...similarities].map(([ref, similarity]) => ({ ref, distance: 1 - similarity, found: false }));
  const extra: KeywordHit[] = [];
  const { all, any } = keyword.plans;
  if (all !== null && vectorOnly.length > 0) {
    const allScores = await store.keywordScores(all, vectorOnly);
    const anyScores = any === null ? new Map<ChunkRef, number>() : await store.keywordScores(any, vectorOnly);
    for (const ref of vectorOnly) {
      const allScore = allScores.get(ref);
      const anyScore = anyScores.get(ref);
      if (allScore !== undefined) extra.push({ ref, score: allScore, allWords: true, hasVector: true });
      else if (anyScore !== undefined) extra.push({ ref, score: anyScore, allWords: false, hasVector: true });
    }
  }
  return { vectorHits: [...vectorHits, ...lookedUp], keywordHits: [...keyword.hits, ...extra] };
}
