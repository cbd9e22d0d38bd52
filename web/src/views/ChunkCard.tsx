import { Maximize2, Pencil } from "lucide-react";
import { useState } from "react";
import { get, post, put } from "../api/client.js";
import type { ChunkState, ChunkView } from "../api/types.js";
import { Button, IconButton } from "../components/Button.js";
import { Pill } from "../components/Pill.js";
import { useRefreshDocuments } from "../hooks/queries.js";

const EMBED_TONE = { embedded: "good", modified: "warn", new: "neutral" } as const;

/** One chunk: its whole text, its switch, its states, and inline editing of its chunk file. */
export function ChunkCard({ chunk, onOpen }: { chunk: ChunkState; onOpen: () => void }) {
  const refresh = useRefreshDocuments();
  const [included, setIncluded] = useState<boolean | null>(null);
  const [editing, setEditing] = useState<{ text: string; baseHash: string } | null>(null);
  const [message, setMessage] = useState<{ tone: "good" | "bad"; text: string } | null>(null);
  const shown = included ?? chunk.included;
  const toggle = async (next: boolean) => {
    // Shown at once; the server's answer (or a failure) settles it.
    setIncluded(next);
    try {
      await post("/api/review", { targets: [chunk.ref], included: next });
    } catch (failure) {
      setMessage({ tone: "bad", text: (failure as Error).message });
    }
    await refresh();
    setIncluded(null);
  };
  const edit = async () => {
    setMessage(null);
    try {
      const view = await get<ChunkView>(`/api/chunks/${encodeURIComponent(chunk.ref)}?neighbours=0`);
      setEditing({ text: view.chunk.text, baseHash: view.chunk.contentHash });
    } catch (failure) {
      setMessage({ tone: "bad", text: (failure as Error).message });
    }
  };
  const save = async () => {
    if (!editing) return;
    try {
      await put(`/api/chunks/${encodeURIComponent(chunk.ref)}`, editing);
      setEditing(null);
      setMessage({ tone: "good", text: "Saved to the chunk file." });
      void refresh();
    } catch (failure) {
      setMessage({ tone: "bad", text: (failure as Error).message });
    }
  };
  return (
    <li className={shown ? "chunk-card card" : "chunk-card card chunk-excluded"}>
      <div className="chunk-card-header">
        <label className="switch-label">
          <input type="checkbox" className="switch" checked={shown} aria-label={`Include chunk ${chunk.ordinal}`} onChange={(event) => void toggle(event.target.checked)} />
          <strong>Chunk {chunk.ordinal}</strong>
        </label>
        <div className="pill-row">
          {chunk.location && <Pill>{chunk.location}</Pill>}
          {chunk.section && <Pill title="Section">{chunk.section}</Pill>}
          <Pill tone={EMBED_TONE[chunk.embedState]}>{chunk.embedState}</Pill>
        </div>
        <div className="chunk-card-actions">
          {!editing && <IconButton label={`Edit chunk ${chunk.ordinal}`} icon={Pencil} onClick={() => void edit()} />}
          <IconButton label={`Open chunk ${chunk.ordinal} in the inspector`} icon={Maximize2} onClick={onOpen} />
        </div>
      </div>
      {editing ? (
        <div className="editor">
          <label htmlFor={`edit-${chunk.ref}`} className="field-label">
            Text of chunk {chunk.ordinal}
          </label>
          <textarea id={`edit-${chunk.ref}`} rows={Math.min(18, Math.max(6, editing.text.split("\n").length + 1))} value={editing.text} onChange={(event) => setEditing({ ...editing, text: event.target.value })} />
          <div className="button-row button-row-end">
            <Button onClick={() => setEditing(null)}>Cancel</Button>
            <Button variant="primary" onClick={() => void save()}>
              Save chunk {chunk.ordinal}
            </Button>
          </div>
        </div>
      ) : (
        <p className="chunk-text">{chunk.text ?? chunk.preview}</p>
      )}
      {message && (
        <p role={message.tone === "bad" ? "alert" : "status"} className={`notice notice-${message.tone}`}>
          {message.text}
        </p>
      )}
    </li>
  );
}
