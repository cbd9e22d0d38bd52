import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import type { ModelStatus } from "../core/types.js";
import { startHubServer, TINY_BERT_DIR, TINY_BERT_FILES, TINY_BERT_REPO, TINY_BERT_TOTAL_BYTES, type HubServer } from "../../test/helpers/hub-server.js";
import { chunkpadRejection } from "../../test/helpers/rejection.js";
import { ensureModelAvailable, type ModelConsentRequest } from "./ensure-model.js";

let hub: HubServer;
let cacheDir: string;

beforeEach(async () => {
  hub = await startHubServer();
  cacheDir = fs.mkdtempSync(path.join(os.tmpdir(), "chunkpad-ensure-"));
});

afterEach(async () => {
  await hub.close();
  fs.rmSync(cacheDir, { recursive: true, force: true });
});

describe("ensureModelAvailable", () => {
  it("asks before any request to the hub (size unknown for a model outside the catalog), then downloads with progress", async () => {
    const asked: ModelConsentRequest[] = [];
    const statuses: ModelStatus[] = [];
    let requestsBeforeConsent = -1;
    const dir = await ensureModelAvailable({
      model: TINY_BERT_REPO,
      cacheDir,
      hubUrl: hub.url,
      allowDownload: true,
      consent: async (info) => {
        asked.push(info);
        requestsBeforeConsent = hub.requests.length;
        return true;
      },
      onStatus: (status) => statuses.push(status),
    });
    expect(dir).toBe(path.join(cacheDir, "chunkpad-test", "tiny-bert"));
    expect(fs.readFileSync(path.join(dir, "onnx/model.onnx")).equals(fs.readFileSync(path.join(TINY_BERT_DIR, "onnx/model.onnx")))).toBe(true);
    expect(asked).toEqual([{ repoId: TINY_BERT_REPO, sizeBytes: null, files: TINY_BERT_FILES }]);
    expect(requestsBeforeConsent).toBe(0);
    expect(statuses.every((status) => status.state === "downloading")).toBe(true);
    expect(statuses[0]).toMatchObject({ percent: 0 });
    expect(statuses.at(-1)).toMatchObject({ percent: 100, bytesDone: TINY_BERT_TOTAL_BYTES });
  });

  it("uses a cached model without any network request", async () => {
    await ensureModelAvailable({ model: TINY_BERT_REPO, cacheDir, hubUrl: hub.url, allowDownload: true, consent: async () => true });
    const before = hub.requests.length;
    let asked = false;
    const dir = await ensureModelAvailable({
      model: TINY_BERT_REPO,
      cacheDir,
      hubUrl: hub.url,
      allowDownload: false,
      consent: async () => (asked = true),
    });
    expect(dir).toBe(path.join(cacheDir, "chunkpad-test", "tiny-bert"));
    expect(hub.requests.length).toBe(before);
    expect(asked).toBe(false);
  });

  it("never downloads on the search path", async () => {
    const statuses: ModelStatus[] = [];
    const error = await chunkpadRejection(
      ensureModelAvailable({ model: "bge-base-en-v1.5", cacheDir, hubUrl: hub.url, allowDownload: false, onStatus: (status) => statuses.push(status) }),
    );
    expect(error.code).toBe("MODEL_NOT_DOWNLOADED");
    expect(error.nextSteps).toEqual([{ action: "embed", purpose: "to download it" }]);
    expect(error.message).toMatch(/438 MB/);
    expect(hub.requests).toEqual([]);
    expect(statuses).toEqual([{ state: "notDownloaded" }]);
  });

  it("sends no request at all when the user says no", async () => {
    const error = await chunkpadRejection(ensureModelAvailable({ model: TINY_BERT_REPO, cacheDir, hubUrl: hub.url, allowDownload: true, consent: async () => false }));
    expect(error.code).toBe("MODEL_CONSENT_REQUIRED");
    expect(error.nextSteps).toEqual([{ action: "download-model", model: "embedding" }]);
    expect(hub.requests).toEqual([]);
    expect(fs.existsSync(path.join(cacheDir, "chunkpad-test"))).toBe(false);
  });

  it("reports a failed download as an error status", async () => {
    hub.behave({ notFound: true });
    const statuses: ModelStatus[] = [];
    const error = await chunkpadRejection(
      ensureModelAvailable({ model: TINY_BERT_REPO, cacheDir, hubUrl: hub.url, allowDownload: true, consent: async () => true, onStatus: (status) => statuses.push(status) }),
    );
    expect(error.code).toBe("MODEL_NOT_FOUND");
    expect(statuses.at(-1)).toMatchObject({ state: "error" });
  });

  it("uses a local directory as it is, and says which files it lacks", async () => {
    expect(await ensureModelAvailable({ model: TINY_BERT_DIR, cacheDir, hubUrl: hub.url, allowDownload: false })).toBe(TINY_BERT_DIR);
    const error = await chunkpadRejection(ensureModelAvailable({ model: TINY_BERT_DIR, dtype: "q8", cacheDir, hubUrl: hub.url, allowDownload: false }));
    expect(error.code).toBe("MODEL_NOT_FOUND");
    expect(error.message).toContain("onnx/model_quantized.onnx");
    expect(hub.requests).toEqual([]);
  });
});
