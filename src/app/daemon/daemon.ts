import path from "node:path";
import type { Embedder } from "../../core/types.js";
import { connectDaemonEmbedder, encodeVector, type DaemonEmbedRequest, type DaemonEmbedResponse, type DaemonEndpoint } from "../../embedding/daemon.js";
import { createEmbedder, type CreateEmbedderOptions, type EmbedderConfig } from "../../embedding/registry.js";
import { findLiveServer } from "./server-registry.js";

/**
 * The warm daemon: when `chunkpad serve` runs, it keeps the embedding model loaded, and a CLI
 * verb that needs the model (vector or hybrid search, ask, embed) sends its texts there instead
 * of loading the model itself. server.json in the data folder says where the server is (and
 * holds its session token, readable by the user only; server-registry.ts checks it). Anything that goes wrong on the way —
 * no server, a dead one, another version, a model it cannot load — falls back to loading the
 * model in this process, as without a server: the daemon only ever saves time.
 */

export { findLiveServer, serverInfoPath, type ServerInfo } from "./server-registry.js";

export type EmbedderFactory = (config: EmbedderConfig, options: CreateEmbedderOptions) => Promise<Embedder>;

/** createEmbedder that asks a running server first for a local model, and loads the model here when it cannot. */
export function embedderViaServer(dataDir: string, onServed?: (endpoint: DaemonEndpoint) => void): EmbedderFactory {
  return async (config, options) => {
    // Checked first: the token goes only to a live server that proves it knows it.
    const server = config.provider === "local" ? await findLiveServer(dataDir) : null;
    if (server) {
      try {
        const model = /^[./~]/.test(config.model) ? path.resolve(config.model) : config.model;
        const embedder = await connectDaemonEmbedder({ endpoint: server, model, ...(config.dtype === undefined ? {} : { dtype: config.dtype }) });
        onServed?.(server);
        options.onStatus?.({ state: "ready" });
        return embedder;
      } catch {
        // Fall through: the model loads here, with this process's own errors and consent.
      }
    }
    return createEmbedder(config, options);
  };
}

/** The server side: local models kept loaded between requests, one run at a time per model. */
export interface WarmEmbedders {
  embed(request: DaemonEmbedRequest, configFor: (overrides: Pick<DaemonEmbedRequest, "model" | "dtype">) => EmbedderConfig): Promise<DaemonEmbedResponse>;
  /** Models loaded now, and requests served. */
  describe(): { models: Array<{ model: string; dtype: string | null }>; requests: number };
  close(): Promise<void>;
}

export function createWarmEmbedders(): WarmEmbedders {
  const loaded = new Map<string, { model: string; dtype: string | null; embedder: Promise<Embedder>; queue: Promise<unknown> }>();
  let requests = 0;
  return {
    async embed(request, configFor) {
      const config = configFor({ ...(request.model === undefined ? {} : { model: request.model }), ...(request.dtype === undefined ? {} : { dtype: request.dtype }) });
      const key = JSON.stringify([config.provider, config.model, config.dtype ?? null]);
      let entry = loaded.get(key);
      if (!entry) {
        const embedder = createEmbedder(config, { allowDownload: false });
        entry = { model: config.model, dtype: config.dtype ?? null, embedder, queue: Promise.resolve() };
        loaded.set(key, entry);
        // A model that failed to load is tried again next time (the user may download it meanwhile).
        embedder.catch(() => loaded.delete(key));
      }
      const embedder = await entry.embedder;
      requests += 1;
      const run = entry.queue.then(async () =>
        request.texts.length === 0 ? [] : request.kind === "query" ? await Promise.all(request.texts.map((text) => embedder.embedQuery(text))) : await embedder.embedDocuments(request.texts),
      );
      entry.queue = run.catch(() => undefined);
      const vectors = await run;
      return { fingerprint: embedder.fingerprint, dimensions: embedder.dimensions, maxTokens: embedder.maxTokens, vectors: vectors.map(encodeVector) };
    },
    describe: () => ({ models: [...loaded.values()].map(({ model, dtype }) => ({ model, dtype })), requests }),
    async close() {
      const entries = [...loaded.values()];
      loaded.clear();
      await Promise.all(entries.map((entry) => entry.embedder.then((embedder) => embedder.close?.()).catch(() => undefined)));
    },
  };
}
