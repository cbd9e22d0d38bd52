/** Each setting's section and human label; its help text is the server's description. */
export type Section = "answers" | "embeddings" | "search" | "processing" | "privacy" | "appearance" | "data";

export const SECTIONS: Array<{ id: Section; label: string; intro: string }> = [
  { id: "answers", label: "Answers", intro: "Who answers your questions, and how strictly they stick to your documents." },
  { id: "embeddings", label: "Embeddings", intro: "The model that turns chunks into vectors for search by meaning. It runs on this computer." },
  { id: "search", label: "Search", intro: "How results are found, merged and cut off." },
  { id: "processing", label: "Processing", intro: "How documents are read and split into chunks. Changes apply the next time a folder is processed." },
  { id: "privacy", label: "Privacy", intro: "What leaves this computer, and where keys are kept." },
  { id: "appearance", label: "Appearance", intro: "How Chunkpad looks in this browser." },
  { id: "data", label: "Data", intro: "Your folders and Chunkpad's own data." },
];

export const SETTING_LABELS: Record<string, { section: Section; label: string }> = {
  "generation.provider": { section: "answers", label: "Provider" },
  "generation.mode": { section: "answers", label: "Answer mode" },
  "generation.minSimilarity": { section: "answers", label: "Minimum word overlap to answer" },
  "generation.minVectorSimilarity": { section: "answers", label: "Minimum vector similarity to answer" },
  "generation.models.anthropic": { section: "answers", label: "Anthropic model" },
  "generation.models.openai": { section: "answers", label: "OpenAI model" },
  "generation.models.ollama": { section: "answers", label: "Ollama model" },
  "generation.models.local": { section: "answers", label: "Local model" },
  "generation.anthropicBaseUrl": { section: "answers", label: "Anthropic base URL" },
  "generation.openaiBaseUrl": { section: "answers", label: "OpenAI-compatible base URL" },
  "generation.ollamaHost": { section: "answers", label: "Ollama address" },
  "generation.hubUrl": { section: "answers", label: "Local model hub URL" },
  "embedding.provider": { section: "embeddings", label: "Provider" },
  "embedding.model": { section: "embeddings", label: "Model" },
  "embedding.dtype": { section: "embeddings", label: "Weights" },
  "embedding.hubUrl": { section: "embeddings", label: "Hub URL" },
  "embedding.baseUrl": { section: "embeddings", label: "Embedding server URL" },
  "embedding.batchSize": { section: "embeddings", label: "Batch size" },
  "embedding.pooling": { section: "embeddings", label: "Pooling" },
  "embedding.queryPrefix": { section: "embeddings", label: "Query prefix" },
  "embedding.documentPrefix": { section: "embeddings", label: "Document prefix" },
  "search.fusion": { section: "search", label: "Hybrid fusion" },
  "search.minScore": { section: "search", label: "Minimum score" },
  "search.limit": { section: "search", label: "Results per search" },
  "search.vectorWeight": { section: "search", label: "Vector weight" },
  "search.keywordWeight": { section: "search", label: "Keyword weight" },
  "search.perDocument": { section: "search", label: "Chunks per document" },
  "search.rerank": { section: "search", label: "Rerank" },
  "search.rerankModel": { section: "search", label: "Rerank model" },
  "search.rerankDtype": { section: "search", label: "Rerank weights" },
  "search.rerankCandidates": { section: "search", label: "Rerank candidates" },
  "search.rerankBudgetMs": { section: "search", label: "Rerank time budget (ms)" },
  "search.rerankWeight": { section: "search", label: "Rerank weight" },
  "chunking.chunkSizeTokens": { section: "processing", label: "Chunk size (tokens)" },
  "chunking.chunkOverlapTokens": { section: "processing", label: "Chunk overlap (tokens)" },
  "ingest.maxFileSizeMb": { section: "processing", label: "Largest file (MB)" },
  "ingest.perFileTimeoutSeconds": { section: "processing", label: "Time limit per file (s)" },
  "ingest.maxDecompressedMb": { section: "processing", label: "Largest unpacked office file (MB)" },
  "ingest.maxArchiveEntries": { section: "processing", label: "Most entries in an office file" },
  "ingest.workers": { section: "processing", label: "Parser workers" },
  "ingest.workerHeapMb": { section: "processing", label: "Memory per parser worker (MB)" },
  "ingest.ocr": { section: "processing", label: "OCR for scans and images" },
};

/** A setting the table does not name yet still shows, under its key. */
export const labelOf = (key: string) => SETTING_LABELS[key] ?? { section: "processing" as Section, label: key };

/** The settings each answer provider's card shows (its base URL and model), not repeated below the cards. */
export const PROVIDER_SETTINGS: Record<string, string[]> = {
  anthropic: ["generation.anthropicBaseUrl", "generation.models.anthropic"],
  openai: ["generation.openaiBaseUrl", "generation.models.openai"],
  ollama: ["generation.ollamaHost", "generation.models.ollama"],
  local: ["generation.hubUrl", "generation.models.local"],
};
export const IN_PROVIDER_CARDS = new Set(Object.values(PROVIDER_SETTINGS).flat());
