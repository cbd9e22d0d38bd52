import path from "node:path";
import { ChunkpadError } from "../../core/errors.js";
import type { KeywordHit, KeywordQuery, KeywordSearchOptions, MainStore, StoreOpener, VectorHit } from "../contract.js";
import { createFolderLocks, type FolderLocks } from "../file-locks.js";
import { removeSqliteStoreFiles } from "./store-files.js";
import { formatKeywordTerm, quoteWords } from "../../core/keyword-query.js";
import { toConstraintExpressions, toMatchExpression } from "./fts-query.js";
import type { FtsHit } from "./keyword.js";
import { openSqliteMainStore, type OpenSqliteMainStoreOptions, type SqliteMainStore } from "./main-store.js";
import { toChunkpadError } from "./database.js";

export interface OpenMainStoreOptions extends OpenSqliteMainStoreOptions, StoreOpener {
  /** Where folder lock files go (default: `locks/` beside the database). */
  lockDirectory?: string;
  /** Node's ICU version (tests give another to see the index rebuilt). */
  icuVersion?: string;
}

/**
 * The main store on SQLite (better-sqlite3 + FTS5 + sqlite-vec, one file): the backend-neutral,
 * async contract over the synchronous engine. better-sqlite3 is synchronous and fast; the
 * promises cost a microtask per call and let a server backend implement the same contract
 * (docs/decisions/020-store-contract.md). Neutral queries are compiled to FTS5 here, and FTS5's
 * bm25 (lower is better) and sqlite-vec's cosine distance become higher-is-better scores.
 */
export function openMainStore({ lockDirectory, command, machine, ...options }: OpenMainStoreOptions): MainStore {
  // The processes sharing a SQLite file share its machine: a lock file per folder serves them all.
  const locks = createFolderLocks({ directory: lockDirectory ?? path.join(path.dirname(path.resolve(options.path)), "locks"), command: command ?? "chunkpad", machine: machine ?? null });
  const engine = openSqliteMainStore(options);
  rebuildAfterIcuChange(engine, options.icuVersion ?? process.versions.icu ?? "none");
  return toContract(engine, locks);
}

/**
 * search_text() cuts CJK text into words with Intl.Segmenter, whose dictionary is Node's ICU: a
 * new ICU can cut the same text differently, and the index would no longer match its queries.
 * The ICU version that made the index is recorded; another one rebuilds the index once.
 */
const KEYWORD_ICU_KEY = "keyword.icu";

function rebuildAfterIcuChange(engine: SqliteMainStore, icu: string): void {
  const recorded = engine.getMeta(KEYWORD_ICU_KEY);
  if (recorded === icu) return;
  if (recorded !== null) engine.rebuildKeywordIndex();
  engine.setMeta(KEYWORD_ICU_KEY, icu);
}

/**
 * `*` makes FTS5 merge the doclists of every word that starts with the (stemmed) word: for a
 * common word that is most of the cost of a query (2.5× on AND queries at 100k chunks), and the
 * porter stemmer already matches its inflections. So the prefix stays where it is cheap or needed:
 * - a word the index does not hold whole (a fragment, a word still being typed);
 * - a rare word of 5+ letters (at most RARE_WORD_ROWS chunks): its few longer forms cost little
 *   and may be what was meant ("german" → "germany");
 * - Hangul, where particles attach to words ("서울" → "서울에서").
 * A short or common whole word ("use" → "user", "useful"; "inform" → "informal") is searched
 * exactly. Small collections keep nearly every prefix: few words reach the cap there.
 */
const RARE_WORD_ROWS = 1_000;
const PREFIX_WORTH_CHARS = 5;

function cheapPrefixes(engine: SqliteMainStore, query: KeywordQuery): KeywordQuery {
  if (!query.terms.some((term) => term.prefix)) return query;
  const keepPrefix = (word: string) => {
    if (/\p{Script=Hangul}/u.test(word)) return true;
    const rows = engine.countWordUpTo(word, RARE_WORD_ROWS + 1);
    return rows === 0 || (rows <= RARE_WORD_ROWS && Array.from(word).length >= PREFIX_WORTH_CHARS);
  };
  return { ...query, terms: query.terms.map((term) => (term.prefix && !keepPrefix(term.word) ? { ...term, prefix: false } : term)) };
}

/** bm25 is negative for a match, lower is better: its negation is a relevance above 0. */
function toKeywordHit({ chunk, bm25, hasVector }: FtsHit): KeywordHit {
  return { chunk, score: -bm25, hasVector };
}

