import { Archive, FolderMinus, Import } from "lucide-react";
import { useEffect, useState } from "react";
import { remove } from "../../api/client.js";
import type { ExportReport, Folder, ImportReport } from "../../api/types.js";
import { Button } from "../../components/Button.js";
import { Card } from "../../components/Card.js";
import { Dialog, DialogActions } from "../../components/Dialog.js";
import { ProgressBar } from "../../components/ProgressBar.js";
import { useFolders, useRefreshDocuments } from "../../hooks/queries.js";
import { useJob } from "../../hooks/useJob.js";
import { elsewhereReason } from "../folder-elsewhere.js";

/** Remove an added folder; export the index to one archive; import one (paths on this computer). */
export function ArchivePanel({ onMessage, onFolderRemoved }: { onMessage: (text: string, tone: "good" | "bad") => void; onFolderRemoved: () => void }) {
  const folders = useFolders();
  const refresh = useRefreshDocuments();
  const [removing, setRemoving] = useState<Folder | null>(null);
  const [deleteChunkFiles, setDeleteChunkFiles] = useState(false);
  const [exportFile, setExportFile] = useState("~/chunkpad-export.zip");
  const [withSources, setWithSources] = useState(false);
  const [importFile, setImportFile] = useState("");
  const [importInto, setImportInto] = useState("");
  const [busy, setBusy] = useState<string | null>(null);
  const run = async (label: string, work: () => Promise<string>) => {
    setBusy(label);
    try {
      onMessage(await work(), "good");
    } catch (failure) {
      onMessage((failure as Error).message, "bad");
    } finally {
      setBusy(null);
      await refresh();
    }
  };
  const summary = (report: ExportReport | ImportReport) => report.folders.map((folder) => `${folder.rootPath} (${folder.documents} documents, ${folder.chunks} chunks)`).join("; ");
  // Export and import run as server jobs: their progress events drive the bar, their result the message.
  const archiveJob = useJob((result) => {
    const report = result as ExportReport | ImportReport | undefined;
    if (report?.schema === "chunkpad.export/1") onMessage(`Exported to ${report.file} (${((report.bytes ?? 0) / 1024 / 1024).toFixed(1)} MB): ${summary(report)}.`, "good");
    else if (report) onMessage(`Imported ${summary(report)}.`, "good");
    void refresh();
  });
  const failed = archiveJob.outcome?.tone === "bad" ? archiveJob.outcome.text : null;
  useEffect(() => {
    if (failed) onMessage(failed, "bad");
  }, [failed]);
  const archiveBusy = archiveJob.job !== null;
  return (
    <>
      <Card label="Added folders">
        <h4 className="card-title">Added folders</h4>
        {folders.data?.length === 0 && <p className="meta">No folder is added.</p>}
        <ul className="plain-rows">
          {folders.data?.map((folder) => (
            <li key={folder.id} className="card-row">
              <div>
                <span className="break">{folder.rootPath}</span>
                <span className="meta">
                  {folder.documentCount} documents, {folder.storedChunkCount} chunks
                </span>
              </div>
              <Button size="sm" icon={FolderMinus} aria-label={`Remove ${folder.rootPath}`} disabled={elsewhereReason(folder) !== null} title={elsewhereReason(folder) ?? undefined} onClick={() => setRemoving(folder)}>
                Remove…
              </Button>
            </li>
          ))}
        </ul>
      </Card>
      <Card label="Export">
        <div className="card-row">
          <div>
            <h4 className="card-title">Export</h4>
            <p className="meta">Every added folder in one archive: chunks, review state, chunk files and vectors; move it to another computer and import it there.</p>
          </div>
        </div>
        <form
          className="input-row"
          onSubmit={(event) => {
            event.preventDefault();
            void archiveJob.start({ kind: "export", file: exportFile, withSources });
          }}
        >
          <input aria-label="Archive to write" value={exportFile} onChange={(event) => setExportFile(event.target.value)} />
          <label className="toggle-chip">
            <input type="checkbox" checked={withSources} onChange={(event) => setWithSources(event.target.checked)} />
            <span>With the documents</span>
          </label>
          <Button type="submit" icon={Archive} disabled={busy !== null || archiveBusy || exportFile.trim() === ""}>
            Export
          </Button>
        </form>
      </Card>
      <Card label="Import">
        <div className="card-row">
          <div>
            <h4 className="card-title">Import</h4>
            <p className="meta">Restores an archive written by Export into the folder you name (an archive never chooses where its files go): its folders are added with their chunks, review state and vectors.</p>
          </div>
        </div>
        <form
          className="input-row"
          onSubmit={(event) => {
            event.preventDefault();
            void archiveJob.start({ kind: "import", file: importFile, into: importInto });
          }}
        >
          <input aria-label="Archive to import" value={importFile} onChange={(event) => setImportFile(event.target.value)} placeholder="~/chunkpad-export.zip" />
          <input aria-label="Restore into folder" value={importInto} onChange={(event) => setImportInto(event.target.value)} placeholder="~/Documents/restored" />
          <Button type="submit" icon={Import} disabled={busy !== null || archiveBusy || importFile.trim() === "" || importInto.trim() === ""}>
            Import
          </Button>
        </form>
      </Card>
      {busy && <ProgressBar value={null} label={`${busy}…`} />}
      {archiveJob.progress && <ProgressBar value={archiveJob.progress.value} label={archiveJob.progress.label} />}
      <Dialog title="Remove this folder?" open={removing !== null} onClose={() => setRemoving(null)}>
        <p className="break">{removing?.rootPath}</p>
        <p>Its chunks, vectors and review state leave Chunkpad. The documents themselves are never touched.</p>
        <label className="check-row">
          <input type="checkbox" checked={deleteChunkFiles} onChange={(event) => setDeleteChunkFiles(event.target.checked)} /> Also delete its _chunks folder (hand edits included)
        </label>
        <DialogActions>
          <Button onClick={() => setRemoving(null)}>Keep it</Button>
          <Button
            variant="danger"
            onClick={() => {
              const folder = removing;
              setRemoving(null);
              if (!folder) return;
              void run("Removing", async () => {
                await remove(`/api/folders/${encodeURIComponent(folder.id)}?deleteChunkFiles=${deleteChunkFiles}`);
                onFolderRemoved();
                return `Removed ${folder.rootPath}.`;
              });
            }}
          >
            Remove folder
          </Button>
        </DialogActions>
      </Dialog>
    </>
  );
}
