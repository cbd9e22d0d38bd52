/**
 * Cross-encoders for the optional rerank stage: a (question, passage) pair in, one relevance
 * logit out. ONNX exports in the hub layout transformers.js reads, like the embedding models.
 */

export interface RerankCatalogEntry {
  name: string;
  repoId: string;
  approximateBytes: { fp32: number; q8: number };
  description: string;
}

const MB = 1_000_000;

export const DEFAULT_RERANK_MODEL = "bge-reranker-base";

export const RERANK_CATALOG: readonly RerankCatalogEntry[] = [
  {
    name: "bge-reranker-base",
    repoId: "Xenova/bge-reranker-base",
    approximateBytes: { fp32: 1_110 * MB, q8: 279 * MB },
    description: "BAAI bge-reranker-base (default): English and Chinese, good quality for its size",
  },
  {
    name: "ms-marco-MiniLM-L-6-v2",
    repoId: "Xenova/ms-marco-MiniLM-L-6-v2",
    approximateBytes: { fp32: 91 * MB, q8: 23 * MB },
    description: "MS MARCO MiniLM cross-encoder: small and fast, English",
  },
];

/** A rerank catalog entry by short name or hub id (case-insensitive). */
export function findRerankEntry(name: string): RerankCatalogEntry | undefined {
  const wanted = name.trim().toLowerCase();
  return RERANK_CATALOG.find((entry) => entry.name.toLowerCase() === wanted || entry.repoId.toLowerCase() === wanted);
}
