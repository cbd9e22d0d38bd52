import { ChunkpadError } from "../../core/errors.js";
import type { ChunkingOptions, Embedder, IndexedFolder, ModelStatus } from "../../core/types.js";
import type { EmbeddingDtype } from "../../embedding/catalog.js";
import { withContextPrefix } from "../../core/context-prefix.js";
import type { ModelConsentRequest } from "../../embedding/ensure-model.js";
import { createEmbedder, type CreateEmbedderOptions, type EmbedderConfig } from "../../embedding/registry.js";
import type { MainStore } from "../../store/index.js";
import { sha256Hex } from "../../core/chunk-ref.js";
import { META_KEYS } from "../../store/index.js";
import type { ChunkpadConfig } from "../settings/config.js";
import { configModelValue, embedderConfigFor, modelIdentity, type ModelIdentity } from "./embedder-setup.js";
import type { FolderOwner } from "../folder-owner.js";
import { embeddedRefs, foldersOwnedHere, foldersToEmbed, syncFolders, type SyncFolder, type SyncSummary } from "./embed-folders.js";
import { databaseFingerprint, describeIdentity, differingFields, embeddingMismatch, identityIsCurrent, readStoredFingerprint, sameIdentity, vectorStamp, type StoredFingerprint } from "../../embedding/vector-fingerprint.js";
import { inBatches, planEmbedding, type EmbedPlan } from "./embed-plan.js";
import type { ChunkpadPaths } from "../settings/paths.js";
import { notice, type Notice } from "../../core/next-step.js";

/**
 * Step 2, "Embed Selected": takes hand edits in, then embeds the included chunks that are new
 * or changed (with their context prefix) and removes the vectors of excluded ones. The model
 * is loaded only when something needs embedding, and downloaded only after consent. Each batch
 * is one transaction (vectors and their embed records together), so a run killed at any moment
 * leaves whole batches behind and the next run finishes the job.
 */

export interface EmbedConsentRequest extends ModelConsentRequest {
  hubUrl: string;
  /** Where the model will be kept. */
  cacheDir: string;
}

export type EmbedProgress =
  | { phase: "sync"; folder: string }
  | { phase: "model"; status: ModelStatus }
  | { phase: "embed"; done: number; total: number; chunksPerSecond: number };

export interface EmbedOptions {
  /** An added folder (path or id); default: every added folder. --reembed always covers all. */
  folder?: string;
  /** Catalog name, hub id or local model directory; remembered in the config when it changes. */
  model?: string;
  dtype?: EmbeddingDtype;
  /** Drop every vector and embed all included chunks again (after a model change). */
  reembed?: boolean;
  /** Chunks per embedding call and per commit (default: embedding.batchSize). */
  batchSize?: number;
  /** Asked before the model is downloaded; without it (or on false) nothing is downloaded. */
  consent?: (request: EmbedConsentRequest) => Promise<boolean>;
  onProgress?: (event: EmbedProgress) => void;
  signal?: AbortSignal;
  /** Resolves a relative folder path; default process.cwd(). */
  cwd?: string;
}

export interface EmbedReport {
  folders: Array<{ id: string; rootPath: string }>;
  provider: string;
  /** Hub id or directory (local), or the provider's model name. */
  model: string;
  dtype: string | null;
  dimensions: number | null;
  embedded: number;
  /** Vectors removed: of excluded chunks, and of chunks edited away or deleted. */
  removed: number;
  /** Included chunks whose vector was already current. */
  unchanged: number;
  excluded: number;
  /** True when the run changed nothing. */
  nothingToDo: boolean;
  reembed: boolean;
  modelLoaded: boolean;
  downloaded: boolean;
  synced: SyncSummary;
  /** Config keys set because --model or --dtype chose another model. */
  configChanged: Array<{ key: string; value: string }>;
  durationMs: number;
  /** Embedding throughput of this run (null when nothing was embedded). */
  chunksPerSecond: number | null;
  notices: Notice[];
}

