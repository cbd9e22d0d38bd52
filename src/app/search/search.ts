import { ChunkpadError } from "../../core/errors.js";
import type { ChunkRecord, ChunkRef, ScoredChunk } from "../../core/types.js";
import { textConstraintsOf } from "../../search/normalize.js";
import { parseQuery } from "../../search/query-parse.js";
import { runKeywordStage, scoreTheUnion, type KeywordStage } from "./keyword-stage.js";
import { applyFilters, fuseRrf, fuseWeighted, limitResults, mergePinned, type FusedResult, type KeywordHit, type VectorHit } from "../../search/fuse.js";
import type { MainStore } from "../../store/index.js";
import type { SearchScope } from "../../store/index.js";
import type { ChunkpadConfig } from "../settings/config.js";
import { resolvePinnedRefs, resolveScope } from "./search-scope.js";
import { makeSnippet, snippetWords } from "../../search/snippet.js";
import type { VectorReadiness } from "./search-vector.js";
import { blendRerank } from "../../search/rerank.js";
import { groupByDocument, type GroupedResult } from "../../search/group.js";
import type { Reranker } from "../../embedding/reranker.js";
import type { ModelConsentRequest } from "../../embedding/ensure-model.js";
import type { ModelStatus } from "../../core/types.js";
import { notice, type NextStep, type Notice } from "../../core/next-step.js";
import type { FusionMethod, SearchMode } from "./search-modes.js";

/**
 * The search use case: keyword (FTS5 bm25), vector (sqlite-vec KNN) or both fused, then
 * minScore/maxDistance, the limit, and pinned documents first. Call order as the search room
 * asks: fuse → applyFilters → limitResults → mergePinned.
 */

export { SEARCH_MODES, FUSION_METHODS, type SearchMode, type FusionMethod } from "./search-modes.js";
/** Each stage fetches this many times the limit (and at least MIN_CANDIDATES) before fusion. */
const CANDIDATE_FACTOR = 5;
const MIN_CANDIDATES = 50;

export interface SearchOptions {
  /** Default: hybrid when vectors and the model are there, else keyword (with a notice). */
  mode?: SearchMode;
  fusion?: FusionMethod;
  /** Fused score floor, 0..1 (default from the config, 0.1). */
  minScore?: number;
  /** Cosine distance ceiling for vector hits, 0..2. */
  maxDistance?: number;
  limit?: number;
  /** Added folders (paths or ids) to search in; default all. */
  folders?: readonly string[];
  /** Documents (id, path, file name, part of path or title) to search in. */
  documents?: readonly string[];
  /** Documents whose included chunks come first at 100%. */
  pins?: readonly string[];
  /** Resolves relative folder paths; default process.cwd(). */
  cwd?: string;
  /** Chunks listed per document (its other matches fold into its first); 0 lists every chunk. Default from search.perDocument (1). */
  perDocument?: number;
  /** Re-score the top results with the cross-encoder (default from search.rerank). */
  rerank?: boolean;
  /** Time the cross-encoder may take (default from search.rerankBudgetMs). */
  rerankBudgetMs?: number;
  /** Asked before the rerank model is downloaded; without it a missing model is a notice. */
  rerankConsent?: (request: ModelConsentRequest) => Promise<boolean>;
  /** Download and load progress of the rerank model. */
  onRerankModelStatus?: (status: ModelStatus) => void;
}

/** What the rerank stage did, when it ran. */
export interface RerankReport {
  model: string;
  /** Results the cross-encoder re-scored. */
  scored: number;
  /** Results it would have re-scored without the time budget. */
  candidates: number;
  budgetMs: number;
  durationMs: number;
}

export interface SearchResult extends ScoredChunk {
  ref: ChunkRef;
  documentId: string;
  documentTitle: string;
  /** Source path relative to its folder. */
  relativePath: string;
  folderId: string;
  /** The folder's root path, when it is still added. */
  folderPath: string | null;
  /** "p. 3", "pp. 3–4", "slide 2", "sheet Budget", or null. */
  location: string | null;
  section: string | null;
  snippet: string;
  /** Round(score · 100). */
  relevancePercent: number;
  /** The chunk's text changed after its vector was made (vector stage only). */
  stale?: boolean;
  /** Other chunks of the same document that matched, best first (grouped results only). */
  moreInDocument?: Array<{ ref: ChunkRef; score: number; location: string | null }>;
}

