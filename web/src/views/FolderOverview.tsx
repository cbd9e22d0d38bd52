import { CheckSquare, Square, UploadCloud } from "lucide-react";
import type { Folder } from "../api/types.js";
import { Button } from "../components/Button.js";
import { Card } from "../components/Card.js";
import { EmptyState } from "../components/EmptyState.js";

/** A folder at a glance: its counts, the whole-folder review, and where to drop documents. */
export function FolderOverview({ folder, onReview }: { folder: Folder; onReview: (included: boolean) => void }) {
  const stats = [
    { label: "Documents", value: folder.documentCount },
    { label: "Chunks", value: folder.storedChunkCount },
    { label: "Included", value: folder.includedChunkCount },
    { label: "Embedded", value: folder.embeddedChunkCount },
    ...(folder.modifiedChunkCount > 0 ? [{ label: "Edited since embedding", value: folder.modifiedChunkCount }] : []),
    ...(folder.failedCount > 0 ? [{ label: "Failed", value: folder.failedCount }] : []),
  ];
  return (
    <div className="overview">
      <ul className="stats" aria-label="Folder statistics">
        {stats.map((stat) => (
          <li key={stat.label} className="stat">
            <span className="stat-value">{stat.value}</span>
            <span className="stat-label">{stat.label}</span>
          </li>
        ))}
      </ul>
      <Card label="Whole folder">
        <div className="card-row">
          <div>
            <h3 className="card-title">Whole folder</h3>
            <p className="meta">Switch every chunk of this folder on or off for search and answers.</p>
          </div>
          <div className="button-row">
            <Button icon={Square} aria-label="Exclude all chunks of this folder" onClick={() => onReview(false)}>
              Exclude all
            </Button>
            <Button icon={CheckSquare} aria-label="Include all chunks of this folder" onClick={() => onReview(true)}>
              Include all
            </Button>
          </div>
        </div>
      </Card>
      <div className="dropzone">
        <EmptyState icon={UploadCloud} title="Drop documents here">
          They are copied into the folder and processed at once. Choose a file in the sidebar's tree to read, edit and switch its chunks.
        </EmptyState>
      </div>
    </div>
  );
}
