import type { Embedder } from "../../core/types.js";
import { createEmbedder, type EmbedderConfig } from "../../embedding/registry.js";
import type { EmbedderFactory } from "../daemon/daemon.js";
import type { MainStore } from "../../store/index.js";
import type { ChunkpadConfig } from "../settings/config.js";
import { embedderConfigFor, modelIdentity, type ModelIdentity } from "../embed/embedder-setup.js";
import { evaluateSearch, type EvaluateOptions, type EvaluationReport } from "./evaluate.js";
import type { ChunkpadPaths } from "../settings/paths.js";
import { searchChunks, type RerankReadiness, type SearchOptions, type SearchReport } from "./search.js";
import { createReranker, type Reranker } from "../../embedding/reranker.js";
import { ChunkpadError, isChunkpadError } from "../../core/errors.js";
import { prepareVectorSearch, type QueryEmbedderLoader, type VectorReadiness } from "./search-vector.js";

/**
 * Search and evaluation for one open Chunkpad: keeps the query embedder loaded between
 * searches (loading a model costs far more than a query) and closes it with the facade.
 */

/** What the warm-up searches for: ordinary words of different kinds, each a query of its own. */
const WARM_UP_QUERIES = ["annual report summary", "how to install", "meeting notes from last week", "price", "the history of the project"];

export interface SearchServiceOptions {
  getStore: () => MainStore;
  getConfig: () => ChunkpadConfig;
  paths: ChunkpadPaths;
  env: NodeJS.ProcessEnv;
  /** Replaces the configured embedder (tests, benchmarks). */
  loadQueryEmbedder?: QueryEmbedderLoader;
  /** How the configured embedder is made (through a running server, say); default: loaded here. */
  createEmbedder?: EmbedderFactory;
  /** A local query model loads in this thread, not a worker (a one-off command; see OpenChunkpadOptions). */
  queryModelInThread?: boolean;
}

export interface SearchService {
  search(query: string, options?: SearchOptions): Promise<SearchReport>;
  evaluate(options: EvaluateOptions): Promise<EvaluationReport>;
  vectorReadiness(): Promise<VectorReadiness>;
  /**
   * For a server: opens the store (its keyword index starts reading) and, when there are vectors,
   * loads the query model and the vector index; resolves when all of it is ready.
   */
  warmUp(): Promise<SearchReadiness>;
  /** Whether a search now runs at full speed, and what is still being read or loaded. */
  readiness(): Promise<SearchReadiness>;
  close(): Promise<void>;
}

/**
 * `ready`: searches now run at steady-state speed. `keywordIndex`: the keyword index in memory
 * (null when this process keeps none). `vectors`: "cold" until warmUp runs (a one-off command),
 * "loading" while the query model and the vector index load, "ready", or "keyword-only" (no
 * vectors yet, or the model cannot be loaded: searches fall back to keywords).
 */
export interface SearchReadiness {
  ready: boolean;
  keywordIndex: { ready: boolean; wordsRead: number } | null;
  vectors: "cold" | "loading" | "ready" | "keyword-only";
}

/** The embedder settings from the config; the model loads from the cache and never downloads. */
export function queryEmbedderConfig(config: ChunkpadConfig, paths: ChunkpadPaths, env: NodeJS.ProcessEnv, inThread = false): EmbedderConfig {
  // A query is one short text: one thread keeps the second core free for the server.
  return embedderConfigFor(config, paths, env, { threads: 1, ...(inThread ? { modelThread: "caller" as const } : {}) });
}

