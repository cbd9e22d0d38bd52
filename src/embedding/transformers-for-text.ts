import fs from "node:fs";
import { createRequire, Module } from "node:module";
import path from "node:path";
import vm from "node:vm";
import type * as TransformersModule from "@huggingface/transformers";

type Transformers = typeof TransformersModule;

const require = createRequire(import.meta.url);

/** transformers.js for text models, and a way to keep its compiled code for the next load. */
export interface TextTransformers {
  transformers: Transformers;
  /**
   * Writes V8's code for transformers.js (what has been compiled so far: call it once the model
   * has run) to the code cache directory, when there was none or V8 refused it. Never throws: a
   * cache that cannot be written only means the next load compiles again.
   */
  saveCodeCache(): void;
}

/** What `sharp` is in a thread that loads only text models: any use says so instead of working. */
function noImages(): never {
  throw new Error("This thread runs text models only: image processing (sharp) is not loaded here.");
}

/**
 * The part of the web `Headers` that transformers.js uses on files it reads from disk (it gives
 * each one a `Headers` for its length and type). Node 20 loads undici, fetch's implementation,
 * at the first use of `Headers`: about 30 ms of CPU in a thread that never fetches (the model's
 * files are on disk; the worker forbids remote models).
 */
class LocalFileHeaders extends Map<string, string> {
  constructor(init?: Iterable<readonly [string, string]> | Record<string, string>) {
    super();
    if (init === undefined) return;
    for (const [name, value] of Symbol.iterator in init ? (init as Iterable<readonly [string, string]>) : Object.entries(init)) this.set(name, value);
  }
  override get(name: string): string | undefined {
    return super.get(name.toLowerCase());
  }
  override has(name: string): boolean {
    return super.has(name.toLowerCase());
  }
  override set(name: string, value: string): this {
    return super.set(name.toLowerCase(), String(value));
  }
  override delete(name: string): boolean {
    return super.delete(name.toLowerCase());
  }
  append(name: string, value: string): void {
    const before = this.get(name);
    this.set(name, before === undefined ? value : `${before}, ${value}`);
  }
}

/** The cache file for this build of transformers.js under this Node (V8 refuses any other anyway). */
function codeCacheFile(directory: string, source: string, transformersPath: string): string {
  let version = "unknown";
  try {
    version = (JSON.parse(fs.readFileSync(path.join(path.dirname(transformersPath), "..", "package.json"), "utf8")) as { version?: string }).version ?? version;
  } catch {
    // A package without its manifest: the source length still tells builds apart.
  }
  return path.join(directory, `transformers-${version}-${source.length}-node${process.version}-${process.arch}.v8`);
}

/**
 * Runs transformers.js's CommonJS file as `require` would, but compiled with V8's code cache
 * from `cacheFile` when there is one: compiling the 1.4 MB bundle and the functions a model load
 * and a first run use is about a third of the package's loading (issue 22: a one-off vector
 * search loads the query model in its process). V8 checks the cache against the source and its
 * own version and flags, and compiles afresh when it does not fit.
 */
function requireWithCodeCache(transformersPath: string, directory: string): TextTransformers {
  const source = fs.readFileSync(transformersPath, "utf8");
  const cacheFile = codeCacheFile(directory, source, transformersPath);
  let cachedData: Buffer | undefined;
  try {
    cachedData = fs.readFileSync(cacheFile);
  } catch {
    // None yet: this load writes it.
  }
  const script = new vm.Script(Module.wrap(source), {
    filename: transformersPath,
    ...(cachedData === undefined ? {} : { cachedData }),
    // The bundle's import() (onnxruntime-web's proxy worker, unused with onnxruntime-node) resolves as in any module.
    importModuleDynamically: vm.constants.USE_MAIN_CONTEXT_DEFAULT_LOADER,
  });
  const module = new Module(transformersPath);
  module.filename = transformersPath;
  require.cache[transformersPath] = module;
  const wrapper = script.runInThisContext() as (exports: unknown, require: NodeJS.Require, module: Module, filename: string, dirname: string) => void;
  try {
    wrapper.call(module.exports, module.exports, createRequire(transformersPath), module, transformersPath, path.dirname(transformersPath));
  } catch (error) {
    delete require.cache[transformersPath];
    throw error;
  }
  module.loaded = true;
  const needsWriting = cachedData === undefined || script.cachedDataRejected === true;
  return {
    transformers: module.exports as Transformers,
    saveCodeCache() {
      if (!needsWriting) return;
      const temporary = `${cacheFile}.${process.pid}.${Date.now()}.tmp`;
      try {
        fs.mkdirSync(directory, { recursive: true });
        fs.writeFileSync(temporary, script.createCachedData());
        fs.renameSync(temporary, cacheFile);
      } catch {
        try {
          fs.rmSync(temporary, { force: true });
        } catch {
          // No folder to write in: nothing was left behind.
        }
      }
    },
  };
}

/**
 * transformers.js for text models, without its image library. The package requires `sharp` as
 * it loads (for image pipelines), and sharp's own loading (libvips, its version checks) costs
 * about 200 ms of CPU: more than half of what importing transformers.js costs, paid at every
 * model load (a one-off vector search, an embed run, a server's start) for nothing a text model
 * uses (issue 22). In this thread's module cache `sharp` is a stand-in, so the package loads
 * without it, and `Headers` is a local stand-in (see LocalFileHeaders). With `codeCacheDirectory`
 * the package is compiled from V8's code cache kept there. Only for worker threads that run text
 * models from disk: the module cache and globals are per thread, so other threads and the main
 * process are unaffected.
 */
export function loadTransformersForText(codeCacheDirectory?: string): TextTransformers {
  const transformersPath = require.resolve("@huggingface/transformers");
  let sharpPath: string | undefined;
  try {
    sharpPath = createRequire(transformersPath).resolve("sharp");
  } catch {
    // Not installed: transformers.js reports that itself when it loads.
  }
  if (sharpPath !== undefined && require.cache[sharpPath] === undefined) {
    const standIn = new Module(sharpPath);
    standIn.filename = sharpPath;
    standIn.loaded = true;
    standIn.exports = noImages;
    require.cache[sharpPath] = standIn;
  }
  Object.defineProperty(globalThis, "Headers", { value: LocalFileHeaders, writable: true, configurable: true, enumerable: false });
  if (codeCacheDirectory === undefined || require.cache[transformersPath] !== undefined) {
    return { transformers: require(transformersPath) as Transformers, saveCodeCache: () => undefined };
  }
  return requireWithCodeCache(transformersPath, codeCacheDirectory);
}
