import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { ChunkpadError } from "../core/errors.js";
import { startHubServer, TINY_BERT_DIR, TINY_BERT_FILES, TINY_BERT_REPO, TINY_BERT_TOTAL_BYTES, type HubServer } from "../../test/helpers/hub-server.js";
import { chunkpadRejection } from "../../test/helpers/rejection.js";
import { cachedModelDir, downloadModelFiles, fetchRemoteSizes, hubFileUrl, isModelCached, type DownloadProgress } from "./index.js";

const MODEL_FILE = "onnx/model.onnx";
const MODEL_BYTES = fs.statSync(path.join(TINY_BERT_DIR, MODEL_FILE)).size;

let hub: HubServer;
let cacheDir: string;

beforeEach(async () => {
  hub = await startHubServer();
  cacheDir = fs.mkdtempSync(path.join(os.tmpdir(), "chunkpad-hub-"));
});

afterEach(async () => {
  await hub.close();
  fs.rmSync(cacheDir, { recursive: true, force: true });
});

function sameBytes(file: string): boolean {
  const downloaded = fs.readFileSync(path.join(cachedModelDir(cacheDir, TINY_BERT_REPO), file));
  return downloaded.equals(fs.readFileSync(path.join(TINY_BERT_DIR, file)));
}

describe("hubFileUrl", () => {
  it("builds the Hugging Face resolve URL", () => {
    expect(hubFileUrl("https://huggingface.co/", "Xenova/bge-base-en-v1.5", "onnx/model.onnx")).toBe(
      "https://huggingface.co/Xenova/bge-base-en-v1.5/resolve/main/onnx/model.onnx",
    );
    expect(hubFileUrl("http://hub.local", "a/b", "config.json", "v2")).toBe("http://hub.local/a/b/resolve/v2/config.json");
  });

  it("refuses repository ids that would leave the cache directory", () => {
    expect(() => cachedModelDir(cacheDir, "../etc")).toThrow(ChunkpadError);
    expect(() => cachedModelDir(cacheDir, "a/b/c")).toThrow(ChunkpadError);
  });
});

