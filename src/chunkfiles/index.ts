export { narrowChunkFileMode, readChunkFileSafely, removeChunkFileSafely, writeChunkFileSafely, type ChunkFileAccess } from "./safe-files.js";
export { normalizeChunkContent, parseChunkFile, readChunkFileText, renderChunkFile } from "./format.js";
export type { ChunkFileHeader, ParsedChunkFile } from "./format.js";
export { hashBytes, hashText } from "./hash.js";
export {
  CHUNK_FILE_EXTENSION,
  chunkFilePathFor,
  CHUNKS_DIR_NAME,
  chunksRootFor,
  isChunkFilePath,
  sourcePathForChunkFile,
  trySourcePathForChunkFile,
} from "./paths.js";
