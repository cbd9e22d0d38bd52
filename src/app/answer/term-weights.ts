import type { KeywordQuery } from "../../core/keyword-query.js";
import { coverageClauses, rarity } from "../../rag/question-similarity.js";
import type { MainStore } from "../../store/index.js";

/**
 * The guardrail's term weights for a question: each search term weighs by how rare it is among
 * the included chunks, so a chunk that shares only the question's common words ("what", "year",
 * "people" survive the stop list) no longer looks like it answers it. One count per term, from
 * the keyword index. A small folder says little about which words are common (in two documents
 * about a warranty, "warranty" is in every chunk), so rarity is measured as if the folder held
 * at least MIN_COLLECTION_CHUNKS chunks: there a word in a handful of chunks is still rare.
 */
const MIN_COLLECTION_CHUNKS = 1000;

export async function questionTermWeights(store: MainStore, question: string): Promise<number[]> {
  const clauses = coverageClauses(question);
  if (clauses.length === 0) return [];
  const { chunks: total } = await store.embedCoverage();
  return Promise.all(
    clauses.map(async (clause) => {
      const query: KeywordQuery =
        clause.kind === "term"
          ? { terms: [{ word: clause.words[0] ?? "", prefix: Array.from(clause.words[0] ?? "").length >= 3 }], match: "all", phrases: [], exclude: [] }
          : { terms: [], match: "all", phrases: [clause.words], exclude: [] };
      return rarity(await store.countKeywordMatches(query), Math.max(total, MIN_COLLECTION_CHUNKS));
    }),
  );
}
