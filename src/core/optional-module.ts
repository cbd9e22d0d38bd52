import type { NextStep } from "./next-step.js";
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
/** The version the local embedder is built and tested against (a dev dependency of the clone). */
export const TRANSFORMERS_VERSION = "4.3.1";

/**
 * The optional parts of Chunkpad: not installed with the package, so `npm install -g chunkpad`
 * runs no install step that fetches anything from outside npm (onnxruntime-node's would fetch
 * CUDA libraries on Linux x64) and carries no GPU builds of llama.cpp. A clone has them (dev
 * dependencies). Each says what it is for and how to add it beside Chunkpad, where Node finds it.
 */
export const OPTIONAL_MODULES = {
  "@huggingface/transformers": {
    feature: "the local embedding and rerank models (ONNX Runtime)",
    // The flag is onnxruntime-node's own: skip its CUDA download (GPU users: =cuda12).
    howToGet: `Install it beside Chunkpad, without the GPU libraries: "npm install -g --onnxruntime-node-install=skip @huggingface/transformers@${TRANSFORMERS_VERSION}" (in a clone: "npm install"), or embed with Ollama or OpenAI. Keyword search works without it.`,
    instead: [{ action: "change-setting", key: "embedding.provider", value: "ollama" }] as NextStep[],
  },
  "node-llama-cpp": {
    feature: "the local Llama model (llama.cpp)",
    howToGet: `Install it beside Chunkpad with only this machine's CPU build: "npm install -g --omit=optional ${LLAMA_CPP_PACKAGES}" (in a clone: "npm install"), or answer with Ollama or a cloud model.`,
    instead: [{ action: "choose-provider" }] as NextStep[],
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
  const { feature, howToGet, instead } = OPTIONAL_MODULES[name];
  return new ChunkpadError("RUNTIME_NOT_INSTALLED", `${name} is not installed, and ${feature} cannot run without it. ${howToGet}`, {
    ...(cause === undefined ? {} : { cause }),
    details: { package: name },
    nextSteps: [...instead],
  });
}

/** Where `specifier` resolves from `from` (a file URL or path), or null; nothing is loaded. */
function resolveFrom(specifier: string, from: string): string | null {
  try {
    return createRequire(from).resolve(specifier);
  } catch {
    return null;
  }
}

/** True when `specifier` resolves from Chunkpad's own files (nothing is loaded). */
export function isInstalled(specifier: string): boolean {
  return resolveFrom(specifier, import.meta.url) !== null;
}

/**
 * Throws RUNTIME_NOT_INSTALLED unless the optional package resolves, and what it cannot run
 * without resolves from it (installed beside a global Chunkpad, its own dependencies sit in its
 * own node_modules): for code that loads it elsewhere, such as in a worker thread.
 */
export function assertInstalled(name: OptionalModuleName, ...alsoNeeded: string[]): void {
  const entry = resolveFrom(name, import.meta.url);
  if (entry === null) throw notInstalled(name);
  for (const specifier of alsoNeeded) {
    if (resolveFrom(specifier, import.meta.url) === null && resolveFrom(specifier, entry) === null) throw notInstalled(name);
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