export interface EmbedDependencies {
  store: MainStore;
  config: ChunkpadConfig;
  paths: ChunkpadPaths;
  env: NodeJS.ProcessEnv;
  /** Step 1 for one added folder. */
  syncFolder: SyncFolder;
  /** The chunk settings a folder is processed with (config plus its own overrides). */
  chunkingFor: (folderId: string) => Promise<ChunkingOptions>;
  /** Saves one config key (the model chosen with --model / --dtype). */
  rememberConfig: (key: string, value: string) => void;
  createEmbedder?: (config: EmbedderConfig, options: CreateEmbedderOptions) => Promise<Embedder>;
  /** Milliseconds, for durations and throughput. */
  clock?: () => number;
  /** The owner of a folder when it is another machine (which alone embeds it). */
  otherOwner?: (folderId: string) => Promise<FolderOwner | null>;
}

const MAX_BATCH_SIZE = 512;

export async function embedSelected(dependencies: EmbedDependencies, options: EmbedOptions = {}): Promise<EmbedReport> {
  const { store, config } = dependencies;
  const clock = dependencies.clock ?? Date.now;
  const started = clock();
  if (!store.vectorAvailable) {
    throw new ChunkpadError(
      "VECTOR_UNAVAILABLE",
      `Cannot embed: ${store.vectorUnavailableReason ?? "sqlite-vec could not be loaded"}. Keyword search still works.`,
      { nextSteps: [{ action: "search-mode", mode: "keyword" }] },
    );
  }
  const batchSize = checkBatchSize(options.batchSize ?? config.embedding.batchSize);
  const embedderConfig = embedderConfigFor(config, dependencies.paths, dependencies.env, {
    ...(options.model === undefined ? {} : { model: options.model }),
    ...(options.dtype === undefined ? {} : { dtype: options.dtype }),
  });
  const identity = modelIdentity(embedderConfig);
  const reembed = options.reembed === true;
  const notices: Notice[] = [];
  const refuse = reembed ? "re-embed (a new model re-embeds every folder)" : options.folder === undefined ? null : "embed";
  const named = reembed ? await store.listFolders() : await foldersToEmbed(store, options.folder, options.cwd ?? process.cwd());
  const folders = await foldersOwnedHere(named, dependencies.otherOwner, refuse, notices);
  if (reembed && options.folder !== undefined) notices.push(notice("Re-embedding covers every added folder: the vectors of all folders must come from one model."));
  if (named.length === 0) notices.push(notice("No folders are added yet.", { action: "add-folder" }));

  const stored = readStoredFingerprint(await store.getMeta(META_KEYS.embeddingFingerprint));
  // Before anything is synced or downloaded: a model other than the one that made the vectors stops here.
  if (!reembed && await store.vectorCount() > 0 && stored.embedder !== null && !sameIdentity(stored.embedder, identity)) {
    throw await mismatch(store, stored, identity);
  }

  const before = await embeddedRefs(store, folders);
  for (const folder of folders) options.onProgress?.({ phase: "sync", folder: folder.rootPath });
  // A renamed document's vectors moved with it to new refs: moved, not removed.
  const renames: Array<{ prefix: string; to: string }> = [];
  const synced = await syncFolders(folders, dependencies.syncFolder, options.signal, notices, (folderId, from, to) => renames.push({ prefix: `${folderId}:${from}#`, to: `${folderId}:${to}#` }));
  const after = await embeddedRefs(store, folders);
  const movedTo = (ref: string) => {
    const rename = renames.find((candidate) => ref.startsWith(candidate.prefix));
    return rename ? rename.to + ref.slice(rename.prefix.length) : ref;
  };
  let removed = [...before].filter((ref) => !after.has(movedTo(ref))).length;

  const report: EmbedReport = {
    folders: folders.map((folder) => ({ id: folder.id, rootPath: folder.rootPath })),
    provider: identity.provider,
    model: identity.model,
    dtype: identity.dtype,
    dimensions: await store.vectorDimensions(),
    embedded: 0, removed: 0, unchanged: 0, excluded: 0,
    nothingToDo: false, reembed, modelLoaded: false, downloaded: false, synced, configChanged: [],
    durationMs: 0, chunksPerSecond: null, notices,
  };
  const finish = (): EmbedReport => {
    report.removed = removed;
    report.nothingToDo = report.embedded === 0 && report.removed === 0 && report.configChanged.length === 0 && !reembed;
    report.durationMs = clock() - started;
    return report;
  };

  if (!reembed) {
    // Vectors of excluded chunks go without the model. When the vectors come from this very
    // model, its stamp is known too, and a run with nothing to embed never loads it.
    const known = stored.embedder !== null && identityIsCurrent(stored.embedder, identity) ? JSON.stringify(stored.embedder) : null;
    const plans = await planFolders(store, folders, known, dependencies.chunkingFor);
    for (const { plan } of plans) if (plan.toRemove.length > 0) removed += await store.deleteVectors(plan.toRemove);
    const pending = plans.reduce((sum, { plan }) => sum + (known === null ? plan.toEmbed.length + plan.unchanged : plan.toEmbed.length), 0);
    if (pending === 0) {
      report.unchanged = plans.reduce((sum, { plan }) => sum + plan.unchanged, 0);
      report.excluded = plans.reduce((sum, { plan }) => sum + plan.excluded, 0);
      return finish();
    }
  }

  const embedder = await (dependencies.createEmbedder ?? createEmbedder)(embedderConfig, {
    allowDownload: true,
    consent: async (request) => (options.consent ? await options.consent({ ...request, hubUrl: embedderConfig.hubUrl, cacheDir: embedderConfig.cacheDir }) : Promise.resolve(false)),
    onStatus: (status) => {
      if (status.state === "downloading") report.downloaded = true;
      options.onProgress?.({ phase: "model", status });
    },
    ...(options.signal === undefined ? {} : { signal: options.signal }),
  });
  try {
    report.modelLoaded = true;
    await prepareVectors(store, embedder, stored, identity, reembed);
    rememberModel(dependencies, embedderConfig, options, report);
    const chunkingByFolder = Object.fromEntries(await Promise.all(folders.map(async (folder) => [folder.id, await dependencies.chunkingFor(folder.id)] as const)));
    const keptChunking = !reembed && stored.embedder !== null && differingFields(stored.embedder, embedder.fingerprint).length === 0 ? stored.chunking : {};
    await store.setMeta(META_KEYS.embeddingFingerprint, databaseFingerprint(embedder.fingerprint, { ...keptChunking, ...chunkingByFolder }));
    await store.setMeta(META_KEYS.embeddingModel, identity.model);

    const plans = await planFolders(store, folders, embedder.fingerprint, dependencies.chunkingFor);
    for (const { plan } of plans) if (plan.toRemove.length > 0) removed += await store.deleteVectors(plan.toRemove);
    report.unchanged = plans.reduce((sum, { plan }) => sum + plan.unchanged, 0);
    report.excluded = plans.reduce((sum, { plan }) => sum + plan.excluded, 0);
    await embedPlans(store, embedder, plans, { batchSize, clock, report, options });
    report.dimensions = await store.vectorDimensions() ?? (embedder.dimensions > 0 ? embedder.dimensions : null);
    if (report.dimensions !== null) await store.setMeta(META_KEYS.embeddingDimensions, String(report.dimensions));
  } finally {
    await embedder.close?.();
  }
  return finish();
}

