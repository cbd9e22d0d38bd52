import { createHash } from "node:crypto";
import type { ChunkRef } from "./types.js";
import { withContextPrefix } from "./context-prefix.js";

/** Chunk references and the hashes that give a chunk's text its identity (shared by every room). */

/** `{folderId}:{relativePath}#{n}`, n 1-based. */
export function chunkRef(folderId: string, relativePath: string, ordinal: number): ChunkRef {
  return `${folderId}:${relativePath}#${ordinal}`;
}

/** Splits a ref into its parts, or null when it is not shaped like one. */
export function parseChunkRef(ref: string): { folderId: string; relativePath: string; ordinal: number } | null {
  const colon = ref.indexOf(":");
  const hash = ref.lastIndexOf("#");
  if (colon <= 0 || hash <= colon + 1) return null;
  const ordinalText = ref.slice(hash + 1);
  if (!/^[1-9][0-9]*$/.test(ordinalText)) return null;
  return { folderId: ref.slice(0, colon), relativePath: ref.slice(colon + 1, hash), ordinal: Number(ordinalText) };
}

export function sha256Hex(text: string): string {
  return createHash("sha256").update(text, "utf8").digest("hex");
}

/**
 * Hash of the exact text a chunk's vector is made from (context prefix and content), so a
 * retitled document or a renamed section makes its vectors stale like an edited body does.
 */
export function embedTextHash(chunk: { title: string; section?: string | null | undefined; content: string }): string {
  return sha256Hex(withContextPrefix({ title: chunk.title, section: chunk.section ?? null }, chunk.content));
}
