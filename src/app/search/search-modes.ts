// The search modes and fusion methods by name: the CLI, the server and the MCP server check flags
// against them without loading search itself (a process that only adds a folder imports this).

export type SearchMode = "keyword" | "vector" | "hybrid";
export type FusionMethod = "weighted" | "rrf";

export const SEARCH_MODES: readonly SearchMode[] = ["keyword", "vector", "hybrid"];
export const FUSION_METHODS: readonly FusionMethod[] = ["weighted", "rrf"];
