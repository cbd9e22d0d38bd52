import { createRequire } from "node:module";
import { ChunkpadError } from "./errors.js";

/** node-llama-cpp ships one package per platform and GPU backend; Chunkpad runs it on the CPU. */
export function llamaCppPlatformPackage(platform: NodeJS.Platform = process.platform, arch: string = process.arch): string {
  if (platform === "darwin") return `@node-llama-cpp/mac-${arch}${arch === "arm64" ? "-metal" : ""}`;
  if (platform === "win32") return `@node-llama-cpp/win-${arch}`;
  return `@node-llama-cpp/${platform}-${arch}`;
}

export const LLAMA_CPP_VERSION = "3.21.1";
const LLAMA_CPP_PACKAGES = `node-llama-cpp@${LLAMA_CPP_VERSION} ${llamaCppPlatformPackage()}@${LLAMA_CPP_VERSION}`;

/**
 * The optional parts of Chunkpad: npm installs them when it can and leaves them out when their
 * own install step fails (onnxruntime-node's GPU download, a platform node-llama-cpp has no build
 * for), so Chunkpad itself always installs. Each says what it is for and how to get it.
 */
export const OPTIONAL_MODULES = {
  "@huggingface/transformers": {
    feature: "the local embedding and rerank models (ONNX Runtime)",
    howToGet:
      'Install it: "ONNXRUNTIME_NODE_INSTALL=skip npm install -g chunkpad" (in a clone: "npm install"), or embed with Ollama or OpenAI: "chunkpad config set embedding.provider ollama". Keyword search works without it.',
  },
  "node-llama-cpp": {
    feature: "the local Llama model (llama.cpp)",
    howToGet: `Install it beside Chunkpad with only this machine's CPU build: "npm install -g --omit=optional ${LLAMA_CPP_PACKAGES}" (in a clone: "npm install"), or answer with Ollama or a cloud model: "chunkpad config set generation.provider ollama".`,
  },
} as const;

export type OptionalModuleName = keyof typeof OPTIONAL_MODULES;

/** True when the import failed because the package itself is not installed (not a bug inside it). */
function isMissingPackage(error: unknown, specifier: string): boolean {
  const code = (error as NodeJS.ErrnoException | undefined)?.code;
  if (code !== "ERR_MODULE_NOT_FOUND" && code !== "MODULE_NOT_FOUND") return false;
  const message = error instanceof Error ? error.message : "";
  return message.includes(`'${specifier}'`) || message.includes(`"${specifier}"`) || message.includes(`${specifier}/`);
}

function notInstalled(name: OptionalModuleName, cause?: unknown): ChunkpadError {
  const { feature, howToGet } = OPTIONAL_MODULES[name];
  return new ChunkpadError("RUNTIME_NOT_INSTALLED", `${name} is not installed, and ${feature} cannot run without it. ${howToGet}`, {
    ...(cause === undefined ? {} : { cause }),
    details: { package: name },
  });
}

/** True when `specifier` resolves from Chunkpad's own files (nothing is loaded). */
export function isInstalled(specifier: string): boolean {
  try {
    createRequire(import.meta.url).resolve(specifier);
    return true;
  } catch {
    return false;
  }
}

/**
 * Throws RUNTIME_NOT_INSTALLED unless the optional package (and what it cannot run without)
 * resolves: for code that loads it elsewhere, such as in a worker thread.
 */
export function assertInstalled(name: OptionalModuleName, ...alsoNeeded: string[]): void {
  for (const specifier of [name, ...alsoNeeded]) {
    if (!isInstalled(specifier)) throw notInstalled(name);
  }
}

/**
 * Imports an optional package, or throws RUNTIME_NOT_INSTALLED saying what needs it and how to
 * get it. `load` does the import, so bundlers and the type checker still see a literal specifier.
 */
export async function importOptional<T>(name: OptionalModuleName, load: () => Promise<T>, specifier: string = name): Promise<T> {
  try {
    return await load();
  } catch (error) {
    if (!isMissingPackage(error, specifier)) throw error;
    throw notInstalled(name, error);
  }
}
