import fs from "node:fs";
import path from "node:path";
import { ChunkpadError } from "../core/errors.js";
import { SESSION_TOKEN_HEADER } from "../core/network.js";
import type { ChunkingOptions, IndexedFolder } from "../core/types.js";
import { createParseRunner, type ParseRunner } from "../ingest/parse-runner.js";
import { backendOf, openChats, openStore, storeLocation, type MainStore, type OpenStoresOptions } from "../store/index.js";
import { readConfigFile, setConfigValue, unsetConfigValue } from "./settings/config.js";
import { shownSetting, shownSettings } from "./settings/shown.js";
import { resolvePaths } from "./settings/paths.js";
import { createLiveSettings } from "./settings/live-settings.js";
import { processFolder, type ProcessReport } from "./process/process-folder.js";
import { forgetFolder, recordFolder } from "./process/folder-registry.js";
import type { SearchReadiness, SearchService } from "./search/search-service.js";
import { archiveVerbs } from "./archive/archive-verbs.js";
import type { AnswerService } from "./answer/ask-service.js";
import type { EmbedService } from "./embed/embed-service.js";
import { findAddedFolder, folderNotAdded } from "./folder-lookup.js";
import { checkOwner, claimFolder, folderOwner, folderOwnership, foldersWithOwners, otherOwner, thisMachine, type Machine } from "./folder-owner.js";
import type { WarmEmbedders } from "./daemon/daemon.js";
import { findLiveServer } from "./daemon/server-registry.js";
import { parseChunkRef } from "../core/chunk-ref.js";
import type { FolderLockOptions } from "./folder-lock.js";
import type { AddFolderOptions, Chunkpad, OpenChunkpadOptions } from "./chunkpad-api.js";

export type { AddFolderOptions, Chunkpad, ModelHost, OpenChunkpadOptions } from "./chunkpad-api.js";

/**
 * Opens Chunkpad's state (config, database) for one process; close it when done. Search, answers,
 * embedding and the other verbs' code load at their first use (`import()`), so a process that only
 * adds a folder never loads them (decision 083: ≈ 50 modules, ≈ 65 ms of CPU in every `chunkpad add`).
 */
