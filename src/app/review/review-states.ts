import type { ChunkRef } from "../../core/types.js";
import type { MainStore } from "../../store/index.js";
import { locationOf } from "../search/search.js";

/** Characters of chunk text shown per chunk in `chunkpad chunks --chunks`. */
const PREVIEW_LENGTH_CHARS = 72;

/**
 * Embed state of one chunk: "embedded" (its vector was made from its current text),
 * "modified" (edited since its vector was made), "new" (never embedded).
 */
export type ChunkEmbedState = "embedded" | "modified" | "new";

export interface ChunkState {
  ref: ChunkRef;
  relativePath: string;
  ordinal: number;
  included: boolean;
  embedState: ChunkEmbedState;
  location: string | null;
  section: string | null;
  /** The start of the chunk's text, on one line. */
  preview: string;
  /** The whole text, when the states of one file were asked for (the app's chunk viewer shows it). */
  text?: string;
}

/** Per chunk of a folder (optionally one source file): review and embed state, in file order. */
export async function listChunkStates(store: MainStore, folderId: string, relativePath?: string): Promise<ChunkState[]> {
  const embedded = new Map((await store.embedState(folderId)).map((row) => [row.ref, row]));
  const chunks = await store.listChunks(relativePath === undefined ? { folderId } : { folderId, relativePath });
  return chunks.map((chunk) => {
    const state = embedded.get(chunk.ref);
    const embeddedHash = state?.embeddedHash ?? null;
    const text = chunk.content.replace(/\s+/g, " ").trim();
    return {
      ref: chunk.ref,
      relativePath: chunk.relativePath,
      ordinal: chunk.ordinal,
      included: chunk.included,
      embedState: embeddedHash === null ? "new" : embeddedHash === state?.embedHash ? "embedded" : "modified",
      location: locationOf(chunk),
      section: chunk.section ?? null,
      preview: text.length > PREVIEW_LENGTH_CHARS ? `${text.slice(0, PREVIEW_LENGTH_CHARS - 1)}…` : text,
      ...(relativePath === undefined ? {} : { text: chunk.content }),
    };
  });
}
