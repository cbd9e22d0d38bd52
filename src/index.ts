// The public API: what the faces (CLI, HTTP server, MCP server) and library users may import.
export * from "./core/errors.js";
export type * from "./core/types.js";
export { DEFAULT_CHUNKING, DEFAULT_PARSE_LIMITS } from "./core/types.js";
export { openChunkpad, type Chunkpad, type OpenChunkpadOptions, type AddFolderOptions } from "./app/chunkpad.js";
export type { ProcessReport, ProcessProgress, ProcessedFile, FailedFile, ChunkFileConflict } from "./app/process-folder.js";
export type { ChunkTreeReport, ChunkTreeNode } from "./app/chunk-tree.js";
export type { ChunkpadConfig } from "./app/config.js";
export type { ChunkpadPaths } from "./app/paths.js";
export { flattenConfig as flattenChunkpadConfig, getConfigValue as getChunkpadConfigValue } from "./app/config.js";
export type { FolderSummary } from "./store/store-types.js";
export { SEARCH_MODES, FUSION_METHODS, type SearchMode, type FusionMethod, type SearchOptions, type SearchReport, type SearchResult } from "./app/search.js";
export type { ReviewOptions, ReviewReport, ReviewTarget, ReviewTargetKind } from "./app/review.js";
export type { ChunkState, ChunkEmbedState } from "./app/review-states.js";
export { EVALUATION_MODES, EVALUATION_METRICS, parseEvaluationModes, type EvaluationMode, type EvaluateOptions, type EvaluationReport, type ModeEvaluation } from "./app/evaluate.js";