export interface SearchReport {
  query: string;
  /** What was asked for ("auto" when no --mode). */
  requestedMode: SearchMode | "auto";
  /** What ran: keyword when vectors were not usable. */
  mode: SearchMode;
  /** Fusion used (hybrid only). */
  fusion: FusionMethod | null;
  /**
   * The keyword query the store ran, in the search syntax (`"river" AND "heron", then "river" OR
   * "heron"` when the chunks holding every word were followed by those holding some); null when
   * the keyword stage did not run or had no words.
   */
  keywordQuery: string | null;
  /** Quoted phrases that no chunk in the scope holds: searched as their words instead (a notice says so). */
  relaxedPhrases: string[];
  /** Why the search ran differently from what was asked, and what to do about it. */
  notices: Notice[];
  /**
   * Vector and hybrid searches: how many included chunks in the scope have a vector. When
   * `keywordOnly` is above 0, a hybrid search found those chunks by keyword alone and a vector
   * search could not find them. Null for keyword searches.
   */
  coverage: SearchCoverage | null;
  /** The cross-encoder stage, when it ran; null otherwise. */
  rerank: RerankReport | null;
  results: SearchResult[];
}

export interface SearchCoverage {
  chunks: number;
  embedded: number;
  keywordOnly: number;
}

export interface SearchDependencies {
  store: MainStore;
  settings: ChunkpadConfig["search"];
  /** Says whether vectors can be used (and gives the query embedder); never downloads. */
  vectorReadiness: () => Promise<VectorReadiness>;
  /** The cross-encoder, loaded (or downloaded, with consent) on first use; a reason when it cannot be had. */
  rerankReadiness?: (options: Pick<SearchOptions, "rerankConsent" | "onRerankModelStatus">) => Promise<RerankReadiness>;
}

export type RerankReadiness = { ready: true; reranker: Reranker } | { ready: false; reason: string; nextSteps?: NextStep[] };

/** Pairs the cross-encoder reads per run; the time budget is checked between runs. */
const RERANK_BATCH = 4;

