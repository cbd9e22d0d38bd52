import fs from "node:fs";
import path from "node:path";
import { describeError } from "../../core/errors.js";
import { createSecretStore, SECRET_PROVIDERS, type SecretProvider } from "../../llm/index.js";
import { backendOf, openChats, openStore, salvageFolders, sqliteStoreFiles, storeLocation, type OpenStoresOptions } from "../../store/index.js";
import { folderRegistryPath, readFolderRegistry } from "../process/folder-registry.js";
import { resolvePaths, type ChunkpadPaths } from "./paths.js";

/**
 * `chunkpad reset`: deletes Chunkpad's own data — databases, chat history, config, and on
 * request the model cache, stored keys and the chunk files — and never the user's documents.
 * It reads nothing it could fail on (no config, no migrations), so it works on a damaged
 * database. First a plan (what exists and would go), then, after the user agrees, the deletion.
 */

export interface ResetOptions {
  /** Also the downloaded embedding and LLM models. */
  models?: boolean;
  /** Also the stored API keys (OS keychain and key file). */
  keys?: boolean;
  /** Also every added folder's `_chunks/` directory, hand edits included. */
  chunkFiles?: boolean;
}

export type ResetItemKind = "database" | "chat-history" | "config" | "folder-list" | "models" | "key-file" | "keychain" | "chunk-files";

export interface ResetItem {
  kind: ResetItemKind;
  /** A path, or "OS keychain: openai" for a keychain entry. */
  target: string;
  /** For a keychain entry: whose key. */
  provider?: SecretProvider;
}

export interface ResetPlan {
  items: ResetItem[];
  /** Things reset will not or cannot do, in words: keys set in the environment, chunk folders it cannot know. */
  notes: string[];
}

export interface ResetReport {
  deleted: ResetItem[];
  failed: Array<ResetItem & { reason: string }>;
  notes: string[];
}

export interface ResetDependencies {
  paths: ChunkpadPaths;
  env: NodeJS.ProcessEnv;
}

/** Paths from the environment alone (CHUNKPAD_HOME, XDG...), without opening anything. */
export function resetDependencies(env: NodeJS.ProcessEnv = process.env): ResetDependencies {
  return { paths: resolvePaths({ env }), env };
}

/** A shared PostgreSQL store named by CHUNKPAD_DATABASE_URL: reset empties it through the store (destroy). */
function serverStore(paths: ChunkpadPaths, env: NodeJS.ProcessEnv): OpenStoresOptions | undefined {
  const url = env.CHUNKPAD_DATABASE_URL;
  if (url === undefined || backendOf(url) === "sqlite") return undefined;
  return { url, sqlite: { databasePath: paths.databasePath, chatDatabasePath: paths.chatDatabasePath, lockDirectory: path.join(paths.dataDir, "locks") }, command: "chunkpad reset" };
}

export async function planReset({ paths, env }: ResetDependencies, options: ResetOptions = {}): Promise<ResetPlan> {
  const items: ResetItem[] = [];
  const notes: string[] = [];
  const existing = (kind: ResetItemKind, target: string) => {
    if (fs.existsSync(target)) items.push({ kind, target });
  };
  const server = serverStore(paths, env);
  if (server) {
    const { location } = await storeLocation(server);
    // Conversations first: destroying the main store drops every table Chunkpad made there.
    items.push({ kind: "chat-history", target: `${location} (conversations)` }, { kind: "database", target: location });
    notes.push(`The shared database at ${location} is emptied for every Chunkpad that uses it.`);
  }
  // Which files a SQLite store keeps (journals, the vector index beside it) is the store's knowledge.
  for (const file of sqliteStoreFiles(paths.databasePath)) existing("database", file);
  for (const file of sqliteStoreFiles(paths.chatDatabasePath)) existing("chat-history", file);
  existing("config", paths.configPath);
  existing("folder-list", folderRegistryPath(paths.dataDir));

  if (options.chunkFiles) {
    const { folders, problem } = knownFolders(paths);
    for (const folder of folders) {
      if (isChunkDirectory(folder.chunksRootPath, paths)) existing("chunk-files", folder.chunksRootPath);
      else notes.push(`${folder.chunksRootPath} is not a _chunks folder, so it is left alone.`);
    }
    if (problem) notes.push(problem);
  }
  if (options.models) existing("models", paths.modelsDir);
  if (options.keys) {
    // The file first: it goes as a whole, even when damaged, before the keychain entries.
    existing("key-file", path.join(paths.configDir, "secrets.json"));
    const secrets = secretStore(paths, env);
    for (const provider of SECRET_PROVIDERS) {
      const description = await secrets.describe(provider).catch(() => undefined);
      if (description?.source === "keychain") items.push({ kind: "keychain", target: `OS keychain: ${provider}`, provider });
      if (description?.source === "environment") notes.push(`The ${provider} key in ${description.location} stays: unset it in your shell.`);
    }
  }
  return { items, notes };
}

export async function executeReset({ paths, env }: ResetDependencies, plan: ResetPlan): Promise<ResetReport> {
  const report: ResetReport = { deleted: [], failed: [], notes: [...plan.notes] };
  const secrets = secretStore(paths, env);
  for (const item of plan.items) {
    try {
      const server = serverStore(paths, env);
      if (item.provider) await secrets.delete(item.provider);
      else if (server && item.kind === "database" && item.target === (await storeLocation(server)).location) await openStore(server).destroy();
      else if (server && item.kind === "chat-history" && item.target.endsWith(" (conversations)")) await openChats(server).destroy();
      else await fs.promises.rm(item.target, { recursive: true, force: true });
      report.deleted.push(item);
    } catch (error) {
      report.failed.push({ ...item, reason: describeError(error) });
    }
  }
  // Chunkpad's own folders go too when nothing else is left in them.
  for (const directory of new Set([paths.dataDir, paths.configDir])) removeIfEmpty(directory);
  return report;
}

function knownFolders(paths: ChunkpadPaths): { folders: { chunksRootPath: string }[]; problem?: string } {
  const registered = readFolderRegistry(paths.dataDir);
  const salvaged = fs.existsSync(paths.databasePath) ? salvageFolders(paths.databasePath) : { folders: [] };
  const folders = [...registered, ...("folders" in salvaged ? salvaged.folders : [])];
  const unique = [...new Map(folders.map((folder) => [folder.chunksRootPath, folder])).values()];
  const problem =
    "problem" in salvaged
      ? `The database cannot be read (${salvaged.problem}); the _chunks folders come from ${folderRegistryPath(paths.dataDir)} only` +
        `${registered.length === 0 ? ", which is missing: delete the _chunks folders of your added folders yourself" : ""}.`
      : undefined;
  return problem === undefined ? { folders: unique } : { folders: unique, problem };
}

/** Only a folder named _chunks, or one inside Chunkpad's data folder, is Chunkpad's to delete. */
function isChunkDirectory(directory: string, paths: ChunkpadPaths): boolean {
  const inside = path.relative(paths.dataDir, directory);
  return path.basename(directory) === "_chunks" || (inside !== "" && !inside.startsWith("..") && !path.isAbsolute(inside));
}

function secretStore(paths: ChunkpadPaths, env: NodeJS.ProcessEnv) {
  const keychainOff = env.CHUNKPAD_KEYCHAIN?.toLowerCase() === "off";
  return createSecretStore({ configDir: paths.configDir, env, ...(keychainOff ? { keyring: null } : {}) });
}

function removeIfEmpty(directory: string): void {
  try {
    fs.rmdirSync(directory);
  } catch {
    // Not empty (other files, a chunk folder kept) or already gone.
  }
}
