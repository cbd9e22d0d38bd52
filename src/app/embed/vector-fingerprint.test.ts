import { describe, expect, it } from "vitest";
import { embeddingFingerprint } from "../../embedding/fingerprint.js";
import { databaseFingerprint, differingFields, identityIsCurrent, readStoredFingerprint, sameIdentity, vectorStamp } from "../../embedding/vector-fingerprint.js";
import { fingerprintMatches } from "../search/search-vector.js";

const embedder = embeddingFingerprint({ provider: "local", model: "Xenova/bge-small-en-v1.5", dtype: "q8", pooling: "cls", normalize: true, queryPrefix: "Q: ", documentPrefix: "", maxTokens: 512 });
const chunking = { chunkSizeTokens: 400, chunkOverlapTokens: 60 };

describe("embedding fingerprints", () => {
  it("stamps vectors with the embedder and the folder's chunk settings; other chunk settings make another stamp", () => {
    expect(JSON.parse(vectorStamp(embedder, chunking))).toEqual({ embedder: JSON.parse(embedder), chunking });
    expect(vectorStamp(embedder, { chunkSizeTokens: 200, chunkOverlapTokens: 20 })).not.toBe(vectorStamp(embedder, chunking));
  });

  it("writes a meta value that reads back, and that search recognizes as the same model", () => {
    const stored = databaseFingerprint(embedder, { b: chunking, a: { chunkSizeTokens: 64, chunkOverlapTokens: 8 } });
    const read = readStoredFingerprint(stored);
    expect(read.embedder).toEqual(JSON.parse(embedder));
    expect(Object.keys(read.chunking)).toEqual(["a", "b"]);
    expect(differingFields(read.embedder ?? {}, embedder)).toEqual([]);
    expect(fingerprintMatches(stored, embedder)).toBe(true);
  });

  it("reads a bare embedder fingerprint, and nothing from a value it cannot parse", () => {
    expect(readStoredFingerprint(embedder).embedder).toEqual(JSON.parse(embedder));
    expect(readStoredFingerprint("some model").embedder).toBeNull();
    expect(readStoredFingerprint(null).embedder).toBeNull();
  });

  it("tells the model a user chose (provider, model, dtype) from settings that changed underneath", () => {
    const stored = JSON.parse(embedder) as Record<string, unknown>;
    expect(sameIdentity(stored, { provider: "local", model: "Xenova/bge-small-en-v1.5", dtype: "q8" })).toBe(true);
    expect(sameIdentity(stored, { provider: "local", model: "Xenova/bge-small-en-v1.5", dtype: "fp32" })).toBe(false);
    expect(identityIsCurrent({ ...stored, contextPrefix: 0 }, { provider: "local", model: "Xenova/bge-small-en-v1.5", dtype: "q8" })).toBe(false);
    const otherPooling = embeddingFingerprint({ provider: "local", model: "Xenova/bge-small-en-v1.5", dtype: "q8", pooling: "mean", normalize: true, queryPrefix: "Q: ", documentPrefix: "", maxTokens: 512 });
    expect(differingFields(stored, otherPooling)).toEqual(["pooling"]);
  });
});
