import type { SearchResult } from "../api/types.js";

/** The numbers behind a result's place: each stage's score and rank. */
export function ScoreTable({ result }: { result: SearchResult }) {
  const rows: Array<[string, string]> = [
    ["Relevance", `${result.relevancePercent}%`],
    ["Score", result.score.toFixed(3)],
    ...(result.distance !== undefined ? [["Vector distance", `${result.distance.toFixed(3)} (rank ${result.vectorRank ?? "–"})`] as [string, string]] : []),
    ...(result.keywordScore !== undefined ? [["Keyword score", `${result.keywordScore.toPrecision(3)} (rank ${result.keywordRank ?? "–"})`] as [string, string]] : []),
    ...(result.fusedScore !== undefined ? [["Fused", result.fusedScore.toFixed(3)] as [string, string]] : []),
    ...(result.rerankScore !== undefined ? [["Rerank", `${result.rerankScore.toFixed(3)} (rank ${result.rerankRank ?? "–"})`] as [string, string]] : []),
    ...(result.moreInDocument && result.moreInDocument.length > 0 ? [["More in this document", String(result.moreInDocument.length)] as [string, string]] : []),
  ];
  return (
    <dl className="scores">
      {rows.map(([name, value]) => (
        <div key={name} className="score-row">
          <dt>{name}</dt>
          <dd>{value}</dd>
        </div>
      ))}
    </dl>
  );
}