describe("downloadModelFiles", () => {
  it("downloads every file byte for byte, reporting progress up to 100%", async () => {
    const events: DownloadProgress[] = [];
    const dir = await downloadModelFiles(TINY_BERT_REPO, TINY_BERT_FILES, { baseUrl: hub.url, cacheDir, onProgress: (p) => events.push(p) });

    expect(dir).toBe(path.join(cacheDir, "chunkpad-test", "tiny-bert"));
    for (const file of TINY_BERT_FILES) expect(sameBytes(file)).toBe(true);
    expect(fs.existsSync(path.join(dir, `${MODEL_FILE}.partial`))).toBe(false);
    expect(isModelCached(cacheDir, TINY_BERT_REPO, TINY_BERT_FILES)).toBe(true);

    expect(events.length).toBeGreaterThan(3);
    expect(events.every((event) => event.bytesTotal === TINY_BERT_TOTAL_BYTES)).toBe(true);
    const percents = events.map((event) => event.percent);
    expect(percents).toEqual([...percents].sort((a, b) => a - b));
    expect(events.some((event) => event.percent > 0 && event.percent < 100)).toBe(true);
    expect(events.at(-1)).toMatchObject({ bytesDone: TINY_BERT_TOTAL_BYTES, percent: 100 });
  });

  it("sends no request at all when the model is already cached", async () => {
    await downloadModelFiles(TINY_BERT_REPO, TINY_BERT_FILES, { baseUrl: hub.url, cacheDir });
    const before = hub.requests.length;
    const events: DownloadProgress[] = [];
    await downloadModelFiles(TINY_BERT_REPO, TINY_BERT_FILES, { baseUrl: hub.url, cacheDir, onProgress: (p) => events.push(p) });
    expect(hub.requests.length).toBe(before);
    expect(events.at(-1)?.percent).toBe(100);
  });

  it("resumes an interrupted download with a Range request", async () => {
    hub.behave({ dropAfterBytes: 1_000_000 });
    const error = await chunkpadRejection(downloadModelFiles(TINY_BERT_REPO, TINY_BERT_FILES, { baseUrl: hub.url, cacheDir }));
    expect(error.code).toBe("MODEL_DOWNLOAD_FAILED");
    expect(error.isRetryable).toBe(true);
    expect(error.message).toMatch(/run the command again/i);

    // Nothing that looks complete: only a partial file.
    const modelPath = path.join(cachedModelDir(cacheDir, TINY_BERT_REPO), MODEL_FILE);
    expect(fs.existsSync(modelPath)).toBe(false);
    expect(isModelCached(cacheDir, TINY_BERT_REPO, TINY_BERT_FILES)).toBe(false);
    const partialBytes = fs.statSync(`${modelPath}.partial`).size;
    expect(partialBytes).toBeGreaterThan(0);
    expect(partialBytes).toBeLessThan(MODEL_BYTES);

    hub.behave({});
    await downloadModelFiles(TINY_BERT_REPO, TINY_BERT_FILES, { baseUrl: hub.url, cacheDir });
    const resumed = hub.requests.filter((request) => request.method === "GET" && request.path.endsWith(MODEL_FILE)).at(-1);
    expect(resumed).toMatchObject({ range: `bytes=${partialBytes}-`, status: 206 });
    expect(sameBytes(MODEL_FILE)).toBe(true);
    expect(fs.existsSync(`${modelPath}.partial`)).toBe(false);
  });

  it("restarts cleanly when the server ignores the Range request", async () => {
    hub.behave({ dropAfterBytes: 700_000 });
    await chunkpadRejection(downloadModelFiles(TINY_BERT_REPO, TINY_BERT_FILES, { baseUrl: hub.url, cacheDir }));

    hub.behave({ ignoreRange: true });
    await downloadModelFiles(TINY_BERT_REPO, TINY_BERT_FILES, { baseUrl: hub.url, cacheDir });
    const last = hub.requests.filter((request) => request.method === "GET" && request.path.endsWith(MODEL_FILE)).at(-1);
    expect(last?.range).toMatch(/^bytes=\d+-$/);
    expect(last?.status).toBe(200);
    expect(sameBytes(MODEL_FILE)).toBe(true);
  });

  it("starts over instead of splicing two versions when the file changed on the hub", async () => {
    const repoDir = fs.mkdtempSync(path.join(os.tmpdir(), "chunkpad-repo-"));
    fs.cpSync(TINY_BERT_DIR, repoDir, { recursive: true });
    const changing = await startHubServer({ repos: { "test/changing": repoDir } });
    try {
      changing.behave({ dropAfterBytes: 1_000_000 });
      await chunkpadRejection(downloadModelFiles("test/changing", TINY_BERT_FILES, { baseUrl: changing.url, cacheDir }));

      const newVersion = Buffer.from(fs.readFileSync(path.join(repoDir, MODEL_FILE))).reverse();
      fs.writeFileSync(path.join(repoDir, MODEL_FILE), newVersion);
      changing.behave({});
      await downloadModelFiles("test/changing", TINY_BERT_FILES, { baseUrl: changing.url, cacheDir });

      const last = changing.requests.filter((request) => request.method === "GET" && request.path.endsWith(MODEL_FILE)).at(-1);
      expect(last).toMatchObject({ range: expect.stringMatching(/^bytes=\d+-$/), status: 200 });
      expect(fs.readFileSync(path.join(cachedModelDir(cacheDir, "test/changing"), MODEL_FILE)).equals(newVersion)).toBe(true);
    } finally {
      await changing.close();
      fs.rmSync(repoDir, { recursive: true, force: true });
    }
  });

  it("skips optional files the hub does not have", async () => {
    await downloadModelFiles(TINY_BERT_REPO, TINY_BERT_FILES, { baseUrl: hub.url, cacheDir, optionalFiles: ["onnx/model_quantized.onnx"] });
    expect(isModelCached(cacheDir, TINY_BERT_REPO, TINY_BERT_FILES)).toBe(true);
    expect(isModelCached(cacheDir, TINY_BERT_REPO, ["onnx/model_quantized.onnx"])).toBe(false);
  });

  it("reports a missing model as MODEL_NOT_FOUND naming the URL", async () => {
    const error = await chunkpadRejection(downloadModelFiles("nobody/no-such-model", TINY_BERT_FILES, { baseUrl: hub.url, cacheDir }));
    expect(error.code).toBe("MODEL_NOT_FOUND");
    expect(error.message).toContain(`${hub.url}/nobody/no-such-model/resolve/main/config.json`);
    expect(error.message).toMatch(/Check the model id "nobody\/no-such-model" and the hub URL\. /);
    expect(fs.existsSync(path.join(cacheDir, "nobody", "no-such-model", "config.json"))).toBe(false);
  });

  it("explains gated or private models on 401", async () => {
    hub.behave({ status: 401 });
    const error = await chunkpadRejection(downloadModelFiles(TINY_BERT_REPO, TINY_BERT_FILES, { baseUrl: hub.url, cacheDir }));
    expect(error.code).toBe("MODEL_DOWNLOAD_FAILED");
    expect(error.statusCode).toBe(401);
    expect(error.message).toMatch(/gated or private/);
  });

  it("says what failed and how to fix it when the hub is unreachable", async () => {
    const closed = await startHubServer();
    const closedUrl = closed.url;
    await closed.close();

    const error = await chunkpadRejection(downloadModelFiles(TINY_BERT_REPO, TINY_BERT_FILES, { baseUrl: closedUrl, cacheDir }));
    expect(error.code).toBe("MODEL_DOWNLOAD_FAILED");
    expect(error.message).toContain(closedUrl);
    expect(error.message).toMatch(/refused/);
    expect(error.nextSteps).toEqual([{ action: "set-hub-url", model: "embedding" }, { action: "use-model-files", model: "embedding" }]);
  });

  it("gives up on a server that stops sending", async () => {
    hub.behave({ hang: true });
    const error = await chunkpadRejection(downloadModelFiles(TINY_BERT_REPO, TINY_BERT_FILES, { baseUrl: hub.url, cacheDir, idleTimeoutMs: 200 }));
    expect(error.code).toBe("MODEL_DOWNLOAD_FAILED");
    expect(error.message).toMatch(/sent nothing/);
  });

  it("stops when cancelled, keeping the partial file for later", async () => {
    hub.behave({ slow: { chunkBytes: 64 * 1024, delayMs: 5 } });
    const controller = new AbortController();
    const error = await chunkpadRejection(
      downloadModelFiles(TINY_BERT_REPO, TINY_BERT_FILES, {
        baseUrl: hub.url,
        cacheDir,
        signal: controller.signal,
        onProgress: (progress) => {
          if (progress.file === MODEL_FILE && progress.bytesDone > TINY_BERT_TOTAL_BYTES - MODEL_BYTES) controller.abort();
        },
      }),
    );
    expect(error.code).toBe("CANCELLED");
    expect(isModelCached(cacheDir, TINY_BERT_REPO, TINY_BERT_FILES)).toBe(false);
    expect(fs.existsSync(path.join(cachedModelDir(cacheDir, TINY_BERT_REPO), `${MODEL_FILE}.partial`))).toBe(true);
  });
});

describe("fetchRemoteSizes", () => {
  it("adds up the sizes the hub reports", async () => {
    expect(await fetchRemoteSizes(TINY_BERT_REPO, TINY_BERT_FILES, { baseUrl: hub.url, cacheDir })).toBe(TINY_BERT_TOTAL_BYTES);
    expect(hub.requests.every((request) => request.method === "HEAD")).toBe(true);
  });
});
