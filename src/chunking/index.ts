export { assembleText, BLOCK_SEPARATOR, headingText, renderBlock } from "./assemble.js";
export type { AssembledText, BlockSpan } from "./assemble.js";
export { CHUNK_TOKEN_TOLERANCE, chunkDocument, MIN_CHUNK_SIZE_TOKENS, validateChunkingOptions } from "./chunker.js";
export { countTokens, decodeTokens, encodeTokens, splitAtTokenLimit } from "./tokens.js";
export type { TextPiece } from "./tokens.js";
