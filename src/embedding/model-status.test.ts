import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import { describe, expect, it } from "vitest";
import type { ModelStatus } from "../core/types.js";
import { createModelStatusTracker, getModelStatus } from "./model-status.js";

describe("the model status tracker", () => {
  it("tells listeners every change, in order, once", () => {
    const seen: ModelStatus[] = [];
    const tracker = createModelStatusTracker();
    const stop = tracker.subscribe((status) => seen.push(status));
    tracker.set({ state: "downloading", percent: 0, bytesDone: 0, bytesTotal: 10 });
    tracker.set({ state: "downloading", percent: 50, bytesDone: 5, bytesTotal: 10 });
    tracker.set({ state: "downloading", percent: 50, bytesDone: 5, bytesTotal: 10 });
    tracker.set({ state: "loading" });
    tracker.set({ state: "ready" });
    stop();
    tracker.set({ state: "error", message: "gone" });
    expect(seen.map((status) => (status.state === "downloading" ? `downloading ${status.percent}%` : status.state))).toEqual([
      "downloading 0%",
      "downloading 50%",
      "loading",
      "ready",
    ]);
    expect(tracker.get()).toEqual({ state: "error", message: "gone" });
  });

  it("refuses impossible moves", () => {
    const tracker = createModelStatusTracker();
    expect(() => tracker.set({ state: "ready" })).toThrow(/notDownloaded to ready/);
    tracker.set({ state: "error", message: "no network" });
    tracker.set({ state: "downloading", percent: 0, bytesDone: 0, bytesTotal: null });
    expect(tracker.get().state).toBe("downloading");
  });
});

describe("getModelStatus", () => {
  it("looks at the cache without loading or downloading anything", () => {
    const cacheDir = fs.mkdtempSync(path.join(os.tmpdir(), "chunkpad-status-"));
    try {
      expect(getModelStatus({ model: "bge-small-en-v1.5", cacheDir })).toEqual({ state: "notDownloaded" });
      const dir = path.join(cacheDir, "Xenova", "bge-small-en-v1.5");
      fs.mkdirSync(path.join(dir, "onnx"), { recursive: true });
      for (const file of ["config.json", "tokenizer.json", "tokenizer_config.json", "onnx/model_quantized.onnx"]) fs.writeFileSync(path.join(dir, file), "{}");
      expect(getModelStatus({ model: "bge-small-en-v1.5", cacheDir })).toEqual({ state: "notDownloaded" });
      expect(getModelStatus({ model: "bge-small-en-v1.5", cacheDir, dtype: "q8" })).toEqual({ state: "ready" });
      expect(getModelStatus({ model: path.resolve("../shared/models/tiny-bert"), cacheDir })).toEqual({ state: "ready" });
      expect(getModelStatus({ model: path.join(cacheDir, "nothing-here"), cacheDir }).state).toBe("error");
    } finally {
      fs.rmSync(cacheDir, { recursive: true, force: true });
    }
  });
});
