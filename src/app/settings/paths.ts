import os from "node:os";
import path from "node:path";

/** Where Chunkpad keeps its state. Everything moves together under CHUNKPAD_HOME. */
export interface ChunkpadPaths {
  dataDir: string;
  configDir: string;
  cacheDir: string;
  /** Downloaded models, in the hub's layout: {modelsDir}/{repoId}/... */
  modelsDir: string;
  databasePath: string;
  chatDatabasePath: string;
  configPath: string;
}

export interface PathEnvironment {
  env?: NodeJS.ProcessEnv;
  platform?: NodeJS.Platform;
  homedir?: string;
}

export function resolvePaths({ env = process.env, platform = process.platform, homedir = os.homedir() }: PathEnvironment = {}): ChunkpadPaths {
  const home = env.CHUNKPAD_HOME;
  if (home) {
    const root = path.resolve(home);
    return withFiles({ dataDir: path.join(root, "data"), configDir: path.join(root, "config"), cacheDir: path.join(root, "cache") });
  }
  if (platform === "darwin") {
    const support = path.join(homedir, "Library", "Application Support", "Chunkpad");
    return withFiles({ dataDir: support, configDir: support, cacheDir: path.join(homedir, "Library", "Caches", "Chunkpad") });
  }
  if (platform === "win32") {
    const roaming = env.APPDATA ?? path.join(homedir, "AppData", "Roaming");
    const local = env.LOCALAPPDATA ?? path.join(homedir, "AppData", "Local");
    return withFiles({ dataDir: path.join(local, "Chunkpad", "Data"), configDir: path.join(roaming, "Chunkpad"), cacheDir: path.join(local, "Chunkpad", "Cache") });
  }
  // Linux and other Unix: the XDG base directories.
  const xdg = (name: string, fallback: string) => env[name] || path.join(homedir, fallback);
  return withFiles({
    dataDir: path.join(xdg("XDG_DATA_HOME", ".local/share"), "chunkpad"),
    configDir: path.join(xdg("XDG_CONFIG_HOME", ".config"), "chunkpad"),
    cacheDir: path.join(xdg("XDG_CACHE_HOME", ".cache"), "chunkpad"),
  });
}

function withFiles(dirs: { dataDir: string; configDir: string; cacheDir: string }): ChunkpadPaths {
  return {
    ...dirs,
    modelsDir: path.join(dirs.cacheDir, "models"),
    databasePath: path.join(dirs.dataDir, "chunkpad.db"),
    chatDatabasePath: path.join(dirs.dataDir, "chunkpad_chat.db"),
    configPath: path.join(dirs.configDir, "config.json"),
  };
}
