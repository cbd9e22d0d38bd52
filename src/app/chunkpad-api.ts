import type { MigrateProgress, MigrateReport } from "./migrate/migrate-store.js";
import type { StoreLocation } from "../store/index.js";
import type { AddedFolder, FolderOwner, Machine } from "./folder-owner.js";
import type { ChunkingOptions, DocumentRecord } from "../core/types.js";
import type { ChunkpadConfig, LoadedSettings } from "./settings/config.js";
import type { ResolvedSetting } from "./settings/settings.js";
import type { ChunkpadPaths } from "./settings/paths.js";
import type { ResetOptions, ResetReport } from "./settings/reset.js";
import type { ConflictChoice, ProcessFolderOptions, ProcessReport } from "./process/process-folder.js";
import type { ChunkTreeReport } from "./review/chunk-tree.js";
import type { ConflictDiff } from "./review/conflict-diff.js";
import type { FolderListing, SavedDocument } from "./files/folder-files.js";
import type { SearchOptions, SearchReport } from "./search/search.js";
import type { QueryEmbedderLoader } from "./search/search-vector.js";
import type { SearchReadiness } from "./search/search-service.js";
import type { EvaluateOptions, EvaluationReport } from "./search/evaluate.js";
import type { CalibrateGuardrailOptions, GuardrailCalibration } from "./answer/calibrate-guardrail.js";
import type { ReviewOptions, ReviewReport } from "./review/review.js";
import type { ChunkState } from "./review/review-states.js";
import type { AnswerService } from "./answer/ask-service.js";
import type { EmbedService } from "./embed/embed-service.js";
import type { EmbedOptions, EmbedReport } from "./embed/embed-selected.js";
import type { SyncOptions, SyncReport } from "./sync/sync.js";
import type { WatchOptions } from "./watch/watch.js";
import type { ExportReport } from "./archive/export.js";
import type { ImportOptions, ImportReport } from "./archive/import.js";
import type { ArchiveProgress } from "./archive/archive-format.js";
import type { DaemonEmbedRequest, DaemonEmbedResponse } from "../embedding/daemon.js";
import type { ChunkWithNeighbours, DocumentRequest, DocumentText, SourceFile } from "./read/read.js";
import type { FolderLockOptions } from "./folder-lock.js";

/** The Chunkpad facade's contract: what every face (CLI, server, MCP) calls; chunkpad.ts wires it. */

export interface OpenChunkpadOptions {
  /** Environment to read CHUNKPAD_HOME and XDG variables from; defaults to process.env. */
  env?: NodeJS.ProcessEnv;
  /** What this process is (add, embed, server…), shown to another process waiting for a folder. */
  command?: string;
  /** Replaces the configured query embedder for search (tests, benchmarks). */
  loadQueryEmbedder?: QueryEmbedderLoader;
  /**
   * Use the model of a running `chunkpad serve` for search, ask and embed when there is one
   * (the CLI does; the server itself does not). Default false: the model loads in this process.
   */
  useServer?: boolean;
  /**
   * Keep the keyword index in memory (decision 031): a process that searches many times (the
   * server, the MCP server) reads it in the background and searches about 3× faster.
   */
  keywordIndexInMemory?: boolean;
  /**
   * Load a local query model in this thread, not in a worker (one-off commands: the CLI but for
   * `serve` and `mcp`). A worker's start costs more CPU than a BERT query model's own load; in
   * this thread the load blocks everything else, which only a process that serves others minds.
   */
  queryModelInThread?: boolean;
}

export interface AddFolderOptions extends ProcessFolderOptions, FolderLockOptions {
  /** Chunk settings for this folder, remembered for later runs. */
  chunking?: Partial<ChunkingOptions>;
  /** Make this machine the folder's owner even though another machine added it (its files must be here). */
  takeOver?: boolean;
}

export interface ModelHost {
  /** "server" when a running `chunkpad serve` embeds for this process. */
  runsIn: "server" | "process";
  server: { url: string; pid: number; loadedModels: Array<{ model: string; dtype: string | null }>; requests: number; search: SearchReadiness | null } | null;
}

