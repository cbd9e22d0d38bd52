import type { SearchReadiness } from "../../index.js";

/** What a server has ready for search: "keyword index in memory; vector index and query model loaded". */
export function describeSearchIndexes(search: SearchReadiness): string {
  const keyword =
    search.keywordIndex === null ? "" : search.keywordIndex.ready ? "keyword index in memory" : `keyword index still reading (${search.keywordIndex.wordsRead.toLocaleString("en")} words so far)`;
  const vectors = { cold: "", loading: "vector index and query model loading", ready: "vector index and query model loaded", "keyword-only": "keywords only (no vectors, or the model cannot load)" }[search.vectors];
  return [keyword, vectors].filter(Boolean).join("; ");
}

/** "ready (…)" or "getting ready (…)", for status. */
export function describeSearchReadiness(search: SearchReadiness): string {
  const parts = describeSearchIndexes(search);
  return `${search.ready ? "ready" : "getting ready, the first searches are slower"}${parts ? ` (${parts})` : ""}`;
}