export async function searchChunks(dependencies: SearchDependencies, query: string, options: SearchOptions = {}): Promise<SearchReport> {
  const { store, settings } = dependencies;
  const limit = options.limit ?? settings.limit;
  const minScore = options.minScore ?? settings.minScore;
  const fusion = options.fusion ?? settings.fusion;
  checkOptions(query, limit, minScore, options.maxDistance);

  const notices: Notice[] = [];
  const scope = await resolveScope(store, { folders: options.folders ?? [], documents: options.documents ?? [], cwd: options.cwd }, notices);
  const searchScope: SearchScope = { ...(scope.folderIds ? { folderIds: scope.folderIds } : {}), ...(scope.documentIds ? { documentIds: scope.documentIds } : {}) };
  const pinnedRefs = await resolvePinnedRefs(store, options.pins ?? [], scope.folderIds, notices);

  const requestedMode = options.mode ?? "auto";
  const perDocument = options.perDocument ?? settings.perDocument;
  // Grouped results need chunks from more documents than the limit: fetch more of them.
  const candidates = Math.max(limit * CANDIDATE_FACTOR * (perDocument > 0 ? 2 : 1), MIN_CANDIDATES);
  const chunks = new Map<ChunkRef, ChunkRecord>();
  // The document of each keyword candidate (vector hits come whole): for grouping, before any is read whole.
  const documents = new Map<ChunkRef, string>();
  const stale = new Set<ChunkRef>();
  // Parsed once: the keyword query, the text to embed, the constraints and the snippet words agree.
  const parsed = parseQuery(query);

  // The query model loads (in a worker, or a running server has it) while this thread runs the
  // keyword stage and counts the coverage: the search waits for the longer of the two, not both
  // (issue 22). A one-off CLI search loads a BERT model in this thread instead (decision 084):
  // less CPU than a worker's start, and the load is shorter than the worker's was.
  const readying = requestedMode === "keyword" ? undefined : dependencies.vectorReadiness();
  readying?.catch(() => undefined); // awaited below; a keyword stage that throws first must not leave it unhandled
  let early: KeywordStage | null = null;
  let earlyCoverage: SearchCoverage | null = null;
  if (readying !== undefined) {
    if (requestedMode !== "vector") early = await runKeywordStage(store, parsed, candidates, searchScope);
    // Only where vectors exist: a keyword-only store (auto mode, no embed yet) pays for no count.
    if (store.vectorAvailable && (await store.hasVectors())) earlyCoverage = await countCoverage(store, searchScope);
  }
  let mode: SearchMode = "keyword";
  let readiness: VectorReadiness | undefined;
  if (readying !== undefined) {
    readiness = await readying;
    if (readiness.ready) mode = requestedMode === "auto" ? "hybrid" : requestedMode;
    else notices.push(notice(readiness.reason, ...(readiness.nextSteps ?? [])));
  }

  let keyword: KeywordStage | null = null;
  let keywordHits: KeywordHit[] = [];
  if (mode !== "vector") {
    keyword = early ?? (await runKeywordStage(store, parsed, candidates, searchScope));
    for (const [ref, documentId] of keyword.documents) documents.set(ref, documentId);
    keywordHits = keyword.hits;
    if (keyword.expression === null && mode === "keyword") {
      notices.push(notice(`"${query}" has no words to search for by keyword (only common words or exclusions). Add a word that the documents contain.`));
    }
    for (const phrase of keyword.relaxedPhrases) {
      notices.push(notice(`No chunk holds the phrase "${phrase}", so its words were searched instead. Check its spelling, or leave out the quotes.`));
    }
  }
  const relaxed = new Set(keyword?.relaxedPhrases ?? []);

  let vectorHits: VectorHit[] = [];
  let coverage: SearchCoverage | null = null;
  if (mode !== "keyword" && readiness?.ready) {
    coverage = coverageOf(earlyCoverage ?? (await countCoverage(store, searchScope)), mode, notices);
    const embedding = await readiness.embedder.embedQuery(parsed.meaning);
    // The user's quoted phrases and -words hold here too, before the candidates are counted.
    const text = textConstraintsOf(parsed, relaxed);
    for (const hit of await store.vectorSearch(embedding, { k: candidates, ...searchScope, text })) {
      chunks.set(hit.chunk.ref, hit.chunk);
      if (hit.stale) stale.add(hit.chunk.ref);
      vectorHits.push({ ref: hit.chunk.ref, distance: 1 - hit.score });
    }
    if (mode === "hybrid" && keyword !== null) ({ vectorHits, keywordHits } = await scoreTheUnion(store, { embedding, keyword, vectorHits }));
  }

  const fused =
    mode === "keyword"
      ? fuseWeighted([], keywordHits, { vectorWeight: 0, keywordWeight: 1 })
      : mode === "vector"
        ? fuseWeighted(vectorHits, [], { vectorWeight: 1, keywordWeight: 0 })
        : fusion === "rrf"
          ? fuseRrf(vectorHits, keywordHits)
          : fuseWeighted(vectorHits, keywordHits, { vectorWeight: settings.vectorWeight, keywordWeight: settings.keywordWeight });
  let filtered = applyFilters(fused, { minScore, ...(options.maxDistance === undefined ? {} : { maxDistance: options.maxDistance }) });
  let rerank: RerankReport | null = null;
  // Reads whole the chunks not read yet among these (keyword candidates come by reference).
  const readChunks = async (refs: readonly ChunkRef[]) => {
    const missing = refs.filter((ref) => !chunks.has(ref));
    if (missing.length > 0) for (const chunk of await store.getChunks(missing)) chunks.set(chunk.ref, chunk);
  };
  if ((options.rerank ?? settings.rerank === "on") && filtered.length > 1) {
    await readChunks(filtered.slice(0, settings.rerankCandidates).map((row) => row.ref));
    const reranked = await rerankStage(dependencies, query, filtered, chunks, options, notices);
    if (reranked) ({ results: filtered, report: rerank } = reranked);
  }
  const grouped = groupByDocument(filtered, (ref) => chunks.get(ref)?.documentId ?? documents.get(ref) ?? ref, perDocument);
  const ranked: GroupedResult[] = mergePinned(limitResults(grouped, limit), pinnedRefs);

  await readChunks(ranked.flatMap((row) => [row.ref, ...(row.moreInDocument ?? []).map((more) => more.ref)]));
  const folderPaths = new Map<string, string | null>();
  for (const chunk of chunks.values()) if (!folderPaths.has(chunk.folderId)) folderPaths.set(chunk.folderId, (await store.getFolder(chunk.folderId))?.rootPath ?? null);
  const words = snippetWords(parsed);
  const results = ranked.flatMap((row) => {
    const chunk = chunks.get(row.ref);
    if (!chunk) return [];
    const result = toResult(row, chunk, { words, folderPath: folderPaths.get(chunk.folderId) ?? null, stale: stale.has(row.ref) });
    if (row.moreInDocument) {
      result.moreInDocument = row.moreInDocument.map((more) => {
        const other = chunks.get(more.ref);
        return { ref: more.ref, score: more.score, location: other ? locationOf(other) : null };
      });
    }
    return [result];
  });
  const keywordQuery = keyword?.expression ?? null;
  return { query, requestedMode, mode, fusion: mode === "hybrid" ? fusion : null, keywordQuery, relaxedPhrases: keyword?.relaxedPhrases ?? [], notices, coverage, rerank, results };
}

