import { embedTextHash } from "../../core/chunk-ref.js";
import { ChunkpadError } from "../../core/errors.js";
import type { ChunkingOptions } from "../../core/types.js";
import { describeIdentity, databaseFingerprint, differingFields, readStoredFingerprint, sameIdentity } from "../../embedding/vector-fingerprint.js";
import { META_KEYS, type MainStore, type StoredFolder } from "../../store/index.js";
import type { Manifest } from "./archive-format.js";
import type { CheckedFolder } from "./archive-check.js";
import type { ImportDependencies, ImportOptions, ImportReport } from "./import.js";

/** An import's vectors: whether they can go in (the same model), putting them in, and recording their model. */

/** Whether the archive's vectors can go in: same model as the configured one and as the vectors already stored. */
export async function checkVectors({ store, configuredIdentity: configured, adoptModel }: ImportDependencies, manifest: Manifest, options: ImportOptions, report: ImportReport): Promise<boolean> {
  const embedding = manifest.embedding;
  if (!embedding) return false;
  if (options.reembed) {
    report.vectorsSkipped = "re-embedded: the chunks are embedded again with the configured model";
    return false;
  }
  const archivedBy = describeIdentity(embedding.embedder);
  if (configured && !sameIdentity(embedding.embedder, configured)) {
    const changed = (await store.vectorCount()) === 0 ? adoptModel?.(embedding.embedder) : null;
    if (changed) report.configChanged = changed;
  }
  if (configured && report.configChanged.length === 0 && !sameIdentity(embedding.embedder, configured)) {
    throw new ChunkpadError(
      "EMBEDDING_MISMATCH",
      `The archive's vectors were made by ${archivedBy}, but the configured embedding model is ${describeIdentity(configured)}; vectors of different models cannot be searched together.`,
      { nextSteps: [{ action: "import-reembed" }, { action: "change-setting", key: "embedding.model", value: String(embedding.embedder.model) }] },
    );
  }
  if (!store.vectorAvailable) {
    report.vectorsSkipped = store.vectorUnavailableReason ?? "vector search is not available here";
    return false;
  }
  const stored = readStoredFingerprint(await store.getMeta(META_KEYS.embeddingFingerprint));
  const storedDimensions = await store.vectorDimensions();
  const differs = stored.embedder !== null && (await store.vectorCount()) > 0 && differingFields(stored.embedder, JSON.stringify(embedding.embedder)).length > 0;
  if (differs || (storedDimensions !== null && (await store.vectorCount()) > 0 && storedDimensions !== embedding.dimensions)) {
    throw new ChunkpadError(
      "EMBEDDING_MISMATCH",
      `The archive's vectors were made by ${archivedBy}, but the vectors already in the database by ${describeIdentity(stored.embedder ?? {})}.`,
      { nextSteps: [{ action: "import-reembed" }] },
    );
  }
  return true;
}

export async function restoreVectors(store: MainStore, values: Float32Array, archived: CheckedFolder["archived"], folder: StoredFolder, dimensions: number): Promise<number> {
  await store.ensureVectorTable(dimensions);
  const chunks = new Map((await store.listChunks({ folderId: folder.id })).map((chunk) => [`${chunk.relativePath}#${chunk.ordinal}`, chunk]));
  // Grouped by stamp: upsertVectors writes one stamp per call.
  const byStamp = new Map<string, Array<{ ref: string; embedHash: string; embedding: Float32Array }>>();
  archived.vectors.forEach((vector, row) => {
    const chunk = chunks.get(`${vector.relativePath}#${vector.ordinal}`);
    // A vector is only as good as the text it was made from: a hash that differs is left to embed.
    if (!chunk || embedTextHash(chunk) !== vector.embedHash) return;
    // The stamp names the embedder and the folder's chunk settings, which came along with it.
    const stamp = vector.stamp;
    byStamp.set(stamp, [...(byStamp.get(stamp) ?? []), { ref: chunk.ref, embedHash: vector.embedHash, embedding: values.slice(row * dimensions, (row + 1) * dimensions) }]);
  });
  let written = 0;
  for (const [stamp, vectors] of byStamp) written += (await store.upsertVectors(vectors, stamp)).written;
  return written;
}

export async function recordEmbedding(store: MainStore, embedding: NonNullable<Manifest["embedding"]>, folderId: string, chunking: ChunkingOptions): Promise<void> {
  const stored = readStoredFingerprint(await store.getMeta(META_KEYS.embeddingFingerprint));
  const chunkingByFolder = stored.embedder === null ? {} : stored.chunking;
  await store.setMeta(META_KEYS.embeddingFingerprint, databaseFingerprint(JSON.stringify(embedding.embedder), { ...chunkingByFolder, [folderId]: chunking }));
  await store.setMeta(META_KEYS.embeddingModel, embedding.model);
  await store.setMeta(META_KEYS.embeddingDimensions, String(embedding.dimensions));
}

