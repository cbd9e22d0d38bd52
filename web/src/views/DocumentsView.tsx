import { FolderPlus, RefreshCw, Sparkles, Upload, X } from "lucide-react";
import { useEffect, useState } from "react";
import { post, uploadFile } from "../api/client.js";
import type { Folder } from "../api/types.js";
import { Button } from "../components/Button.js";
import { Dialog } from "../components/Dialog.js";
import { EmptyState } from "../components/EmptyState.js";
import { ProgressBar } from "../components/ProgressBar.js";
import { Skeleton } from "../components/Skeleton.js";
import { Toolbar } from "../components/Toolbar.js";
import { useRefreshDocuments, useStatus } from "../hooks/queries.js";
import { useJob } from "../hooks/useJob.js";
import { AddFolderForm } from "./AddFolderForm.js";
import { EmbedDialog } from "./EmbedDialog.js";
import { FileView } from "./FileView.js";
import { FolderOverview } from "./FolderOverview.js";
import type { InspectorTarget } from "./ChunkInspector.js";
import { elsewhereReason } from "./folder-elsewhere.js";

/** Documents: the chosen folder (its toolbar, jobs, drop zone) and the file chosen in the sidebar's tree. */
export function DocumentsView({ folders, folder, file, onFile, addFolderOpen, onAddFolderOpen, onOpenChunk }: {
  folders: Folder[] | null; folder: Folder | null; file: string | null; onFile: (path: string | null) => void;
  addFolderOpen: boolean; onAddFolderOpen: (open: boolean) => void; onOpenChunk: (target: InspectorTarget) => void;
}) {
  const refresh = useRefreshDocuments();
  const { job, progress, outcome, start, attach, cancel } = useJob(refresh);
  const status = useStatus();
  const [consentOpen, setConsentOpen] = useState(false);
  const [dragging, setDragging] = useState(false);
  const [uploadMessage, setUploadMessage] = useState<{ tone: "good" | "bad"; text: string } | null>(null);
  // A folder another machine owns is searched here but processed there (decision 056).
  const elsewhere = folder ? elsewhereReason(folder) : null;
  // A process or embed job still running (started in a tab since closed) is shown again.
  const running = status.data?.runningJobs.find((candidate) => candidate.kind !== "ask");
  const runningId = running?.id ?? null;
  useEffect(() => {
    if (running && runningId !== null) attach(running);
  }, [runningId]);


  /** Copies dropped or chosen files into the folder, then processes it. */
  const upload = async (files: File[]) => {
    if (!folder || files.length === 0) return;
    if (elsewhere !== null) return setUploadMessage({ tone: "bad", text: elsewhere });
    const problems: string[] = [];
    for (const one of files) await uploadFile(folder.id, one).catch((failure: Error) => problems.push(`${one.name}: ${failure.message}`));
    setUploadMessage(problems.length === 0 ? { tone: "good", text: `Copied ${files.length} file${files.length === 1 ? "" : "s"} into the folder.` } : { tone: "bad", text: problems.join(" ") });
    if (problems.length < files.length) await start({ kind: "process", folder: folder.rootPath });
  };
  const addFolder = (path: string) => {
    onAddFolderOpen(false);
    void start({ kind: "process", folder: path });
  };
  const review = async (included: boolean) => {
    if (!folder) return;
    try {
      await post("/api/review", { targets: [folder.rootPath], included });
    } catch (failure) {
      setUploadMessage({ tone: "bad", text: (failure as Error).message });
    }
    await refresh();
  };

  const jobStrip = (
    <>
      {progress && (
        <div className="job-strip" aria-live="polite">
          <div className="job-strip-text">
            <span>{progress.label}</span>
            <Button size="sm" icon={X} onClick={() => void cancel()}>
              Cancel
            </Button>
          </div>
          <ProgressBar value={progress.value} label={progress.label} />
        </div>
      )}
      {outcome && (
        <p role={outcome.tone === "bad" ? "alert" : "status"} className={`notice notice-${outcome.tone}`}>
          {outcome.text}
        </p>
      )}
      {uploadMessage && (
        <p role={uploadMessage.tone === "bad" ? "alert" : "status"} className={`notice notice-${uploadMessage.tone}`}>
          {uploadMessage.text}
        </p>
      )}
    </>
  );
  const addDialog = (
    <Dialog title="Add a folder" description="Chunkpad reads the documents in it and writes their chunks into its _chunks folder. Your documents are never changed." open={addFolderOpen} onClose={() => onAddFolderOpen(false)} wide>
      <AddFolderForm busy={job !== null} onAdd={addFolder} />
    </Dialog>
  );

  if (folders === null) return <Skeleton lines={6} label="Loading the folders" />;
  if (folder === null) {
    return (
      <div className="view">
        <Toolbar title="Documents" />
        <div className="view-body">
          <EmptyState icon={FolderPlus} title="No folder yet" action={<AddFolderForm busy={job !== null} onAdd={addFolder} />}>
            Add a folder of documents (PDF, Word, Markdown, e-mail…). Chunkpad splits each into chunks you can read, edit and switch off, then searches and answers from them on this computer.
          </EmptyState>
          {jobStrip}
        </div>
        {addDialog}
      </div>
    );
  }
  return (
    <div
      className={dragging ? "view dropping" : "view"}
      onDragOver={(event) => {
        event.preventDefault();
        setDragging(true);
      }}
      onDragLeave={(event) => {
        if (!event.currentTarget.contains(event.relatedTarget as Node | null)) setDragging(false);
      }}
      onDrop={(event) => {
        event.preventDefault();
        setDragging(false);
        void upload(Array.from(event.dataTransfer.files));
      }}
    >
      <Toolbar title={folder.rootPath.split(/[\\/]/).filter(Boolean).at(-1) ?? folder.rootPath} subtitle={folder.rootPath}>
        <label className="button button-default button-md upload" title={elsewhere ?? "Copy documents into this folder"} aria-disabled={elsewhere !== null ? "true" : undefined}>
          <Upload aria-hidden="true" size={16} />
          <span>Upload</span>
          <input type="file" multiple className="visually-hidden" aria-label="Upload files into this folder" disabled={elsewhere !== null} onChange={(event) => void upload(Array.from(event.target.files ?? []))} />
        </label>
        <Button icon={RefreshCw} disabled={job !== null || elsewhere !== null} title={elsewhere ?? undefined} onClick={() => void start({ kind: "process", folder: folder.rootPath })}>
          Process changes
        </Button>
        <Button icon={Sparkles} variant="primary" disabled={job !== null || elsewhere !== null} title={elsewhere ?? undefined} onClick={() => setConsentOpen(true)}>
          Embed selected
        </Button>
      </Toolbar>
      <div className="view-body">
        {elsewhere && <p className="meta" role="note">{elsewhere}</p>}
        {jobStrip}
        {file ? (
          <FileView folder={folder} file={file} onClose={() => onFile(null)} onOpenChunk={onOpenChunk} onReprocess={(password) => void start({ kind: "process", folder: folder.rootPath, ...(password ? { password } : {}) })} />
        ) : (
          <FolderOverview folder={folder} onReview={(included) => void review(included)} />
        )}
      </div>
      <EmbedDialog
        open={consentOpen}
        onClose={() => setConsentOpen(false)}
        onEmbed={({ reembed }) => {
          setConsentOpen(false);
          void start({ kind: "embed", folder: folder.id, consent: true, ...(reembed ? { reembed: true } : {}) });
        }}
      />
      {addDialog}
    </div>
  );
}