/**
 * The top results re-scored by the cross-encoder, a few pairs per run, until the candidates are
 * done or the time budget is spent (the first run always happens). Anything that keeps the model
 * from running becomes a notice; the search itself never fails for it.
 */
async function rerankStage(
  dependencies: SearchDependencies,
  query: string,
  results: FusedResult[],
  chunks: ReadonlyMap<ChunkRef, ChunkRecord>,
  options: SearchOptions,
  notices: Notice[],
): Promise<{ results: FusedResult[]; report: RerankReport } | null> {
  const { settings } = dependencies;
  if (!dependencies.rerankReadiness) return null;
  const readiness = await dependencies.rerankReadiness({
    ...(options.rerankConsent ? { rerankConsent: options.rerankConsent } : {}),
    ...(options.onRerankModelStatus ? { onRerankModelStatus: options.onRerankModelStatus } : {}),
  });
  if (!readiness.ready) {
    notices.push(notice(`${readiness.reason} These results are not reranked.`, ...(readiness.nextSteps ?? [])));
    return null;
  }
  const budgetMs = options.rerankBudgetMs ?? settings.rerankBudgetMs;
  const candidates = results.slice(0, settings.rerankCandidates).filter((row) => chunks.has(row.ref));
  const started = performance.now();
  const logits: number[] = [];
  for (let start = 0; start < candidates.length; start += RERANK_BATCH) {
    if (start > 0 && performance.now() - started >= budgetMs) break;
    const batch = candidates.slice(start, start + RERANK_BATCH).map((row) => {
      const chunk = chunks.get(row.ref) as ChunkRecord;
      return chunk.section ? `${chunk.title} — ${chunk.section}\n${chunk.content}` : `${chunk.title}\n${chunk.content}`;
    });
    logits.push(...(await readiness.reranker.score(query, batch)));
  }
  const durationMs = Math.round(performance.now() - started);
  if (logits.length < candidates.length) {
    notices.push(notice(`Reranked the top ${logits.length} of ${candidates.length} results within the ${budgetMs} ms budget; a larger budget reranks more.`, { action: "change-setting", key: "search.rerankBudgetMs" }));
  }
  // Candidates are the first rows (every candidate's chunk is known), so the logits line up.
  const rest = results.filter((row) => !candidates.includes(row));
  return {
    results: blendRerank([...candidates, ...rest], logits, settings.rerankWeight),
    report: { model: readiness.reranker.model, scored: logits.length, candidates: candidates.length, budgetMs, durationMs },
  };
}

