import path from "node:path";
import { chunkFilePathIn } from "../../chunkfiles/paths.js";
import { normalizeChunkContent, readChunkFileText, renderChunkFile } from "../../chunkfiles/format.js";
import { readChunkFileSafely, writeChunkFileSafely } from "../../chunkfiles/safe-files.js";
import { parseChunkRef, sha256Hex } from "../../core/chunk-ref.js";
import { ChunkpadError } from "../../core/errors.js";
import type { MainStore } from "../../store/index.js";

/**
 * Edits one chunk's text the way a user edits its chunk file, for the web app's editor: the
 * chunk file is the truth, so the new text goes there (the other chunks, their metadata and the
 * header stay as they are) and Step 1 then takes the edit in. `baseHash` is the hash of the text
 * the editor started from: when the chunk file holds something else by now (an edit in another
 * window or an editor on disk), nothing is written and CHUNK_FILE_CONFLICT says so.
 */
export async function editChunkText(store: MainStore, ref: string, text: string, baseHash: string): Promise<{ folderRoot: string }> {
  const parsedRef = parseChunkRef(ref);
  if (parsedRef === null) throw new ChunkpadError("INVALID_ARGUMENT", `"${ref}" is not a chunk reference (folder id, path, chunk number: 3f2a9c1b:reports/q3.pdf#4).`);
  const folder = await store.getFolder(parsedRef.folderId);
  if (!folder) throw new ChunkpadError("NOT_FOUND", `No added folder has the id ${parsedRef.folderId}; the chunk ${ref} is gone.`);
  const content = normalizeChunkContent(text);
  if (content === "") throw new ChunkpadError("INVALID_ARGUMENT", "The chunk text is empty. To leave this text out of search and answers, exclude the chunk instead.");
  const chunkFile = chunkFilePathIn(folder.chunksRootPath, parsedRef.relativePath);
  const current = await readChunkFileSafely(folder.chunksRootPath, chunkFile);
  if (current === undefined) throw new ChunkpadError("NOT_FOUND", `The chunk file of ${parsedRef.relativePath} is gone; process the folder again to write it.`);
  const parsed = readChunkFileText(current);
  const chunk = parsed.chunks[parsedRef.ordinal - 1];
  if (!chunk || sha256Hex(chunk.content) !== baseHash) {
    throw new ChunkpadError("CHUNK_FILE_CONFLICT", `Chunk ${parsedRef.ordinal} of ${parsedRef.relativePath} changed since you opened it (edited elsewhere, or the document was processed again). Reload it and make your edit again; nothing was saved.`);
  }
  const chunks = parsed.chunks.map((draft, index) => (index === parsedRef.ordinal - 1 ? { ...draft, content } : draft));
  await writeChunkFileSafely(folder.chunksRootPath, chunkFile, renderChunkFile(chunks, parsed.source === undefined ? undefined : { source: parsed.source }), {
    sourcePath: path.join(folder.rootPath, ...parsedRef.relativePath.split("/")),
  });
  return { folderRoot: folder.rootPath };
}
