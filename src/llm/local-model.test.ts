import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { startHubServer, type HubServer } from "../../test/helpers/hub-server.js";
import type { DownloadProgress } from "../hub/index.js";
import { createLlmClient } from "./factory.js";
import { ensureLocalLlm, LOCAL_LLM_MODELS, localLlmStatus, resolveLocalLlm, type DownloadOffer } from "./local-model.js";

/**
 * The download-and-consent flow against a local hub serving a small fake GGUF in the hub's URL
 * layout (/{repoId}/resolve/main/{file}); the real 2 GB file is never fetched here.
 */

const model = LOCAL_LLM_MODELS[0]!;
const FAKE_SIZE_BYTES = 300_000;
let hub: HubServer;
let cacheDir: string;

beforeAll(async () => {
  const repoDir = fs.mkdtempSync(path.join(os.tmpdir(), "chunkpad-fake-gguf-"));
  const data = Buffer.alloc(FAKE_SIZE_BYTES, 7);
  data.write("GGUF", 0, "latin1");
  data.writeUInt32LE(3, 4);
  fs.writeFileSync(path.join(repoDir, model.file), data);
  hub = await startHubServer({ repos: { [model.repoId]: repoDir } });
});
afterAll(() => hub.close());
beforeEach(() => {
  cacheDir = fs.mkdtempSync(path.join(os.tmpdir(), "chunkpad-models-"));
  hub.behave({});
  hub.requests.length = 0;
});

const fileGets = () => hub.requests.filter((request) => request.method === "GET");

describe("ensureLocalLlm", () => {
  it("asks first, showing the catalog's size, and sends nothing to the hub when the user declines", async () => {
    const offers: DownloadOffer[] = [];
    await expect(
      ensureLocalLlm({ cacheDir, hubUrl: hub.url, consent: (offer) => (offers.push(offer), false) }),
    ).rejects.toMatchObject({ code: "MODEL_CONSENT_REQUIRED", nextSteps: [{ action: "download-model", model: "llm" }, { action: "set-up-llm" }] });
    expect(offers).toEqual([{ model, sizeBytes: model.approximateSizeBytes, source: `${hub.url}/${model.repoId}` }]);
    expect(hub.requests).toEqual([]);
    expect(localLlmStatus(cacheDir).downloaded).toBe(false);
  });

  it("never downloads without a consent callback, and does not even ask the hub", async () => {
    await expect(ensureLocalLlm({ cacheDir, hubUrl: hub.url })).rejects.toMatchObject({ code: "MODEL_CONSENT_REQUIRED" });
    expect(hub.requests).toEqual([]);
  });

  it("downloads into the model cache after consent, with progress, then uses the cache without asking", async () => {
    const progress: DownloadProgress[] = [];
    const modelPath = await ensureLocalLlm({ cacheDir, hubUrl: hub.url, consent: async () => true, onProgress: (update) => progress.push(update) });
    expect(modelPath).toBe(path.join(cacheDir, ...model.repoId.split("/"), model.file));
    expect(fs.statSync(modelPath).size).toBe(FAKE_SIZE_BYTES);
    expect(progress.at(-1)).toMatchObject({ file: model.file, bytesDone: FAKE_SIZE_BYTES, percent: 100 });
    expect(fileGets().map((request) => request.path)).toEqual([`/${model.repoId}/resolve/main/${model.file}`]);
    expect(localLlmStatus(cacheDir)).toMatchObject({ downloaded: true, path: modelPath });

    hub.requests.length = 0;
    const again = await ensureLocalLlm({ cacheDir, hubUrl: hub.url, consent: () => expect.unreachable("asked twice") });
    expect(again).toBe(modelPath);
    expect(hub.requests).toEqual([]);
  });

  it("reports a failed download, leaving no model that looks complete", async () => {
    hub.behave({ dropAfterBytes: 1000 });
    await expect(ensureLocalLlm({ cacheDir, hubUrl: hub.url, consent: () => true })).rejects.toMatchObject({ code: "MODEL_DOWNLOAD_FAILED" });
    expect(localLlmStatus(cacheDir).downloaded).toBe(false);
  });

  it("says how to get the answer model when the hub cannot serve it, not how to get an embedding model", async () => {
    const failure = ensureLocalLlm({ cacheDir, hubUrl: hub.url, model: "llama-3.2-1b-instruct", consent: () => true });
    await expect(failure).rejects.toMatchObject({ code: "MODEL_NOT_FOUND", nextSteps: [{ action: "set-hub-url", model: "llm" }, { action: "use-model-files", model: "llm" }] });
    await expect(failure).rejects.toMatchObject({ message: expect.not.stringMatching(/embedding\.hubUrl|onnx\/model\.onnx/) });
  });
});

describe("resolveLocalLlm", () => {
  it("accepts the catalog names and a path to a GGUF the user already has", () => {
    expect(resolveLocalLlm("llama-3.2-1b-instruct")).toMatchObject({ repoId: "bartowski/Llama-3.2-1B-Instruct-GGUF" });
    expect(resolveLocalLlm("./my-model.gguf")).toEqual({ path: path.resolve("my-model.gguf") });
    expect(() => resolveLocalLlm("gpt-4o")).toThrow(/not a local model/);
  });
});

describe("the local client before the download", () => {
  it("answers the first question with MODEL_NOT_DOWNLOADED instead of downloading", async () => {
    const client = createLlmClient({ provider: "local", cacheDir });
    await expect(client.chat([{ role: "user", content: "Hi?" }])).rejects.toMatchObject({ code: "MODEL_NOT_DOWNLOADED" });
    expect(hub.requests).toEqual([]);
  });
});