export interface Chunkpad {
  readonly paths: ChunkpadPaths;
  readonly config: ChunkpadConfig;
  processFolder(folderPath: string, options?: AddFolderOptions): Promise<ProcessReport>;
  /**
   * Settles one file's conflict between a hand-edited chunk file and a changed source: keep the
   * edit ("keep-mine") or replace it with fresh chunks ("take-fresh"). `filePath` is the source
   * or its chunk file. The folder is processed as usual; only this file is affected by the choice.
   */
  resolveConflict(filePath: string, choice: ConflictChoice, options?: AddFolderOptions): Promise<{ relativePath: string; resolved: boolean; report: ProcessReport }>;
  /**
   * Before a conflict is settled: the user's chunk file of `relativePath` (in the added folder
   * `folderPath`) against the chunks a fresh parse of its source would write, line by line. Writes nothing.
   */
  conflictDiff(folderPath: string, relativePath: string, options?: { password?: string }): Promise<ConflictDiff>;
  /** The added folders with their counts and owners (`ownedElsewhere`: another machine processes it). */
  listFolders(): Promise<AddedFolder[]>;
  /** Copies a document into the top of the added folder with this id (never over an existing file); process the folder to read it. */
  saveDocument(folderId: string, name: string, bytes: Uint8Array): Promise<SavedDocument>;
  /** The folders inside a folder (default: the home folder), for a folder picker. */
  listFolderChoices(folderPath?: string): Promise<FolderListing>;
  /** Documents of every added folder (or of the folder with this id), in path order. */
  listDocuments(folderId?: string): Promise<DocumentRecord[]>;
  /** One chunk by its reference, with up to `neighbours` chunks before and after it in its document. */
  readChunk(ref: string, options?: { neighbours?: number }): Promise<ChunkWithNeighbours>;
  /**
   * Replaces one chunk's text in its chunk file and takes it in (Step 1), as a hand edit would;
   * CHUNK_FILE_CONFLICT when the chunk changed since `baseHash` (the contentHash the editor read).
   */
  editChunk(ref: string, text: string, baseHash: string, options?: FolderLockOptions): Promise<ChunkWithNeighbours>;
  /** A document's text (all of it, or the chunks on the pages asked for), by id, path or name. */
  readDocument(request: DocumentRequest): Promise<DocumentText>;
  /** The original file of an indexed document (by id or path), checked to be inside its added folder. */
  sourceFile(document: string): Promise<SourceFile>;
  /** Forgets an added folder: its documents, chunks, vectors and review state; `_chunks/` stays unless asked. */
  removeFolder(folderPath: string, options?: { deleteChunkFiles?: boolean } & FolderLockOptions): Promise<{ rootPath: string; chunksRootPath: string; chunkFilesDeleted: boolean }>;
  chunkTree(folderPath: string): Promise<ChunkTreeReport>;
  /** Every setting with its effective value and source (flag > env > config > default); never throws for a bad value, it is reported in `problem`. */
  settings(): LoadedSettings;
  /** One setting's effective value and source. */
  setting(key: string): ResolvedSetting;
  /** Writes one key to the config file (validated; only that key); returns its effective value afterwards. */
  setConfig(key: string, value: string): ResolvedSetting;
  /** Removes one key from the config file; returns its effective value afterwards (null for an unknown key removed). */
  unsetConfig(key: string): ResolvedSetting | null;
  /** Keyword, vector or hybrid search; never downloads a model (falls back to keyword with a notice). */
  search(query: string, options?: SearchOptions): Promise<SearchReport>;
  /**
   * For a server: gets search ready before the first request (the keyword index in memory starts
   * reading; with vectors, the query model and the vector index load). Never downloads.
   */
  warmSearch(): Promise<SearchReadiness>;
  /** Whether searches in this process run at full speed yet, and what is still loading. */
  searchReadiness(): Promise<SearchReadiness>;
  /** Includes (true) or excludes chunks by ref, source file, folder of sources or glob. */
  setIncluded(targets: readonly string[], included: boolean, options?: ReviewOptions): Promise<ReviewReport>;
  /** Per chunk of an added folder: included or excluded, embedded, modified since embedding, new. */
  chunkStates(folderPath: string, relativePath?: string): Promise<ChunkState[]>;
  /** Step 2: embeds included chunks that are new or changed, removes vectors of excluded ones; downloads the model only with consent. */
  embed(options?: EmbedOptions & FolderLockOptions): Promise<EmbedReport>;
  /** Brings one added folder (or all) up to date: processes what changed, and embeds it where the folder has vectors (or `embed` asks). */
  sync(folder?: string, options?: SyncOptions): Promise<SyncReport>;
  /** Writes added folders (all, or those named) to one portable archive: chunks, review state, chunk files, vectors, and the sources when asked. */
  exportArchive(file: string, options?: { folders?: readonly string[]; withSources?: boolean; onProgress?: (progress: ArchiveProgress) => void }): Promise<ExportReport>;
  /** Restores an archive into this machine's store (and its folders' `_chunks/`); `reembed` embeds its chunks with the configured model instead of taking its vectors. */
  importArchive(file: string, options?: ImportOptions & Pick<EmbedOptions, "consent" | "onProgress"> & FolderLockOptions): Promise<{ report: ImportReport; embedded: EmbedReport | null }>;
  /** Keeps added folders (all, or those named) in sync with their files until `signal` aborts: a full sync on start, then one per burst of changes. */
  watch(folders: readonly string[], options?: WatchOptions): Promise<void>;
  /**
   * For `chunkpad serve`: embeds texts with a model kept loaded between requests (the warm
   * daemon other processes use); `model` and `dtype` as the client resolved them.
   */
  embedForClient(request: DaemonEmbedRequest): Promise<DaemonEmbedResponse>;
  /** The models this process keeps loaded for other processes (embedForClient), and requests served. */
  warmModels(): { models: Array<{ model: string; dtype: string | null }>; requests: number };
  /** Where the embedding model runs for this process: in a running server (and what it has loaded), or here. */
  modelHost(): Promise<ModelHost>;
  /** The embedding model's state from files alone (never downloads or loads). */
  modelStatus(request?: Parameters<EmbedService["modelStatus"]>[0]): Promise<ReturnType<EmbedService["modelStatus"]>>;
  /** Which store backend this Chunkpad uses and where (a file, or a PostgreSQL URL without its password). */
  storeLocation(): Promise<StoreLocation>;
  /** This machine, and each folder's owner (null: none recorded); a folder belongs to the machine that added it. */
  folderOwners(): Promise<{ machine: Machine; owners: Record<string, FolderOwner | null> }>;
  /** Downloads the embedding model after consent. */
  downloadModel: EmbedService["downloadModel"];
  /** Runs BEIR-style queries through search per mode and scores them against qrels. */
  evaluate(options: EvaluateOptions): Promise<EvaluationReport>;
  /** The guardrail floor (generation.minSimilarity) that refuses at most a given share of questions the documents answer; writes nothing. */
  calibrateGuardrail(options: CalibrateGuardrailOptions): Promise<GuardrailCalibration>;
  /** Searches, then streams a grounded answer with [C#] citations (or refuses below the floor). */
  ask: AnswerService["ask"];
  /** Answers a question again from chunks already found, with the user's toggles (isIncluded); no new search. */
  regenerate: AnswerService["regenerate"];
  /** An interactive chat: follow-up questions, chunk toggles, regenerate without a new search. */
  startChat: AnswerService["startChat"];
  listConversations: AnswerService["listConversations"];
  getConversation: AnswerService["getConversation"];
  deleteConversation: AnswerService["deleteConversation"];
  setApiKey: AnswerService["setApiKey"];
  listApiKeys: AnswerService["listApiKeys"];
  deleteApiKey: AnswerService["deleteApiKey"];
  providers: AnswerService["describeProviders"];
  /** Downloads the local answer model ahead of a question, after consent (the app's Settings). */
  downloadLocalModel: AnswerService["downloadLocalModel"];
  /**
   * Deletes Chunkpad's data as `chunkpad reset` does (database, chat history, settings, folder
   * list; models, keys and chunk files when asked) from a running process: it waits for no
   * folder's lock (FOLDER_BUSY when one is held), closes everything, deletes, and opens afresh on
   * the next call. Documents are never touched.
   */
  clearAllData(options?: ResetOptions): Promise<ResetReport>;
  /**
   * Copies this store (folders, documents, chunks, review decisions, vectors, conversations) into
   * an empty one at `url` (postgres://…), holding every folder's lease meanwhile, and counts both sides.
   */
  migrateTo(url: string, options?: { onProgress?: (progress: MigrateProgress) => void }): Promise<MigrateReport>;
  close(): Promise<void>;
}
