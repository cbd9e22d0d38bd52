import { CheckSquare, ExternalLink, RefreshCw, Square, X } from "lucide-react";
import { useState } from "react";
import { post } from "../api/client.js";
import type { Folder } from "../api/types.js";
import { Button, IconButton } from "../components/Button.js";
import { Pill } from "../components/Pill.js";
import { Skeleton } from "../components/Skeleton.js";
import { useChunks, useRefreshDocuments, useTree } from "../hooks/queries.js";
import { ChunkCard } from "./ChunkCard.js";
import type { InspectorTarget } from "./ChunkInspector.js";
import { ConflictNote } from "./ConflictNote.js";
import { PasswordForm } from "./PasswordForm.js";
import { fileBadges, filesOf, plural } from "./FolderTree.js";

/** One document's chunks: the full text of each, its switch, inline editing; the file's own actions. */
export function FileView({ folder, file, onClose, onOpenChunk, onReprocess }: { folder: Folder; file: string; onClose: () => void; onOpenChunk: (target: InspectorTarget) => void; onReprocess: (password?: string) => void }) {
  const tree = useTree(folder.id);
  const chunks = useChunks(folder.id, file);
  const refresh = useRefreshDocuments();
  const [message, setMessage] = useState<{ tone: "good" | "bad"; text: string } | null>(null);
  const entry = tree.data ? filesOf(tree.data.tree).find((candidate) => candidate.path === file) : undefined;
  const anyEmbedded = tree.data ? filesOf(tree.data.tree).some((candidate) => candidate.embeddedCount + candidate.modifiedCount > 0) : false;
  const setAll = async (included: boolean) => {
    try {
      await post("/api/review", { targets: [file], included, folders: [folder.id] });
    } catch (failure) {
      setMessage({ tone: "bad", text: (failure as Error).message });
    }
    await refresh();
  };
  return (
    <section className="file-view" aria-label={`Document ${file}`}>
      <header className="file-header">
        <div className="file-heading">
          <h3 className="file-title">{file}</h3>
          <div className="pill-row">
            {entry && !entry.failed && <Pill>{plural(entry.chunkCount, "chunk")}</Pill>}
            {entry && fileBadges(entry, anyEmbedded).map((badge) => <Pill key={badge.text} tone={badge.tone}>{badge.text}</Pill>)}
          </div>
        </div>
        <div className="button-row">
          <Button size="sm" icon={Square} onClick={() => void setAll(false)} aria-label={`Exclude all chunks of ${file}`}>
            Exclude all
          </Button>
          <Button size="sm" icon={CheckSquare} onClick={() => void setAll(true)} aria-label={`Include all chunks of ${file}`}>
            Include all
          </Button>
          <Button size="sm" icon={RefreshCw} onClick={() => onReprocess()} aria-label={`Re-process ${file}`}>
            Re-process
          </Button>
          {entry && !entry.failed && (
            <a className="button button-default button-sm" href={`/api/documents/${encodeURIComponent(file)}/source`} target="_blank" rel="noreferrer">
              <ExternalLink aria-hidden="true" size={14} />
              <span>Open source</span>
            </a>
          )}
          <IconButton label="Close the file" icon={X} onClick={onClose} />
        </div>
      </header>
      {message && <p role={message.tone === "bad" ? "alert" : "status"} className={`notice notice-${message.tone}`}>{message.text}</p>}
      {entry?.failed && (
        <div className="notice notice-bad" role="note" aria-label={`Why ${file} failed`}>
          <p>
            <strong>{file} could not be read</strong> ({entry.failed.code}): {entry.failed.message}
          </p>
          {entry.failed.code === "PARSE_ENCRYPTED" || entry.failed.code === "PARSE_WRONG_PASSWORD" ? (
            <PasswordForm file={file} onSubmit={onReprocess} />
          ) : (
            <p className="meta">Fix or replace the file, then choose Process changes. Other files are not affected.</p>
          )}
        </div>
      )}
      {entry?.conflict && <ConflictNote folder={folder} file={file} onSettled={(text) => setMessage({ tone: "good", text })} onError={(text) => setMessage({ tone: "bad", text })} />}
      {chunks.error && <p role="alert" className="notice notice-bad">{chunks.error.message}</p>}
      {chunks.isPending && <Skeleton lines={5} label="Loading the chunks" />}
      {chunks.data && chunks.data.length > 0 && (
        <ol className="chunk-list" aria-label={`Chunks of ${file}`}>
          {chunks.data.map((chunk) => (
            <ChunkCard key={chunk.ref} chunk={chunk} onOpen={() => onOpenChunk({ ref: chunk.ref })} />
          ))}
        </ol>
      )}
    </section>
  );
}