interface FolderPlan {
  folder: IndexedFolder;
  stamp: string | null;
  plan: EmbedPlan;
}

async function planFolders(store: MainStore, folders: readonly IndexedFolder[], embedderFingerprint: string | null, chunkingFor: (folderId: string) => Promise<ChunkingOptions>): Promise<FolderPlan[]> {
  const plans: FolderPlan[] = [];
  for (const folder of folders) {
    const stamp = embedderFingerprint === null ? null : vectorStamp(embedderFingerprint, await chunkingFor(folder.id));
    plans.push({ folder, stamp, plan: planEmbedding(await store.embedState(folder.id), stamp) });
  }
  return plans;
}

/** After the model is loaded: the exact mismatch check, then a vector table of the right size. */
async function prepareVectors(store: MainStore, embedder: Embedder, stored: StoredFingerprint, identity: ModelIdentity, reembed: boolean): Promise<void> {
  const storedDimensions = await store.vectorDimensions();
  const otherSize = storedDimensions !== null && embedder.dimensions > 0 && storedDimensions !== embedder.dimensions;
  // An empty table holds nothing to keep; its size may not fit a model that learns its own from its first answer.
  if (reembed || (await store.vectorCount() === 0 && storedDimensions !== null && storedDimensions !== embedder.dimensions)) {
    await store.dropAllVectors();
  } else if (await store.vectorCount() > 0) {
    const differing = stored.embedder === null ? [] : differingFields(stored.embedder, embedder.fingerprint);
    if (differing.length > 0) throw await mismatch(store, stored, identity, `the same model with other settings: ${differing.join(", ")}`);
    if (otherSize) throw await mismatch(store, stored, identity, `which makes ${embedder.dimensions}-dimension vectors, not ${storedDimensions}`);
  }
  if (embedder.dimensions > 0) await store.ensureVectorTable(embedder.dimensions);
}

