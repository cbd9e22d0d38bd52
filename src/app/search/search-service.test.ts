import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import type { Embedder } from "../../core/types.js";
import { embeddingFingerprint } from "../../embedding/fingerprint.js";
import { openMainStore, type MainStore } from "../../store/index.js";
import { defaultConfig } from "../settings/config.js";
import { resolvePaths } from "../settings/paths.js";
import { createSearchService } from "./search-service.js";

const cleanups: Array<() => void> = [];
afterEach(() => {
  for (const cleanup of cleanups.splice(0).reverse()) cleanup();
});

/** A real store whose hasVectors() answers only when the test releases it, and says there are vectors. */
function storeWithSlowVectorCheck(): { store: MainStore; release: () => void } {
  const home = fs.mkdtempSync(path.join(os.tmpdir(), "chunkpad-search-service-"));
  const real = openMainStore({ path: path.join(home, "chunkpad.db") });
  cleanups.push(() => {
    void real.close();
    fs.rmSync(home, { recursive: true, force: true });
  });
  let release!: () => void;
  const gate = new Promise<void>((resolve) => (release = resolve));
  const store = new Proxy(real, {
    get(target, key) {
      if (key === "vectorAvailable") return true;
      if (key === "hasVectors") return async () => {
        await gate;
        return true;
      };
      const value: unknown = Reflect.get(target, key, target);
      return typeof value === "function" ? (value as (...args: unknown[]) => unknown).bind(target) : value;
    },
  });
  return { store, release };
}

describe("search service lifecycle", () => {
  it("a warm-up still running when the service closes never leaves a query model loaded", async () => {
    // A server stopped during its warm-up kept a model worker alive, so the process never exited.
    const { store, release } = storeWithSlowVectorCheck();
    const env = { CHUNKPAD_HOME: path.join(os.tmpdir(), "chunkpad-search-service-home") };
    let loaded = 0;
    let closed = 0;
    const service = createSearchService({
      getStore: () => store,
      getConfig: () => defaultConfig(),
      paths: resolvePaths({ env }),
      env,
      createEmbedder: async (): Promise<Embedder> => {
        loaded += 1;
        return {
          dimensions: 2,
          maxTokens: 512,
          fingerprint: embeddingFingerprint({ provider: "local", model: "m", dtype: "fp32", pooling: "mean", normalize: true, queryPrefix: "", documentPrefix: "", maxTokens: 512 }),
          embedDocuments: async (texts) => texts.map(() => new Float32Array([1, 0])),
          embedQuery: async () => new Float32Array([1, 0]),
          close: async () => {
            closed += 1;
          },
        };
      },
    });
    const warming = service.warmUp();
    await service.close();
    release();
    const readiness = await warming;
    expect(readiness.vectors).toBe("keyword-only");
    expect(loaded - closed).toBe(0);
  });
});