/** The contract over an engine opened directly (benchmarks that also drive the engine). */
export function toContract(engine: SqliteMainStore, locks?: FolderLocks): MainStore {
  const call =
    <Arguments extends unknown[], Result>(method: (...args: Arguments) => Result) =>
    async (...args: Arguments): Promise<Result> =>
      method(...args);
  // Writes a run may group into fewer commits (startCommitGroup): the group's transaction opens first.
  const grouped =
    <Arguments extends unknown[], Result>(method: (...args: Arguments) => Result) =>
    async (...args: Arguments): Promise<Result> => {
      try {
        engine.commitGrouping.beforeWrite();
      } catch (error) {
        throw toChunkpadError(error, engine.path);
      }
      return method(...args);
    };
  const keywordSearch = async (query: KeywordQuery, options: KeywordSearchOptions): Promise<KeywordHit[]> => {
    // A query with nothing to match finds nothing rather than reaching FTS5.
    const exact = cheapPrefixes(engine, query);
    // Loose words only: the keyword index in memory ranks them when this process keeps one.
    const inMemory = exact.phrases.length === 0 ? engine.keywordSearchInMemory(exact.terms, exact.match, exact.exclude.map(quoteWords), options) : null;
    if (inMemory !== null) return inMemory.map(toKeywordHit);
    // Any of several words (the OR fallback): ranked without scoring every match.
    if (exact.match === "any" && exact.terms.length > 1 && exact.phrases.length === 0) {
      return engine.keywordSearchAny(exact.terms.map(formatKeywordTerm), exact.exclude.map(quoteWords), options).map(toKeywordHit);
    }
    const expression = toMatchExpression(exact);
    if (expression === null) return [];
    return engine.keywordSearch(expression, options).map(toKeywordHit);
  };
  return {
    path: engine.path,
    get vectorAvailable() {
      return engine.vectorAvailable;
    },
    get vectorUnavailableReason() {
      return engine.vectorUnavailableReason;
    },
    upsertFolder: call(engine.upsertFolder),
    getFolder: call(engine.getFolder),
    getFolderByPath: call(engine.getFolderByPath),
    listFolders: call(engine.listFolders),
    listFolderPlaces: call(engine.listFolderPlaces),
    updateFolderStats: call(engine.updateFolderStats),
    getFolderSettings: call(engine.getFolderSettings),
    setFolderSettings: call(engine.setFolderSettings),
    setNewChunksIncluded: call(engine.setNewChunksIncluded),
    removeFolder: call(engine.removeFolder),
    listSources: call(engine.listSources),
    getSource: call(engine.getSource),
    upsertSource: grouped(engine.upsertSource),
    deleteSource: grouped(engine.deleteSource),
    startCommitGroup(options) {
      const group = engine.commitGrouping.start(options);
      return {
        async end() {
          try {
            await group.end();
          } catch (error) {
            throw toChunkpadError(error, engine.path);
          }
        },
      };
    },
    syncDocument: grouped(engine.syncDocument),
    deleteDocument: grouped(engine.deleteDocument),
    renameDocument: grouped(engine.renameDocument),
    getDocument: call(engine.getDocument),
    getDocumentByPath: call(engine.getDocumentByPath),
    listDocuments: call(engine.listDocuments),
    findDocuments: call(engine.findDocuments),
    listChunks: call(engine.listChunks),
    getChunk: call(engine.getChunk),
    getChunks: call(engine.getChunks),
    setIncluded: call(engine.setIncluded),
    listExcludedRefs: call(engine.listExcludedRefs),
    keywordSearch,
    async keywordSearchRefs(query, options) {
      const exact = cheapPrefixes(engine, query);
      const inMemory = exact.phrases.length === 0 ? engine.keywordRefsInMemory(exact.terms, exact.match, exact.exclude.map(quoteWords), options) : null;
      if (inMemory !== null) return inMemory.map(({ ref, documentId, bm25, hasVector }) => ({ ref, documentId, score: -bm25, hasVector }));
      // FTS5 ranks and reads the rows in one query (a one-off search): the whole hits, by reference.
      return (await keywordSearch(query, options)).map(({ chunk, score, hasVector }) => ({ ref: chunk.ref, documentId: chunk.documentId, score, hasVector }));
    },
    planKeywordQuery: async (query) => cheapPrefixes(engine, query),
    async countKeywordMatches(query, scope) {
      const expression = toMatchExpression(cheapPrefixes(engine, query));
      return expression === null ? 0 : engine.countKeywordMatches(expression, scope);
    },
    async keywordScores(query, refs) {
      const expression = toMatchExpression(query);
      const scores = new Map<string, number>();
      if (expression === null) return scores;
      for (const [ref, bm25] of engine.keywordBm25For(expression, refs)) scores.set(ref, -bm25);
      return scores;
    },
    ensureVectorTable: call(engine.ensureVectorTable),
    vectorDimensions: call(engine.vectorDimensions),
    upsertVectors: call(engine.upsertVectors),
    deleteVectors: call(engine.deleteVectors),
    async vectorSearch(embedding, { text, ...options }): Promise<VectorHit[]> {
      const constraints = toConstraintExpressions(text);
      const hits = engine.vectorSearch(embedding, constraints.required || constraints.excluded ? { ...options, text: constraints } : options);
      return hits.map(({ chunk, distance, stale }) => ({ chunk, score: 1 - distance, stale }));
    },
    async vectorScores(embedding, refs) {
      const scores = new Map<string, number>();
      for (const [ref, distance] of engine.vectorDistances(embedding, refs)) scores.set(ref, 1 - distance);
      return scores;
    },
    embedCoverage: call(engine.embedCoverage),
    embedState: call(engine.embedState),
    dropAllVectors: call(engine.dropAllVectors),
    vectorCount: call(engine.vectorCount),
    hasVectors: call(engine.hasVectors),
    async searchIndexStatus(options = {}) {
      if (options.waitUntilReady) await engine.whenKeywordIndexReady();
      return { keyword: engine.keywordIndexStatus() };
    },
    listVectors: call(engine.listVectors),
    updateVectorIndex: call(engine.updateVectorIndex),
    getMeta: call(engine.getMeta),
    setMeta: call(engine.setMeta),
    deleteMeta: call(engine.deleteMeta),
    integrityCheck: call(engine.integrityCheck),
    rebuildKeywordIndex: call(engine.rebuildKeywordIndex),
    async lease(folders, options) {
      if (locks === undefined) throw new ChunkpadError("INTERNAL", "This store was opened without folder locks.");
      const release = await locks.acquire(folders, options);
      return async () => release();
    },
    close: call(engine.close),
    async destroy() {
      engine.close();
      await removeSqliteStoreFiles(engine.path);
    },
  };
}
