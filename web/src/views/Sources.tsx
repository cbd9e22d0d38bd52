import { FileText } from "lucide-react";
import type { Turn } from "../hooks/useChat.js";
import { Pill } from "../components/Pill.js";
import type { InspectorTarget } from "./ChunkInspector.js";

/** The chunks a question found, as numbered then: relevance, the label the answer gave each, a switch for Regenerate. */
export function Sources({ turn, editable, onToggle, onOpen }: { turn: Turn; editable: boolean; onToggle: (number: number, included: boolean) => void; onOpen: (target: InspectorTarget) => void }) {
  const labelOf = new Map(turn.labels?.map((entry) => [entry.ref, entry.label]) ?? []);
  return (
    <details className="sources" open>
      <summary>
        Sources <span className="meta">({turn.sources.filter((source) => source.included).length} of {turn.sources.length} on)</span>
      </summary>
      <ul className="source-list" aria-label="Sources">
        {turn.sources.map((source) => {
          const label = labelOf.get(source.ref);
          return (
            <li key={source.ref} className={source.included ? "source" : "source source-off"}>
              <input type="checkbox" className="switch" checked={source.included} disabled={!editable} aria-label={`Use source ${source.number} for the answer`} onChange={(event) => onToggle(source.number, event.target.checked)} />
              <button type="button" className="source-open" onClick={() => onOpen({ ref: source.ref, ...(label ? { via: `${label} in the answer` } : {}) })}>
                <span className="source-number">#{source.number}</span>
                <FileText aria-hidden="true" size={14} />
                <span className="source-name">{source.relativePath}</span>
                {source.location && <span className="meta">{source.location}</span>}
              </button>
              <span className="source-badges">
                {label && <Pill tone="accent" title={`The answer calls this source ${label}`}>{label}</Pill>}
                {source.relevancePercent !== null && <Pill>{source.relevancePercent}%</Pill>}
              </span>
            </li>
          );
        })}
      </ul>
    </details>
  );
}
