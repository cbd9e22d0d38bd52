import fs from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";

/**
 * A clone's `npm install` keeps only the builds Node on this machine loads (scripts/keep-this-platform.mjs,
 * run by `prepare`; decision 053): other platforms' and GPUs' binaries would be most of node_modules.
 */
const modules = path.resolve(import.meta.dirname, "..", "node_modules");
const here = `${process.platform}-${process.arch}`;

describe("a clone's node_modules after npm install", () => {
  it("holds node-llama-cpp's CPU build for this platform and no other (Chunkpad never asks for a GPU build)", () => {
    expect(fs.readdirSync(path.join(modules, "@node-llama-cpp"))).toEqual([here]);
  });

  it("holds onnxruntime-node's runtime for this platform only", () => {
    const binaries = path.join(modules, "onnxruntime-node", "bin", "napi-v6");
    expect(fs.readdirSync(binaries)).toEqual([process.platform]);
    expect(fs.readdirSync(path.join(binaries, process.platform))).toEqual([process.arch]);
  });
});
