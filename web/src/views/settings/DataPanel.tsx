import { RefreshCw, Trash2 } from "lucide-react";
import { useState } from "react";
import { post } from "../../api/client.js";
import { Button } from "../../components/Button.js";
import { Card } from "../../components/Card.js";
import { Dialog, DialogActions } from "../../components/Dialog.js";
import { ProgressBar } from "../../components/ProgressBar.js";
import { useFolders, useRefreshDocuments } from "../../hooks/queries.js";
import { useJob } from "../../hooks/useJob.js";

const CONFIRMATION = "delete all data";

/** Data: sync the folders with the disk (with progress), clear Chunkpad's data. */
export function DataPanel({ onMessage, onFolderRemoved }: { onMessage: (text: string, tone: "good" | "bad") => void; onFolderRemoved: () => void }) {
  const folders = useFolders();
  const refresh = useRefreshDocuments();
  const sync = useJob(refresh);
  const [open, setOpen] = useState(false);
  const [typed, setTyped] = useState("");
  const [also, setAlso] = useState({ models: false, keys: false, chunkFiles: false });
  const clear = async () => {
    try {
      const report = await post<{ deleted: Array<{ kind: string; target: string }>; failed: Array<{ target: string; reason: string }> }>("/api/reset", { confirm: typed, ...also });
      setOpen(false);
      setTyped("");
      onMessage(
        report.failed.length === 0
          ? `Deleted ${report.deleted.length} item${report.deleted.length === 1 ? "" : "s"}. Your documents were not touched; add a folder to start again.`
          : `Some items could not be deleted: ${report.failed.map((failure) => `${failure.target} (${failure.reason})`).join("; ")}.`,
        report.failed.length === 0 ? "good" : "bad",
      );
      onFolderRemoved();
      await refresh();
    } catch (failure) {
      onMessage((failure as Error).message, "bad");
    }
  };
  return (
    <>
      <Card label="Sync">
        <div className="card-row">
          <div>
            <h4 className="card-title">Sync every folder</h4>
            <p className="meta">Reads what changed on disk in {folders.data?.length ?? 0} folder{folders.data?.length === 1 ? "" : "s"}: new, changed and deleted documents, and chunk files edited elsewhere.</p>
          </div>
          <Button icon={RefreshCw} disabled={sync.job !== null} onClick={() => void sync.start({ kind: "sync" })}>
            Sync now
          </Button>
        </div>
        {sync.progress && <ProgressBar value={sync.progress.value} label={sync.progress.label} />}
        {sync.progress && <p className="meta">{sync.progress.label}</p>}
        {sync.outcome && (
          <p role={sync.outcome.tone === "bad" ? "alert" : "status"} className={`notice notice-${sync.outcome.tone}`}>
            Sync: {sync.outcome.text}
          </p>
        )}
      </Card>
      <Card label="Clear all data">
        <div className="card-row">
          <div>
            <h4 className="card-title">Clear all data</h4>
            <p className="meta">Deletes Chunkpad's database (chunks, vectors, review state), chat history, settings and the list of added folders. Your documents are never touched.</p>
          </div>
          <Button variant="danger" icon={Trash2} onClick={() => setOpen(true)}>
            Clear all data…
          </Button>
        </div>
      </Card>
      <Dialog title="Clear all data?" open={open} onClose={() => setOpen(false)}>
        <p>This cannot be undone. Chunk files you edited stay in each folder's _chunks unless you tick them below.</p>
        <label className="check-row">
          <input type="checkbox" checked={also.models} onChange={(event) => setAlso({ ...also, models: event.target.checked })} /> Also the downloaded models
        </label>
        <label className="check-row">
          <input type="checkbox" checked={also.keys} onChange={(event) => setAlso({ ...also, keys: event.target.checked })} /> Also the stored API keys
        </label>
        <label className="check-row">
          <input type="checkbox" checked={also.chunkFiles} onChange={(event) => setAlso({ ...also, chunkFiles: event.target.checked })} /> Also every folder's _chunks (hand edits included)
        </label>
        <label htmlFor="clear-confirm" className="field-label">
          Type "{CONFIRMATION}" to confirm
        </label>
        <input id="clear-confirm" value={typed} onChange={(event) => setTyped(event.target.value)} autoComplete="off" />
        <DialogActions>
          <Button onClick={() => setOpen(false)}>Keep my data</Button>
          <Button variant="danger" disabled={typed.trim() !== CONFIRMATION} onClick={() => void clear()}>
            Delete everything
          </Button>
        </DialogActions>
      </Dialog>
    </>
  );
}