/** --model / --dtype that differ from the config are saved, so search and later runs use the same model. */
function rememberModel(dependencies: EmbedDependencies, embedderConfig: EmbedderConfig, options: EmbedOptions, report: EmbedReport): void {
  const changes: Array<{ key: string; value: string }> = [];
  if (options.model !== undefined) {
    const value = configModelValue(embedderConfig);
    if (value !== dependencies.config.embedding.model) changes.push({ key: "embedding.model", value });
  }
  if (options.dtype !== undefined && options.dtype !== dependencies.config.embedding.dtype) changes.push({ key: "embedding.dtype", value: options.dtype });
  for (const change of changes) dependencies.rememberConfig(change.key, change.value);
  report.configChanged = changes;
}

interface EmbedLoop {
  batchSize: number;
  clock: () => number;
  report: EmbedReport;
  options: EmbedOptions;
}

async function embedPlans(store: MainStore, embedder: Embedder, plans: readonly FolderPlan[], { batchSize, clock, report, options }: EmbedLoop): Promise<void> {
  const total = plans.reduce((sum, { plan }) => sum + plan.toEmbed.length, 0);
  if (total === 0) return;
  const started = clock();
  let done = 0;
  const throughput = () => report.embedded / Math.max((clock() - started) / 1000, 1e-3);
  options.onProgress?.({ phase: "embed", done, total, chunksPerSecond: 0 });
  for (const { plan, stamp } of plans) {
    for (const refs of inBatches(plan.toEmbed, batchSize)) {
      if (options.signal?.aborted) {
        throw new ChunkpadError("CANCELLED", `Embedding stopped after ${done} of ${total} chunks; those are kept.`, { nextSteps: [{ action: "try-again", what: "embed" }] });
      }
      const chunks = await store.getChunks(refs);
      const texts = chunks.map((chunk) => withContextPrefix({ title: chunk.title, section: chunk.section ?? null }, chunk.content));
      const vectors = await embedder.embedDocuments(texts);
      if (vectors.length !== chunks.length) {
        throw new ChunkpadError("EMBEDDING_FAILED", `The embedding model returned ${vectors.length} vectors for ${chunks.length} chunks. If it keeps happening, try another model.`, { nextSteps: [{ action: "try-again", what: "embed" }] });
      }
      const written = await store.upsertVectors(
        chunks.map((chunk, index) => ({ ref: chunk.ref, embedHash: sha256Hex(texts[index] as string), embedding: vectors[index] as Float32Array })),
        stamp as string,
      );
      report.embedded += written.written;
      // Into the approximate index as they come; once they outgrow the lists made at the threshold,
      // the index is built once more at the run's end (its save), not at every doubling (decision 100).
      await store.updateVectorIndex?.();
      done += refs.length;
      report.chunksPerSecond = throughput();
      options.onProgress?.({ phase: "embed", done, total, chunksPerSecond: report.chunksPerSecond });
    }
  }
}

async function mismatch(store: MainStore, stored: StoredFingerprint, identity: ModelIdentity, reason?: string): Promise<ChunkpadError> {
  const storedBy = stored.embedder === null ? (await store.getMeta(META_KEYS.embeddingModel) ?? "another model") : describeIdentity(stored.embedder);
  return embeddingMismatch({
    storedBy,
    current: describeIdentity(identity),
    vectorCount: await store.vectorCount(),
    ...(reason === undefined ? {} : { reason }),
    details: { storedFingerprint: stored.raw, model: identity.model, dtype: identity.dtype, provider: identity.provider },
  });
}

function checkBatchSize(batchSize: number): number {
  if (!Number.isInteger(batchSize) || batchSize < 1 || batchSize > MAX_BATCH_SIZE) {
    throw new ChunkpadError("INVALID_ARGUMENT", `The batch size must be a whole number from 1 to ${MAX_BATCH_SIZE} chunks (16 is the default), not ${batchSize}.`);
  }
  return batchSize;
}
