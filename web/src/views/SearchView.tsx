import { withNextSteps } from "../nextStep.js";
import { useQuery } from "@tanstack/react-query";
import { FileSearch, Search as SearchIcon, X } from "lucide-react";
import { useState } from "react";
import { get } from "../api/client.js";
import type { Folder, SearchReport } from "../api/types.js";
import { Button } from "../components/Button.js";
import { EmptyState } from "../components/EmptyState.js";
import { Skeleton } from "../components/Skeleton.js";
import { Toolbar } from "../components/Toolbar.js";
import type { InspectorTarget } from "./ChunkInspector.js";
import { ResultCard } from "./ResultCard.js";

const MODES = [
  { id: "auto", label: "Best" },
  { id: "keyword", label: "Keyword" },
  { id: "vector", label: "Meaning" },
  { id: "hybrid", label: "Hybrid" },
] as const;

interface Query {
  q: string;
  mode: string;
  folder: string;
  document: string;
}

const urlOf = (query: Query) =>
  `/api/search?q=${encodeURIComponent(query.q)}${query.mode === "auto" ? "" : `&mode=${query.mode}`}${query.folder ? `&folder=${encodeURIComponent(query.folder)}` : ""}${query.document ? `&document=${encodeURIComponent(query.document)}` : ""}`;

/** Search: a query, its mode and filters as chips, result cards that open in the inspector. */
export function SearchView({ folders, onOpen }: { folders: Folder[]; onOpen: (target: InspectorTarget) => void }) {
  const [draft, setDraft] = useState<Query>({ q: "", mode: "auto", folder: "", document: "" });
  const [query, setQuery] = useState<Query | null>(null);
  const [explain, setExplain] = useState(false);
  const search = useQuery({ queryKey: ["search", query], enabled: query !== null, queryFn: () => get<SearchReport>(urlOf(query as Query)), placeholderData: (previous) => previous });
  const report = search.data;
  const run = (change: Partial<Query> = {}) => {
    const next = { ...draft, ...change, document: (change.document ?? draft.document).trim() };
    setDraft(next);
    if (next.q.trim() !== "") setQuery(next);
  };
  if (folders.length === 0) {
    return (
      <div className="view">
        <Toolbar title="Search" />
        <div className="view-body">
          <EmptyState icon={FileSearch} title="Nothing to search yet">Add a folder under Documents first.</EmptyState>
        </div>
      </div>
    );
  }
  return (
    <div className="view">
      <Toolbar title="Search" subtitle={report && query ? `${report.results.length} result${report.results.length === 1 ? "" : "s"} · ${report.mode}${report.fusion ? ` · ${report.fusion}` : ""}` : "Keyword, meaning, or both"} />
      <div className="view-body">
        <form
          className="search-bar"
          role="search"
          onSubmit={(event) => {
            event.preventDefault();
            run();
          }}
        >
          <div className="search-input">
            <SearchIcon aria-hidden="true" size={18} />
            <label htmlFor="search-query" className="visually-hidden">
              Search your documents
            </label>
            <input id="search-query" type="search" value={draft.q} onChange={(event) => setDraft({ ...draft, q: event.target.value })} placeholder="Search your documents" autoComplete="off" />
            <Button type="submit" variant="primary">
              Search
            </Button>
          </div>
          <div className="filter-row">
            <div className="segmented" role="radiogroup" aria-label="Mode">
              {MODES.map((mode) => (
                <button key={mode.id} type="button" role="radio" aria-checked={draft.mode === mode.id} className="segment" onClick={() => run({ mode: mode.id })}>
                  {mode.label}
                </button>
              ))}
            </div>
            <label className="chip-select">
              <span className="visually-hidden">In folder</span>
              <select aria-label="In folder" value={draft.folder} onChange={(event) => run({ folder: event.target.value })}>
                <option value="">Every folder</option>
                {folders.map((folder) => (
                  <option key={folder.id} value={folder.id}>
                    {folder.rootPath}
                  </option>
                ))}
              </select>
            </label>
            <div className="chip-input">
              <input aria-label="Only in document" value={draft.document} onChange={(event) => setDraft({ ...draft, document: event.target.value })} placeholder="Only in document…" />
              {draft.document && <button type="button" className="chip-clear" aria-label="Search every document" onClick={() => run({ document: "" })}><X aria-hidden="true" size={12} /></button>}
            </div>
            <label className="toggle-chip">
              <input type="checkbox" checked={explain} onChange={(event) => setExplain(event.target.checked)} />
              <span>Explain</span>
            </label>
          </div>
        </form>
        {search.error && <p role="alert" className="notice notice-bad">{search.error.message}</p>}
        {search.isFetching && !report && <Skeleton lines={6} label="Searching" />}
        {report && query && (
          <section aria-label="Search results" className="results-section">
            {explain && (
              <div className="explain-box">
                {report.keywordQuery && <p>keyword query: <code>{report.keywordQuery}</code></p>}
                {report.rerank && <p>reranked {report.rerank.scored} of {report.rerank.candidates} by {report.rerank.model} in {Math.round(report.rerank.durationMs)} ms</p>}
              </div>
            )}
            {report.notices.map((notice) => (
              <p key={notice.message} className="notice notice-info">
                {withNextSteps(notice.message, notice.nextSteps)}
              </p>
            ))}
            {report.results.length === 0 ? (
              <EmptyState icon={FileSearch} title="No chunk matches">Try other words, the Meaning mode once the folder is embedded, or fewer filters.</EmptyState>
            ) : (
              <ol className="results">
                {report.results.map((result) => (
                  <ResultCard key={result.ref} result={result} query={query.q} explain={explain} onOpen={() => onOpen({ ref: result.ref, result })} />
                ))}
              </ol>
            )}
          </section>
        )}
      </div>
    </div>
  );
}
