import type { ChunkRef } from "../../core/types.js";
import type { EmbedStateRow } from "../../store/index.js";

/**
 * What `chunkpad embed` has to do for one folder, decided from the database alone (pure):
 * included chunks whose vector is missing, was made from other text, or carries another stamp
 * get embedded; excluded chunks lose their vector; the rest is left alone.
 */

export interface EmbedPlan {
  /** Included chunks that are new, edited since embedding, or embedded with other settings. */
  toEmbed: ChunkRef[];
  /** Excluded chunks that still have a vector. */
  toRemove: ChunkRef[];
  /** Included chunks whose vector is current. */
  unchanged: number;
  /** Excluded chunks (with or without a vector). */
  excluded: number;
}

/** `stamp` is the vector stamp of this run; null when it is not known yet (the model is not loaded): then only text and review state count. */
export function planEmbedding(rows: readonly EmbedStateRow[], stamp: string | null): EmbedPlan {
  const plan: EmbedPlan = { toEmbed: [], toRemove: [], unchanged: 0, excluded: 0 };
  for (const row of rows) {
    if (!row.included) {
      plan.excluded += 1;
      if (row.embeddedHash !== null) plan.toRemove.push(row.ref);
      continue;
    }
    const current = row.embeddedHash === row.embedHash && (stamp === null || row.embeddedFingerprint === stamp);
    if (current) plan.unchanged += 1;
    else plan.toEmbed.push(row.ref);
  }
  return plan;
}

/** Splits a list into runs of at most `size`. */
export function inBatches<T>(items: readonly T[], size: number): T[][] {
  const batches: T[][] = [];
  for (let start = 0; start < items.length; start += size) batches.push(items.slice(start, start + size));
  return batches;
}