/** Counts the chunks in the scope and those with vectors. */
async function countCoverage(store: MainStore, scope: SearchScope): Promise<SearchCoverage> {
  const { chunks, embedded } = await store.embedCoverage(scope);
  return { chunks, embedded, keywordOnly: chunks - embedded };
}

/** Says so when some chunks in the scope have no vector. */
function coverageOf(counted: SearchCoverage, mode: SearchMode, notices: Notice[]): SearchCoverage {
  const { chunks, embedded, keywordOnly } = counted;
  if (keywordOnly > 0) {
    const rest = keywordOnly === 1 ? "1 is" : `${keywordOnly} are`;
    notices.push(
      mode === "hybrid"
        ? notice(`Hybrid search over ${embedded} of ${chunks} chunks embedded; ${rest} searched by keyword only.`, { action: "embed", purpose: "to search them by meaning too" })
        : notice(`Vector search over ${embedded} of ${chunks} chunks embedded; ${rest} not embedded and cannot be found by meaning.`, { action: "embed" }, { action: "search-mode", mode: "hybrid" }),
    );
  }
  return { chunks, embedded, keywordOnly };
}

function toResult(row: FusedResult, chunk: ChunkRecord, context: { words: string[]; folderPath: string | null; stale: boolean }): SearchResult {
  const result: SearchResult = {
    chunk,
    score: row.score,
    isIncluded: true,
    ref: chunk.ref,
    documentId: chunk.documentId,
    documentTitle: chunk.title,
    relativePath: chunk.relativePath,
    folderId: chunk.folderId,
    folderPath: context.folderPath,
    location: locationOf(chunk),
    section: chunk.section ?? null,
    snippet: makeSnippet(chunk.content, context.words),
    relevancePercent: Math.round(row.score * 100),
  };
  if (row.distance !== undefined) result.distance = row.distance;
  if (row.keywordScore !== undefined) result.keywordScore = row.keywordScore;
  if (row.distanceLookedUp) result.distanceLookedUp = true;
  if (row.vectorRank !== undefined) result.vectorRank = row.vectorRank;
  if (row.keywordRank !== undefined) result.keywordRank = row.keywordRank;
  if (row.pinned) result.pinned = true;
  if (row.notEmbedded) result.notEmbedded = true;
  if (row.rerankScore !== undefined) result.rerankScore = row.rerankScore;
  if (row.rerankRank !== undefined) result.rerankRank = row.rerankRank;
  if (row.fusedScore !== undefined) result.fusedScore = row.fusedScore;
  if (context.stale) result.stale = true;
  return result;
}

/** Where in its source a chunk is, for a citation: page(s), slide or sheet. */
export function locationOf(chunk: Pick<ChunkRecord, "page" | "pageEnd" | "slide" | "sheet">): string | null {
  if (chunk.page !== undefined) return chunk.pageEnd !== undefined && chunk.pageEnd !== chunk.page ? `pp. ${chunk.page}–${chunk.pageEnd}` : `p. ${chunk.page}`;
  if (chunk.slide !== undefined) return `slide ${chunk.slide}`;
  if (chunk.sheet !== undefined) return `sheet ${chunk.sheet}`;
  return null;
}

function checkOptions(query: string, limit: number, minScore: number, maxDistance: number | undefined): void {
  if (query.trim() === "") throw new ChunkpadError("INVALID_ARGUMENT", 'The search query is empty. Give words to search for, for example "quarterly revenue".');
  if (!Number.isInteger(limit) || limit < 1) throw new ChunkpadError("INVALID_ARGUMENT", `The limit must be a whole number of 1 or more, not ${limit}.`);
  if (!(minScore >= 0 && minScore <= 1)) throw new ChunkpadError("INVALID_ARGUMENT", `The minimum score is a fraction from 0 to 1 (0.1 is the default), not ${minScore}.`);
  if (maxDistance !== undefined && !(maxDistance >= 0 && maxDistance <= 2)) {
    throw new ChunkpadError("INVALID_ARGUMENT", `The maximum distance is a cosine distance from 0 to 2 (0.5 is strict, 1 is loose), not ${maxDistance}.`);
  }
}
