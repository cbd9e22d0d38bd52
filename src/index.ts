// The public API: what the faces (CLI, HTTP server, MCP server) and library users may import.
export * from "./core/errors.js";
export type * from "./core/types.js";
export { DEFAULT_CHUNKING, DEFAULT_PARSE_LIMITS } from "./core/types.js";
