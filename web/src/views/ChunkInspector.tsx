import { lazy, Suspense } from "react";
import { useQuery } from "@tanstack/react-query";
import { get } from "../api/client.js";
import type { ChunkView, SearchResult } from "../api/types.js";
import { Pill } from "../components/Pill.js";
import { Skeleton } from "../components/Skeleton.js";
import { ScoreTable } from "./ScoreTable.js";

// pdf.js is large: loaded the first time a PDF page is shown.
const PdfPage = lazy(async () => ({ default: (await import("../PdfPage.js")).PdfPage }));

/** What the inspector shows: a chunk, with the search scores that found it when it came from a search. */
export interface InspectorTarget {
  ref: string;
  result?: SearchResult;
  /** "C2 in the answer" when opened from a citation. */
  via?: string;
}

/** A chunk in full: its text, its document's page (PDFs, the text highlighted), metadata and scores. */
export function ChunkInspector({ target }: { target: InspectorTarget }) {
  const view = useQuery({ queryKey: ["chunk", target.ref], queryFn: () => get<ChunkView>(`/api/chunks/${encodeURIComponent(target.ref)}?neighbours=0`) });
  if (view.error) return <p role="alert" className="notice notice-bad">{view.error.message}</p>;
  if (!view.data) return <Skeleton lines={6} label="Loading the chunk" />;
  const chunk = view.data.chunk;
  const isPdf = chunk.relativePath.toLowerCase().endsWith(".pdf") && chunk.page !== null;
  return (
    <div className="chunk-inspector">
      <h3 className="inspector-file">{chunk.relativePath}</h3>
      <div className="pill-row">
        {target.via && <Pill tone="accent">{target.via}</Pill>}
        {chunk.location && <Pill>{chunk.location}</Pill>}
        <Pill tone={chunk.included ? "good" : "neutral"}>{chunk.included ? "included" : "excluded"}</Pill>
      </div>
      <dl className="metadata">
        <dt>Document</dt>
        <dd>{chunk.documentTitle}</dd>
        {chunk.section && (
          <>
            <dt>Section</dt>
            <dd>{chunk.section}</dd>
          </>
        )}
        <dt>Chunk</dt>
        <dd>
          {chunk.ordinal} <span className="meta">({chunk.ref})</span>
        </dd>
        {chunk.folderPath && (
          <>
            <dt>Folder</dt>
            <dd className="break">{chunk.folderPath}</dd>
          </>
        )}
      </dl>
      <h4 className="inspector-heading">Text</h4>
      <p className="chunk-text">{chunk.text}</p>
      {target.result && (
        <>
          <h4 className="inspector-heading">Scores</h4>
          <ScoreTable result={target.result} />
        </>
      )}
      {isPdf && (
        <>
          <h4 className="inspector-heading">Source page</h4>
          <Suspense fallback={<Skeleton lines={8} label="Loading the page" />}>
            <PdfPage documentId={chunk.documentId} page={chunk.page as number} chunkText={chunk.text} label={`Page ${chunk.page} of ${chunk.relativePath}, the cited text highlighted`} />
          </Suspense>
        </>
      )}
    </div>
  );
}