export function openChunkpad(options: OpenChunkpadOptions = {}): Chunkpad {
  const env = options.env ?? process.env;
  const paths = resolvePaths({ env });
  const live = createLiveSettings(paths.configPath, env);
  const { settings, config, setting } = live;
  const writeConfig = (file: Record<string, unknown>) => live.write(file);
  let store: MainStore | undefined;
  let runner: ParseRunner | undefined;
  let machineCache: Machine | undefined;
  // Which machine this is: a folder belongs to the one that added it (see folder-owner.ts).
  const machine = () => (machineCache ??= thisMachine(paths.dataDir, env));

  // The store registry: SQLite in the data folder, or the PostgreSQL that store.url / CHUNKPAD_DATABASE_URL names.
  const storeOptions = (): OpenStoresOptions => ({
    url: live.storeUrl(),
    sqlite: { databasePath: paths.databasePath, chatDatabasePath: paths.chatDatabasePath, lockDirectory: path.join(paths.dataDir, "locks"), keywordIndexInMemory: options.keywordIndexInMemory ?? false },
    command: options.command ?? "chunkpad",
  });
  const getStore = () => (store ??= openStore({ ...storeOptions(), machine: machine() }));
  // The embedding models this process keeps loaded for clients (a server); made at the first request.
  let warm: WarmEmbedders | undefined;
  const warmEmbedders = onFirstUse(async () => (warm = (await import("./daemon/daemon.js")).createWarmEmbedders()));
  const useServer = options.useServer === true && env.CHUNKPAD_SERVER !== "off";
  const viaServer = async () => (useServer ? { createEmbedder: (await import("./daemon/daemon.js")).embedderViaServer(paths.dataDir) } : {});
  const searchService = onFirstUse(async (): Promise<SearchService> =>
    (await import("./search/search-service.js")).createSearchService({
      ...(await viaServer()),
      getStore: () => getStore(),
      getConfig: config,
      paths,
      env,
      ...(options.loadQueryEmbedder ? { loadQueryEmbedder: options.loadQueryEmbedder } : {}),
      ...(options.queryModelInThread ? { queryModelInThread: true } : {}),
    }));
  const answers = onFirstUse(async (): Promise<AnswerService> =>
    (await import("./answer/ask-service.js")).createAnswerService({
      getConfig: config,
      getStore: () => getStore(),
      search: async (query, searchOptions) => (await searchService()).search(query, searchOptions),
      paths,
      env,
      openChats: () => openChats(storeOptions()),
    }));
  const getRunner = () =>
    (runner ??= createParseRunner({ workers: config().ingest.workers, timeoutMs: config().ingest.perFileTimeoutSeconds * 1000, maxHeapMb: config().ingest.workerHeapMb }));

  const folderChunking = async (folder: IndexedFolder | undefined, overrides: Partial<ChunkingOptions> | undefined): Promise<ChunkingOptions> => {
    const saved = folder ? await getStore().getFolderSettings(folder.id) : null;
    const chunking = { ...config().chunking, ...(saved ?? {}), ...(overrides ?? {}) };
    // The same bounds as chunking.chunkSizeTokens in the config, checked before the overlap so the message names the real problem.
    if (chunking.chunkSizeTokens < 32) throw new ChunkpadError("INVALID_ARGUMENT", `A chunk size of ${chunking.chunkSizeTokens} tokens is too small; use 32 or more (400 is the default).`);
    if (chunking.chunkSizeTokens > 8192) throw new ChunkpadError("INVALID_ARGUMENT", `A chunk size of ${chunking.chunkSizeTokens} tokens is too large; use 8192 or less (400 is the default and fits the embedding model).`);
    if (chunking.chunkOverlapTokens >= chunking.chunkSizeTokens) {
      throw new ChunkpadError("INVALID_ARGUMENT", `The overlap (${chunking.chunkOverlapTokens} tokens) must be smaller than the chunk size (${chunking.chunkSizeTokens} tokens).`);
    }
    return chunking;
  };

  const chunkingFor = async (folderId: string) => folderChunking(await getStore().getFolder(folderId) ?? undefined, undefined);

  // One writer per folder across processes (CLI, server, watcher), through the store's lease; reads never take it.
  const pickLockOptions = ({ wait, onWaiting, signal }: FolderLockOptions): FolderLockOptions => ({
    ...(wait === undefined ? {} : { wait }),
    ...(onWaiting === undefined ? {} : { onWaiting }),
    ...(signal === undefined ? {} : { signal }),
  });
  const withFolderLocks = async <T>(folders: readonly string[], lockOptions: FolderLockOptions & { purpose: string }, run: () => Promise<T>): Promise<T> => {
    const release = await getStore().lease(folders, lockOptions);
    try {
      return await run();
    } finally {
      await release();
    }
  };

  const runProcessFolder = async (folderPath: string, addOptions: AddFolderOptions = {}): Promise<ProcessReport> => {
    const existing = await findAddedFolder(getStore(), folderPath, { byId: false }) ?? undefined;
    if (existing && !addOptions.takeOver) await checkOwner(getStore(), existing, machine(), "process");
    const chunking = await folderChunking(existing, addOptions.chunking);
    const report = await processFolder(
      {
        store: getStore(),
        runner: getRunner(),
        chunking,
        limits: { maxDecompressedBytes: config().ingest.maxDecompressedMb * 1024 * 1024, maxArchiveEntries: config().ingest.maxArchiveEntries, ocr: config().ingest.ocr },
        maxFileSizeBytes: config().ingest.maxFileSizeMb * 1024 * 1024,
        concurrency: config().ingest.workers,
        fallbackChunksRoot: (folderId) => path.join(paths.dataDir, "chunks", folderId),
        privateDirectories: [paths.dataDir, paths.configDir, paths.cacheDir],
      },
      folderPath,
      addOptions,
    );
    await recordFolder(paths.dataDir, report.folder);
    // A folder added here (new, or removed and added again) is this machine's; so is one nobody owns yet.
    if (addOptions.takeOver || !existing || (await folderOwner(getStore(), report.folder.id)) === null) await claimFolder(getStore(), report.folder.id, machine());
    if (addOptions.chunking && Object.keys(addOptions.chunking).length > 0) {
      await getStore().setFolderSettings(report.folder.id, { chunkSizeTokens: chunking.chunkSizeTokens, chunkOverlapTokens: chunking.chunkOverlapTokens });
    }
    return report;
  };

  const embedService = onFirstUse(async (): Promise<EmbedService> =>
    (await import("./embed/embed-service.js")).createEmbedService({
      getStore: () => getStore(),
      getConfig: config,
      paths,
      env,
      // Step 1 before embedding, so hand edits of chunk files are what gets embedded.
      // embed holds every folder's lock already (see embed below).
      syncFolder: (rootPath, syncOptions) => runProcessFolder(rootPath, syncOptions),
      chunkingFor,
      setConfig: (key, value) => void facade.setConfig(key, value),
      otherOwner: async (folderId) => otherOwner(getStore(), folderId, machine()),
      ...(await viaServer()),
    }));

  const facade: Chunkpad = {
    paths,
    get config() {
      return config();
    },
    processFolder(folderPath, addOptions = {}) {
      return withFolderLocks([folderPath], { ...pickLockOptions(addOptions), purpose: "processing" }, () => runProcessFolder(folderPath, addOptions));
    },
    async resolveConflict(filePath, choice, resolveOptions = {}) {
      const absolute = path.resolve(filePath);
      let real = absolute;
      try {
        real = fs.realpathSync(absolute);
      } catch {
        // A chunk file or source that is gone is still named by its path.
      }
      const inside = (root: string, candidate: string) => {
        const relative = path.relative(root, candidate);
        return relative === "" || relative.startsWith("..") || path.isAbsolute(relative) ? undefined : relative.split(path.sep).join("/");
      };
      // The innermost added folder holding the file, through its chunk folder or its sources.
      const folders = [...await getStore().listFolders()].sort((a, b) => b.rootPath.length - a.rootPath.length);
      for (const folder of folders) {
        const fromChunks = inside(folder.chunksRootPath, real) ?? inside(folder.chunksRootPath, absolute);
        const relativePath = fromChunks?.replace(/\.md$/, "") ?? inside(folder.rootPath, real) ?? inside(folder.rootPath, absolute);
        if (relativePath === undefined) continue;
        const report = await facade.processFolder(folder.rootPath, { ...resolveOptions, resolve: { relativePath, choice } });
        return { relativePath, resolved: report.resolved.some((entry) => entry.path === relativePath), report };
      }
      throw new ChunkpadError("NOT_FOUND", `${filePath} is not in a folder you added. Give the path of a document (or its chunk file) inside one of the folders you added.`, { nextSteps: [{ action: "list-folders" }] });
    },
    async conflictDiff(folderPath, relativePath, diffOptions = {}) {
      const folder = await findAddedFolder(getStore(), folderPath, { byId: false });
      if (!folder) throw folderNotAdded(folderPath);
      const limits = { maxDecompressedBytes: config().ingest.maxDecompressedMb * 1024 * 1024, maxArchiveEntries: config().ingest.maxArchiveEntries, ocr: config().ingest.ocr };
      const { conflictDiff } = await import("./review/conflict-diff.js");
      return conflictDiff({ store: getStore(), runner: getRunner(), chunking: await folderChunking(folder, undefined), limits }, folder, relativePath, diffOptions);
    },
    listFolders: async () => await foldersWithOwners(getStore(), machine()),
    async saveDocument(folderId, name, bytes) {
      const folder = await getStore().getFolder(folderId);
      if (!folder) throw new ChunkpadError("NOT_FOUND", `No added folder has the id ${folderId}; add the folder first.`);
      return (await import("./files/folder-files.js")).saveDocument(folder, name, bytes);
    },
    listFolderChoices: async (folderPath) => (await import("./files/folder-files.js")).listFolderChoices(folderPath),
    async listDocuments(folderId) {
      return (await getStore().listDocuments(folderId)).sort((a, b) => (a.relativePath < b.relativePath ? -1 : a.relativePath > b.relativePath ? 1 : 0));
    },
    readChunk: async (ref, readOptions = {}) => (await import("./read/read.js")).readChunk(getStore(), ref, readOptions.neighbours),
    readDocument: async (request) => (await import("./read/read.js")).readDocument(getStore(), request),
    async editChunk(ref, text, baseHash, editOptions = {}) {
      const { readChunk } = await import("./read/read.js");
      const folder = parseChunkRef(ref) === null ? null : await getStore().getFolder(parseChunkRef(ref)?.folderId ?? "");
      if (!folder) return readChunk(getStore(), ref, 0);
      await checkOwner(getStore(), folder, machine(), "edit the chunks of");
      const { editChunkText } = await import("./review/edit-chunk.js");
      await withFolderLocks([folder.rootPath], { ...pickLockOptions(editOptions), purpose: "editing a chunk" }, async () => {
        await editChunkText(getStore(), ref, text, baseHash);
        await runProcessFolder(folder.rootPath);
      });
      return readChunk(getStore(), ref, 0);
    },
    sourceFile: async (document) => (await import("./read/read.js")).sourceFile(getStore(), document),
    async removeFolder(folderPath, removeOptions = {}) {
      const folder = await findAddedFolder(getStore(), folderPath, { byId: false });
      if (!folder) throw folderNotAdded(folderPath);
      await checkOwner(getStore(), folder, machine(), "remove");
      // Not under another process's add or embed of the same folder, which would write chunks back.
      await withFolderLocks([folder.rootPath], { ...pickLockOptions(removeOptions), purpose: "removing" }, async () => {
        await getStore().removeFolder(folder.id);
        await forgetFolder(paths.dataDir, folder.rootPath);
        // The chunk files are the user's edits too: deleted only when asked.
        if (removeOptions.deleteChunkFiles) await fs.promises.rm(folder.chunksRootPath, { recursive: true, force: true });
      });
      return { rootPath: folder.rootPath, chunksRootPath: folder.chunksRootPath, chunkFilesDeleted: Boolean(removeOptions.deleteChunkFiles) };
    },
    async chunkTree(folderPath) {
      const folder = await findAddedFolder(getStore(), folderPath, { byId: false });
      if (!folder) throw folderNotAdded(folderPath);
      return (await import("./review/chunk-tree.js")).chunkTree(getStore(), folder);
    },
    // Shown with credentials in URLs redacted (config list, the settings API); the clients read config().
    settings: () => shownSettings(settings()),
    setting: (key) => shownSetting(setting(key)),
    setConfig(key, value) {
      writeConfig(setConfigValue(readConfigFile(paths.configPath), key, value));
      return shownSetting(setting(key));
    },
    unsetConfig(key) {
      writeConfig(unsetConfigValue(readConfigFile(paths.configPath), key));
      const row = settings().settings.find((candidate) => candidate.key === key);
      return row === undefined ? null : shownSetting(row);
    },
    search: async (query, searchOptions) => (await searchService()).search(query, searchOptions),
    warmSearch: async () => (await searchService()).warmUp(),
    searchReadiness: async () => (await searchService()).readiness(),
    setIncluded: async (targets, included, reviewOptions) => (await import("./review/review.js")).setReviewState(getStore(), targets, included, reviewOptions),
    async chunkStates(folderPath, relativePath) {
      const folder = await findAddedFolder(getStore(), folderPath, { byId: false });
      if (!folder) throw folderNotAdded(folderPath);
      return (await import("./review/review-states.js")).listChunkStates(getStore(), folder.id, relativePath);
    },
    evaluate: async (evaluateOptions) => (await searchService()).evaluate(evaluateOptions),
    async calibrateGuardrail(calibrateOptions) {
      const [{ calibrateGuardrail }, { questionTermWeights }, search] = await Promise.all([import("./answer/calibrate-guardrail.js"), import("./answer/term-weights.js"), searchService()]);
      return calibrateGuardrail(
        {
          search: (question, searchOptions) => search.search(question, searchOptions),
          termWeights: (question) => questionTermWeights(getStore(), question),
          currentFloor: config().generation.minSimilarity,
        },
        calibrateOptions,
      );
    },
    // Every added folder's lock, taken in one stable order: embed writes vectors and the model
    // fingerprint shared by all folders, and two embeds taking them in order never deadlock.
    embed: async (embedOptions = {}) =>
      withFolderLocks(
        (await getStore()
          .listFolders())
          .map((folder) => folder.rootPath),
        { ...pickLockOptions(embedOptions), purpose: "embedding" },
        async () => (await embedService()).embed(embedOptions),
      ),
    sync: async (folder, syncOptions) =>
      (await import("./sync/sync.js")).syncFolders({ store: getStore(), processFolder: (folderPath, processOptions) => facade.processFolder(folderPath, processOptions), embed: (embedOptions) => facade.embed(embedOptions) }, folder, syncOptions),
    ...archiveVerbs({ getStore, config, setting, paths, env, machine, chunkingFor, pickLockOptions, withFolderLocks, facade: { setConfig: (key, value) => facade.setConfig(key, value), embed: (embedOptions) => facade.embed(embedOptions) } }),
    watch: async (folders, watchOptions) =>
      (await import("./watch/watch.js")).watchFolders({ store: getStore(), sync: (folder, syncOptions) => facade.sync(folder, syncOptions), privateDirectories: [paths.dataDir, paths.configDir, paths.cacheDir], otherOwner: async (id) => otherOwner(getStore(), id, machine()) }, folders, watchOptions),
    // No model is loaded before the first request that makes the warm embedders.
    warmModels: () => warm?.describe() ?? { models: [], requests: 0 },
    async embedForClient(request) {
      const [embedders, { embedderConfigFor }] = await Promise.all([warmEmbedders(), import("./embed/embedder-setup.js")]);
      return embedders.embed(request, (overrides) => embedderConfigFor(config(), paths, env, overrides));
    },
    async modelHost() {
      const server = useServer ? await findLiveServer(paths.dataDir) : null;
      if (!server) return { runsIn: "process", server: null };
      try {
        const response = await fetch(`${server.url}/api/status`, { headers: { [SESSION_TOKEN_HEADER]: server.token }, signal: AbortSignal.timeout(10_000) }); // alive (findLiveServer); busy, it may take seconds
        const status = (await response.json()) as { warm?: { models: Array<{ model: string; dtype: string | null }>; requests: number }; search?: SearchReadiness };
        return { runsIn: "server", server: { url: server.url, pid: server.pid, loadedModels: status.warm?.models ?? [], requests: status.warm?.requests ?? 0, search: status.search ?? null } };
      } catch {
        return { runsIn: "process", server: null };
      }
    },
    modelStatus: async (request) => (await embedService()).modelStatus(request),
    storeLocation: () => storeLocation(storeOptions()),
    folderOwners: async () => await folderOwnership(getStore(), machine()),
    downloadModel: async (request) => (await embedService()).downloadModel(request),
    async *ask(question, askOptions) {
      yield* (await answers()).ask(question, askOptions);
    },
    async *regenerate(input) {
      yield* (await answers()).regenerate(input);
    },
    startChat: async (chatOptions) => (await answers()).startChat(chatOptions),
    listConversations: async () => (await answers()).listConversations(),
    getConversation: async (id) => (await answers()).getConversation(id),
    deleteConversation: async (id) => (await answers()).deleteConversation(id),
    setApiKey: async (provider, key) => (await answers()).setApiKey(provider, key),
    listApiKeys: async () => (await answers()).listApiKeys(),
    deleteApiKey: async (provider) => (await answers()).deleteApiKey(provider),
    providers: async () => (await answers()).describeProviders(),
    downloadLocalModel: async (downloadOptions) => (await answers()).downloadLocalModel(downloadOptions),
    async clearAllData(resetOptions = {}) {
      const folders = (await getStore().listFolders().catch(() => [])).map((folder) => folder.rootPath);
      return await withFolderLocks(folders, { wait: false, purpose: "deleting all data" }, async () => {
        await facade.close();
        const dependencies = { paths, env };
        const { executeReset, planReset } = await import("./settings/reset.js");
        const report = await executeReset(dependencies, await planReset(dependencies, resetOptions));
        live.forget();
        return report;
      });
    },
    async migrateTo(url, migrateOptions = {}) {
      const from = storeOptions();
      if (backendOf(url) === "sqlite") throw new ChunkpadError("INVALID_ARGUMENT", "migrate copies into a server store: give --to postgres://user@host/database.");
      if (from.url !== undefined && from.url.trim() === url.trim()) throw new ChunkpadError("INVALID_ARGUMENT", "That is the store this Chunkpad already uses: give --to another database.");
      const to: OpenStoresOptions = { ...from, url };
      const target = openStore(to);
      const targetChats = openChats(to);
      const sourceChats = openChats(from);
      try {
        const folders = (await getStore().listFolders()).map((folder) => folder.rootPath);
        // No writer changes the source while it is copied.
        const { migrateStore } = await import("./migrate/migrate-store.js");
        return await withFolderLocks(folders, { wait: false, purpose: "migrating the store" }, () =>
          migrateStore({ source: getStore(), sourceChats, target, targetChats, machine: machine(), ...(migrateOptions.onProgress ? { onProgress: migrateOptions.onProgress } : {}) }),
        );
      } finally {
        await Promise.all([target.close(), targetChats.close(), sourceChats.close()]);
      }
    },
    async close() {
      // Only what was made: nothing else loads its code at close.
      for (const service of [answers, searchService, warmEmbedders]) await (await service.ifMade())?.close();
      await runner?.close();
      runner = undefined;
      await store?.close();
      store = undefined;
    },
  };
  return facade;
}

/**
 * A service whose code loads at its first use (`import()`), made once however many ask at once.
 * `ifMade` gives it without making it: undefined if nobody asked, or if its code failed to load.
 */
function onFirstUse<T>(make: () => Promise<T>): { (): Promise<T>; ifMade: () => Promise<T | undefined> } {
  let loading: Promise<T> | undefined;
  const get = () => (loading ??= make());
  return Object.assign(get, { ifMade: async () => loading?.catch(() => undefined) });
}
