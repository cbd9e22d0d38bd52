import type { ChunkingOptions, Embedder } from "../../core/types.js";
import type { CreateEmbedderOptions, EmbedderConfig } from "../../embedding/registry.js";
import type { MainStore } from "../../store/index.js";
import type { ChunkpadConfig } from "../settings/config.js";
import { embedderConfigFor } from "./embedder-setup.js";
import { describeModel, downloadModel, type DownloadModelOptions, type ModelReport, type ModelRequest } from "./embed-model.js";
import type { SyncFolder } from "./embed-folders.js";
import { embedSelected, type EmbedOptions, type EmbedReport } from "./embed-selected.js";
import type { ChunkpadPaths } from "../settings/paths.js";
import type { FolderOwner } from "../folder-owner.js";

/** Embedding and the model, for one open Chunkpad (the facade wires its store, config and Step 1 in). */

export interface EmbedServiceOptions {
  getStore: () => MainStore;
  getConfig: () => ChunkpadConfig;
  paths: ChunkpadPaths;
  env: NodeJS.ProcessEnv;
  /** Step 1 for an added folder (takes hand edits of chunk files in). */
  syncFolder: SyncFolder;
  chunkingFor: (folderId: string) => Promise<ChunkingOptions>;
  /** Saves a config key; `embed --model` remembers the model so search uses the same one. */
  setConfig: (key: string, value: string) => void;
  /** The owner of a folder when it is another machine (which alone embeds it). */
  otherOwner?: (folderId: string) => Promise<FolderOwner | null>;
  /** Replaces the registry (tests). */
  createEmbedder?: (config: EmbedderConfig, options: CreateEmbedderOptions) => Promise<Embedder>;
}

export interface EmbedService {
  embed(options?: EmbedOptions): Promise<EmbedReport>;
  /** The configured (or named) model's state from files alone: never downloads, never loads. */
  modelStatus(request?: ModelRequest): ModelReport;
  /** Downloads the model after consent, so the first embed need not. */
  downloadModel(request?: ModelRequest & DownloadModelOptions): Promise<ModelReport>;
}

export function createEmbedService(options: EmbedServiceOptions): EmbedService {
  const configFor = (request: ModelRequest = {}) =>
    embedderConfigFor(options.getConfig(), options.paths, options.env, {
      ...(request.model === undefined ? {} : { model: request.model }),
      ...(request.dtype === undefined ? {} : { dtype: request.dtype }),
    });
  return {
    embed: (embedOptions = {}) =>
      embedSelected(
        {
          store: options.getStore(),
          config: options.getConfig(),
          paths: options.paths,
          env: options.env,
          syncFolder: options.syncFolder,
          chunkingFor: options.chunkingFor,
          rememberConfig: options.setConfig,
          ...(options.createEmbedder === undefined ? {} : { createEmbedder: options.createEmbedder }),
          ...(options.otherOwner === undefined ? {} : { otherOwner: options.otherOwner }),
        },
        embedOptions,
      ),
    modelStatus: (request) => describeModel(configFor(request)),
    downloadModel: ({ model, dtype, ...download } = {}) =>
      downloadModel(configFor({ ...(model === undefined ? {} : { model }), ...(dtype === undefined ? {} : { dtype }) }), download),
  };
}
