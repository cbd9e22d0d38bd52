import { createRequire, Module } from "node:module";
import type * as TransformersModule from "@huggingface/transformers";

type Transformers = typeof TransformersModule;

const require = createRequire(import.meta.url);

/** What `sharp` is in a thread that loads only text models: any use says so instead of working. */
function noImages(): never {
  throw new Error("This thread runs text models only: image processing (sharp) is not loaded here.");
}

/**
 * transformers.js for text models, without its image library. The package requires `sharp` as
 * it loads (for image pipelines), and sharp's own loading (libvips, its version checks) costs
 * about 200 ms of CPU: more than half of what importing transformers.js costs, paid at every
 * model load (a one-off vector search, an embed run, a server's start) for nothing a text model
 * uses (issue 22). In this thread's module cache `sharp` is a stand-in, so the package loads
 * without it. Only for worker threads that run text models: the cache is per thread, so other
 * threads and the main process are unaffected.
 */
export function loadTransformersForText(): Transformers {
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
  return require(transformersPath) as Transformers;
}
