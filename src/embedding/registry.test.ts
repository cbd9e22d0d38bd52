import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { ChunkpadError } from "../core/errors.js";
import type { Embedder, ModelStatus } from "../core/types.js";
import { startFakeApiServer, startHubServer, TINY_BERT_REPO, type HubServer } from "../../test/helpers/hub-server.js";
import { createEmbedder } from "./registry.js";

let hub: HubServer;
let cacheDir: string;
const opened: Embedder[] = [];

beforeEach(async () => {
  hub = await startHubServer();
  cacheDir = fs.mkdtempSync(path.join(os.tmpdir(), "chunkpad-registry-"));
});

afterEach(async () => {
  for (const embedder of opened.splice(0)) await embedder.close?.();
  await hub.close();
  fs.rmSync(cacheDir, { recursive: true, force: true });
});

function describeStatus(status: ModelStatus): string {
  return status.state === "downloading" ? "downloading" : status.state;
}

/** Consecutive repeats collapsed: "downloading" x N → one. */
function phases(statuses: ModelStatus[]): string[] {
  return statuses.map(describeStatus).filter((state, index, all) => state !== all[index - 1]);
}

describe("createEmbedder (local)", () => {
  it("goes notDownloaded → downloading → loading → ready on first use, then loads from the cache", async () => {
    const statuses: ModelStatus[] = [];
    const config = { provider: "local" as const, model: TINY_BERT_REPO, cacheDir, hubUrl: hub.url };
    const first = await createEmbedder(config, { allowDownload: true, consent: async () => true, onStatus: (status) => statuses.push(status) });
    opened.push(first);

    expect(phases(statuses)).toEqual(["downloading", "loading", "ready"]);
    const percents = statuses.flatMap((status) => (status.state === "downloading" ? [status.percent] : []));
    expect(percents[0]).toBe(0);
    expect(percents.at(-1)).toBe(100);
    expect(first.dimensions).toBe(64);
    expect((await first.embedQuery("hello")).length).toBe(64);

    const requestsAfterDownload = hub.requests.length;
    const later: ModelStatus[] = [];
    const second = await createEmbedder(config, { onStatus: (status) => later.push(status) });
    opened.push(second);
    expect(phases(later)).toEqual(["loading", "ready"]);
    expect(hub.requests.length).toBe(requestsAfterDownload);
    expect(second.fingerprint).toBe(first.fingerprint);
  });

  it("does not download on the search path", async () => {
    const statuses: ModelStatus[] = [];
    const error: unknown = await createEmbedder(
      { provider: "local", model: TINY_BERT_REPO, cacheDir, hubUrl: hub.url },
      { onStatus: (status) => statuses.push(status) },
    ).catch((reason: unknown) => reason);
    expect(error).toBeInstanceOf(ChunkpadError);
    expect((error as ChunkpadError).code).toBe("MODEL_NOT_DOWNLOADED");
    expect(hub.requests).toEqual([]);
    expect(statuses).toEqual([]);
  });

  it("ends in an error status when the hub is missing the model", async () => {
    hub.behave({ notFound: true });
    const statuses: ModelStatus[] = [];
    const error: unknown = await createEmbedder(
      { provider: "local", model: TINY_BERT_REPO, cacheDir, hubUrl: hub.url },
      { allowDownload: true, consent: async () => true, onStatus: (status) => statuses.push(status) },
    ).catch((reason: unknown) => reason);
    expect((error as ChunkpadError).code).toBe("MODEL_NOT_FOUND");
    expect(statuses.at(-1)).toMatchObject({ state: "error" });
  });
});

describe("createEmbedder (remote providers)", () => {
  it("builds the Ollama and OpenAI embedders from the config", async () => {
    const server = await startFakeApiServer((request) => ({
      body: request.path === "/api/embed" ? { model: "m", embeddings: [[1, 0]] } : { object: "list", data: [{ object: "embedding", index: 0, embedding: [0, 1] }] },
    }));
    try {
      const ollama = await createEmbedder({ provider: "ollama", model: "m", baseUrl: server.url, cacheDir, hubUrl: hub.url });
      const openai = await createEmbedder({ provider: "openai", model: "m", baseUrl: server.url, apiKey: "k", cacheDir, hubUrl: hub.url });
      expect(Array.from(await ollama.embedQuery("q"))).toEqual([1, 0]);
      expect(Array.from(await openai.embedQuery("q"))).toEqual([0, 1]);
      expect(server.requests.map((request) => request.path)).toEqual(["/api/embed", "/embeddings"]);
      expect(ollama.fingerprint).not.toBe(openai.fingerprint);
    } finally {
      await server.close();
    }
  });
});

describe("pooling and prefixes for models outside the catalog", () => {
  it("the local embedder uses the configured pooling and prefixes, and its fingerprint names them", async () => {
    const directory = path.resolve("../shared/models/tiny-bert");
    const base = { provider: "local" as const, model: directory, cacheDir, hubUrl: hub.url };
    const configured = await createEmbedder({ ...base, pooling: "cls", queryPrefix: "query: ", documentPrefix: "passage: " });
    opened.push(configured);
    const guessed = await createEmbedder(base);
    opened.push(guessed);
    expect(JSON.parse(configured.fingerprint)).toMatchObject({ pooling: "cls", queryPrefix: "query: ", documentPrefix: "passage: " });
    expect(JSON.parse(guessed.fingerprint)).toMatchObject({ pooling: "mean", queryPrefix: "", documentPrefix: "" });
    expect(Array.from(await configured.embedQuery("heron"))).not.toEqual(Array.from(await guessed.embedQuery("query: heron")));
  });

  it("Ollama and OpenAI-compatible servers receive the configured prefixes, or the catalog's for a model it knows", async () => {
    const server = await startFakeApiServer((request) => {
      const input = (request.body as { input: string[] }).input;
      return { body: request.path === "/api/embed" ? { embeddings: input.map(() => [1, 0]) } : { data: input.map((_, index) => ({ index, embedding: [0, 1] })) } };
    });
    try {
      const prefixes = { queryPrefix: "query: ", documentPrefix: "passage: " };
      const ollama = await createEmbedder({ provider: "ollama", model: "e5-custom", baseUrl: server.url, cacheDir, hubUrl: hub.url, ...prefixes });
      const openai = await createEmbedder({ provider: "openai", model: "e5-custom", baseUrl: server.url, apiKey: "k", cacheDir, hubUrl: hub.url, ...prefixes });
      const catalog = await createEmbedder({ provider: "openai", model: "nomic-embed-text", baseUrl: server.url, apiKey: "k", cacheDir, hubUrl: hub.url });
      for (const embedder of [ollama, openai, catalog]) {
        await embedder.embedQuery("heron");
        await embedder.embedDocuments(["a river"]);
      }
      expect(server.requests.map((request) => (request.body as { input: string[] }).input[0])).toEqual([
        "query: heron", "passage: a river",
        "query: heron", "passage: a river",
        "search_query: heron", "search_document: a river",
      ]);
      expect(JSON.parse(openai.fingerprint)).toMatchObject(prefixes);
    } finally {
      await server.close();
    }
  });
});
