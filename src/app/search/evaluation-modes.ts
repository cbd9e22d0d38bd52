import { ChunkpadError } from "../../core/errors.js";

// What `chunkpad eval` compares and prints, by name: parsed from flags without loading the
// evaluation itself (a process that only adds a folder imports this).

export type EvaluationMode = "keyword" | "vector" | "hybrid-weighted" | "hybrid-rrf";
export const EVALUATION_MODES: readonly EvaluationMode[] = ["keyword", "vector", "hybrid-weighted", "hybrid-rrf"];
/** The figures `chunkpad eval` prints, in order. */
export const EVALUATION_METRICS = ["nDCG@10", "recall@10", "recall@100", "MRR@10"] as const;

/** Parses "keyword,hybrid-rrf" into modes; INVALID_ARGUMENT names the valid ones. */
export function parseEvaluationModes(text: string): EvaluationMode[] {
  const modes = text.split(",").map((mode) => mode.trim()).filter(Boolean);
  for (const mode of modes) {
    if (!(EVALUATION_MODES as readonly string[]).includes(mode)) {
      throw new ChunkpadError("INVALID_ARGUMENT", `"${mode}" is not an evaluation mode. Use a comma-separated list of: ${EVALUATION_MODES.join(", ")}.`);
    }
  }
  return modes as EvaluationMode[];
}
