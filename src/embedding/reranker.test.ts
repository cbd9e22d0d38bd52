import path from "node:path";
import { describe, expect, it } from "vitest";
import { createReranker } from "./reranker.js";

const FIXTURE = path.resolve("test/fixtures/models/tiny-cross-encoder");

describe("createReranker with the fixture cross-encoder", () => {
  it("scores question-passage pairs deterministically, the same alone as in a batch", async () => {
    const reranker = await createReranker({ model: FIXTURE, dtype: "fp32", cacheDir: "/nonexistent", hubUrl: "http://127.0.0.1:9" });
    try {
      const passages = ["The heron waits by the river.", "Owls hunt at night.", "Tax forms are due in April."];
      const batch = await reranker.score("where do herons wait", passages);
      expect(batch).toHaveLength(3);
      expect(new Set(batch.map((score) => score.toFixed(3))).size).toBe(3);
      const alone = await reranker.score("where do herons wait", [passages[1] as string]);
      expect(alone[0]).toBeCloseTo(batch[1] as number, 3);
      expect(await reranker.score("where do herons wait", [])).toEqual([]);
      expect(reranker.model).toBe(FIXTURE);
    } finally {
      await reranker.close();
    }
  });

  it("never downloads on its own: a hub model that is not cached says how to get it", async () => {
    await expect(createReranker({ model: "bge-reranker-base", dtype: "q8", cacheDir: "/nonexistent-cache", hubUrl: "http://127.0.0.1:9" })).rejects.toMatchObject({
      code: "MODEL_NOT_DOWNLOADED",
      message: expect.stringMatching(/rerank model .*not downloaded/s),
      nextSteps: [{ action: "download-model", model: "rerank" }, { action: "change-setting", key: "search.rerank", value: "off" }],
    });
  });
});