export function createSearchService(options: SearchServiceOptions): SearchService {
  let loaded: { key: string; embedder: Promise<Embedder> } | undefined;
  // Once closed, nothing loads again: a warm-up still awaiting the store when a server stops would
  // otherwise start a model worker nobody closes, and the process would never exit.
  let closed = false;
  const refuseAfterClose = (): void => {
    if (closed) throw new ChunkpadError("CANCELLED", "Search was closed; open Chunkpad again to search.");
  };

  const loadQueryEmbedder = async (): Promise<Embedder> => {
    refuseAfterClose();
    if (options.loadQueryEmbedder) return options.loadQueryEmbedder();
    const embedderConfig = queryEmbedderConfig(options.getConfig(), options.paths, options.env, options.queryModelInThread);
    const key = JSON.stringify({ ...embedderConfig, apiKey: undefined });
    if (loaded?.key !== key) {
      const previous = loaded?.embedder;
      const embedder = (options.createEmbedder ?? createEmbedder)(embedderConfig, { allowDownload: false });
      // A failed load is not kept: the user may download the model and search again.
      embedder.catch(() => {
        if (loaded?.embedder === embedder) loaded = undefined;
      });
      loaded = { key, embedder };
      void previous?.then((old) => old.close?.()).catch(() => undefined);
    }
    return loaded.embedder;
  };

  // The configured model's identity, so a model that cannot load is still checked against the vectors.
  const configuredIdentity = (): ModelIdentity | undefined => {
    if (options.loadQueryEmbedder) return undefined;
    try {
      return modelIdentity(queryEmbedderConfig(options.getConfig(), options.paths, options.env));
    } catch {
      return undefined;
    }
  };

  const vectorReadiness = () => prepareVectorSearch(options.getStore(), loadQueryEmbedder, options.getConfig().embedding.model, configuredIdentity());

  // The cross-encoder, kept loaded like the query embedder; a failed load is not kept.
  let reranker: { key: string; loaded: Promise<Reranker> } | undefined;
  const rerankReadiness = async ({ rerankConsent, onRerankModelStatus }: Pick<SearchOptions, "rerankConsent" | "onRerankModelStatus">): Promise<RerankReadiness> => {
    const config = options.getConfig();
    const rerankConfig = { model: config.search.rerankModel, dtype: config.search.rerankDtype, cacheDir: options.paths.modelsDir, hubUrl: config.embedding.hubUrl };
    const key = JSON.stringify(rerankConfig);
    if (reranker?.key !== key) {
      refuseAfterClose();
      const previous = reranker?.loaded;
      const loaded = createReranker(rerankConfig, {
        allowDownload: rerankConsent !== undefined,
        ...(rerankConsent ? { consent: rerankConsent } : {}),
        ...(onRerankModelStatus ? { onStatus: onRerankModelStatus } : {}),
      });
      reranker = { key, loaded };
      loaded.catch(() => {
        if (reranker?.loaded === loaded) reranker = undefined;
      });
      void previous?.then((old) => old.close()).catch(() => undefined);
    }
    try {
      return { ready: true, reranker: await reranker.loaded };
    } catch (error) {
      if (!isChunkpadError(error)) throw error;
      return { ready: false, reason: error.message, ...(error.nextSteps ? { nextSteps: error.nextSteps } : {}) };
    }
  };

  let vectors: SearchReadiness["vectors"] = "cold";
  let warming: Promise<void> | undefined;
  /** Loads what vector search needs; whether it can run. `vectors` says "ready" only once warmUp has run searches. */
  const warmVectors = async (): Promise<boolean> => {
    vectors = "loading";
    try {
      const readiness = await vectorReadiness();
      if (!readiness.ready) {
        vectors = "keyword-only";
        return false;
      }
      // One whole search loads the approximate index, runs the model once (and the cross-encoder,
      // when search.rerank is on) and counts the coverage (kept until a write).
      await search("warm up", { mode: "hybrid" });
      return true;
    } catch {
      // A model mismatch or a failed load: the user's search reports it with what to do.
      vectors = "keyword-only";
      return false;
    }
  };
  const readiness = async (): Promise<SearchReadiness> => {
    const { keyword } = await options.getStore().searchIndexStatus();
    return { ready: (keyword?.ready ?? true) && vectors !== "loading" && vectors !== "cold", keywordIndex: keyword, vectors };
  };
  const warmUp = async () => {
    const store = options.getStore();
    warming ??= (async () => {
      const [, withVectors] = await Promise.all([store.searchIndexStatus({ waitUntilReady: true }), warmVectors()]);
      // Then, with both indexes in place, a few searches of each mode on different words: the
      // in-memory keyword index's ranking has never run (searches before it was ready went to
      // SQLite), nor has most of a vector search's code. With one hybrid search alone the first
      // user's keyword and vector searches took 2–3× a later one's (decision 092).
      for (const query of WARM_UP_QUERIES) {
        for (const mode of withVectors ? (["keyword", "vector", "hybrid"] as const) : (["keyword"] as const)) await search(query, { mode, rerank: false }).catch(() => undefined);
      }
      if (withVectors) vectors = "ready";
    })();
    await warming;
    return readiness();
  };

  const search = (query: string, searchOptions: SearchOptions = {}) =>
    searchChunks({ store: options.getStore(), settings: options.getConfig().search, vectorReadiness, rerankReadiness }, query, searchOptions);

  return {
    search,
    evaluate: (evaluateOptions) => evaluateSearch({ search, vectorReadiness }, evaluateOptions),
    vectorReadiness,
    warmUp,
    readiness,
    async close() {
      closed = true;
      const embedder = loaded?.embedder;
      loaded = undefined;
      await embedder?.then((opened) => opened.close?.()).catch(() => undefined);
      const crossEncoder = reranker?.loaded;
      reranker = undefined;
      await crossEncoder?.then((opened) => opened.close()).catch(() => undefined);
    },
  };
}
