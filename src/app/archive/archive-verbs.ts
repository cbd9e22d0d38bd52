import path from "node:path";
import type { ChunkingOptions } from "../../core/types.js";
import type { MainStore } from "../../store/index.js";
import type { Chunkpad } from "../chunkpad-api.js";
import type { EmbedReport } from "../embed/embed-selected.js";
import type { ModelIdentity } from "../embed/embedder-setup.js";
import { findAddedFolder, folderNotAdded } from "../folder-lookup.js";
import type { FolderLockOptions } from "../folder-lock.js";
import { checkOwner, claimFolder, type Machine } from "../folder-owner.js";
import { recordFolder } from "../process/folder-registry.js";
import type { ChunkpadConfig } from "../settings/config.js";
import type { ChunkpadPaths } from "../settings/paths.js";
import type { ResolvedSetting } from "../settings/settings.js";

/** What the archive verbs use of the facade that opened them (chunkpad.ts). */
export interface ArchiveVerbsContext {
  getStore: () => MainStore;
  config: () => ChunkpadConfig;
  setting: (key: string) => ResolvedSetting;
  paths: ChunkpadPaths;
  env: NodeJS.ProcessEnv;
  machine: () => Machine;
  chunkingFor: (folderId: string) => Promise<ChunkingOptions>;
  pickLockOptions: (options: FolderLockOptions) => FolderLockOptions;
  withFolderLocks: <T>(folders: readonly string[], options: FolderLockOptions & { purpose: string }, run: () => Promise<T>) => Promise<T>;
  facade: Pick<Chunkpad, "setConfig" | "embed">;
}

/**
 * `exportArchive` and `importArchive`: the archive's own modules (its manifest schema brings zod,
 * which a search never needs) load when one of them is used.
 */
export function archiveVerbs(context: ArchiveVerbsContext): Pick<Chunkpad, "exportArchive" | "importArchive"> {
  const { getStore, config, setting, paths, env, machine, facade } = context;
  return {
    async exportArchive(file, exportOptions = {}) {
      const folderIds: string[] = [];
      for (const spec of exportOptions.folders ?? []) {
        const folder = await findAddedFolder(getStore(), spec);
        if (!folder) throw folderNotAdded(spec, "export");
        folderIds.push(folder.id);
      }
      const { exportArchive } = await import("./export.js");
      return exportArchive({ store: getStore(), chunkingFor: context.chunkingFor }, file, {
        ...(folderIds.length > 0 ? { folderIds } : {}),
        ...(exportOptions.withSources ? { withSources: true } : {}),
        ...(exportOptions.onProgress ? { onProgress: exportOptions.onProgress } : {}),
      });
    },
    async importArchive(file, importOptions = {}) {
      // A user who never chose a model gets the archive's, so its vectors fit; a chosen one is never changed.
      const adoptModel = (embedder: Record<string, unknown>): Array<{ key: string; value: string }> | null => {
        if (embedder.provider !== config().embedding.provider || typeof embedder.model !== "string" || setting("embedding.model").source !== "default") return null;
        const changes = [{ key: "embedding.model", value: embedder.model }];
        if (typeof embedder.dtype === "string" && embedder.dtype !== config().embedding.dtype) {
          if (setting("embedding.dtype").source !== "default") return null;
          changes.push({ key: "embedding.dtype", value: embedder.dtype });
        }
        for (const change of changes) facade.setConfig(change.key, change.value);
        return changes;
      };
      let configuredIdentity: ModelIdentity | null = null;
      const { embedderConfigFor, modelIdentity } = await import("../embed/embedder-setup.js");
      try {
        configuredIdentity = modelIdentity(embedderConfigFor(config(), paths, env));
      } catch {
        // A model spec the config cannot resolve here: the archive's vectors are judged by the database alone.
      }
      const { importArchive } = await import("./import.js");
      const target = importOptions.into === undefined ? [] : [importOptions.into];
      const report = await context.withFolderLocks(target, { ...context.pickLockOptions(importOptions), purpose: "importing" }, () =>
        importArchive({ store: getStore(), configuredIdentity, fallbackChunksRoot: (folderId) => path.join(paths.dataDir, "chunks", folderId), adoptModel, checkOwner: (folder) => checkOwner(getStore(), folder, machine(), "import into") }, file, importOptions),
      );
      // An imported folder is this machine's: its files were just restored here.
      for (const folder of report.folders) await claimFolder(getStore(), folder.folderId, machine());
      for (const folder of report.folders) await recordFolder(paths.dataDir, { rootPath: folder.rootPath, chunksRootPath: (await getStore().getFolder(folder.folderId))?.chunksRootPath ?? folder.rootPath });
      let embedded: EmbedReport | null = null;
      if (importOptions.reembed && report.folders.length > 0) {
        embedded = await facade.embed({
          ...(report.folders.length === 1 ? { folder: report.folders[0]?.folderId } : {}),
          ...(importOptions.consent ? { consent: importOptions.consent } : {}),
          ...(importOptions.onProgress ? { onProgress: importOptions.onProgress } : {}),
          ...context.pickLockOptions(importOptions),
        });
      }
      return { report, embedded };
    },
  };
}
