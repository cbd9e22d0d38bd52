import { FileText } from "lucide-react";
import type { ReactNode } from "react";
import type { SearchResult } from "../api/types.js";
import { Pill } from "../components/Pill.js";
import { ScoreTable } from "./ScoreTable.js";

/** The query's words marked in a text (case and accents as typed do not matter). */
export function highlight(text: string, query: string): ReactNode[] {
  const words = [...new Set(query.toLowerCase().match(/[\p{L}\p{N}]{2,}/gu) ?? [])].sort((a, b) => b.length - a.length);
  if (words.length === 0) return [text];
  const escaped = words.map((word) => word.replace(/[.*+?^${}()|[\]\\]/g, "\\$&"));
  const pattern = new RegExp(`(${escaped.join("|")})`, "giu");
  return text.split(pattern).map((part, index) => (index % 2 === 1 ? <mark key={index}>{part}</mark> : part));
}

/** One result: document, place, relevance, the snippet with the words found; scores behind Explain. */
export function ResultCard({ result, query, explain, onOpen }: { result: SearchResult; query: string; explain: boolean; onOpen: () => void }) {
  return (
    <li className="result card">
      <button type="button" className="result-open" onClick={onOpen}>
        <span className="result-title">
          <FileText aria-hidden="true" size={16} />
          <span className="result-name">{result.relativePath}</span>
        </span>
        <span className="result-meta">
          {result.documentTitle !== result.relativePath && <span className="meta result-doc">{result.documentTitle}</span>}
          {result.location && <Pill>{result.location}</Pill>}
          {result.section && <Pill>{result.section}</Pill>}
        </span>
      </button>
      <span className="relevance" role="img" aria-label={`Relevance ${result.relevancePercent}%`}>
        <span className="relevance-bar" style={{ width: `${Math.max(4, result.relevancePercent)}%` }} />
        <span className="relevance-text">{result.relevancePercent}%</span>
      </span>
      <p className="snippet">{highlight(result.snippet, query)}</p>
      {result.moreInDocument && result.moreInDocument.length > 0 && <p className="meta">{result.moreInDocument.length} more in this document</p>}
      {explain && <ScoreTable result={result} />}
    </li>
  );
}
