import fs from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { isChunkpadError } from "./errors.js";
import { LLAMA_CPP_VERSION, TRANSFORMERS_VERSION, assertInstalled, importOptional, isInstalled, llamaCppPlatformPackage } from "./optional-module.js";

describe("optional parts of Chunkpad", () => {
  it("says an optional package is missing, what needs it and how to get it, when its import finds no package", async () => {
    const missing = "chunkpad-no-such-package";
    const failure = await importOptional("node-llama-cpp", () => import(missing), missing).then(
      () => null,
      (error: unknown) => error,
    );
    expect(isChunkpadError(failure, "RUNTIME_NOT_INSTALLED")).toBe(true);
    const message = (failure as Error).message;
    expect(message).toContain("node-llama-cpp is not installed, and the local Llama model (llama.cpp) cannot run without it.");
    expect(message).toMatch(/npm install -g --omit=optional node-llama-cpp@\S+ @node-llama-cpp\/\S+/);
    expect(message).toContain("or answer with Ollama or a cloud model");
  });

  it("passes on other failures of the import as they are", async () => {
    const broken = new Error("the library's own bug");
    await expect(importOptional("node-llama-cpp", () => Promise.reject(broken))).rejects.toBe(broken);
  });

  it("checks what resolves without loading it", () => {
    expect(isInstalled("chunkpad-no-such-package")).toBe(false);
    expect(isInstalled("@photostructure/sqlite")).toBe(true);
    expect(() => assertInstalled("@huggingface/transformers", "chunkpad-no-such-package")).toThrow(/not installed, and the local embedding .*"npm install -g --onnxruntime-node-install=skip @huggingface\/transformers@\d+\.\d+\.\d+".*embed with Ollama or OpenAI/s);
  });

  it("tells users to add the very versions the clone installs and tests", () => {
    const manifest = JSON.parse(fs.readFileSync(path.join(import.meta.dirname, "..", "..", "package.json"), "utf8")) as { devDependencies: Record<string, string> };
    expect(manifest.devDependencies["@huggingface/transformers"]).toBe(TRANSFORMERS_VERSION);
    expect(manifest.devDependencies["node-llama-cpp"]).toBe(LLAMA_CPP_VERSION);
  });

  it("names only the CPU build of llama.cpp for this platform", () => {
    expect(llamaCppPlatformPackage("linux", "x64")).toBe("@node-llama-cpp/linux-x64");
    expect(llamaCppPlatformPackage("darwin", "arm64")).toBe("@node-llama-cpp/mac-arm64-metal");
    expect(llamaCppPlatformPackage("win32", "x64")).toBe("@node-llama-cpp/win-x64");
  });
});
