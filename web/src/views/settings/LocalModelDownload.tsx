import { Download } from "lucide-react";
import { useState } from "react";
import { post, remove } from "../../api/client.js";
import type { Job } from "../../api/types.js";
import { Button } from "../../components/Button.js";
import { Dialog, DialogActions } from "../../components/Dialog.js";
import { ProgressBar } from "../../components/ProgressBar.js";
import { followJob } from "../../hooks/useJobEvents.js";

/** The local answer model downloaded ahead of a question: consent (with the size), progress, cancel. */
export function LocalModelDownload({ sizeBytes, model, onDone }: { sizeBytes: number; model: string; onDone: (text: string, tone: "good" | "bad") => void }) {
  const [asking, setAsking] = useState(false);
  const [running, setRunning] = useState<{ id: string; percent: number } | null>(null);
  const download = async () => {
    setAsking(false);
    try {
      const started = await post<Job>("/api/jobs", { kind: "local-model", consent: true });
      setRunning({ id: started.id, percent: 0 });
      followJob(started, (event) => {
        if (event.type === "download-progress") setRunning({ id: started.id, percent: event.percent });
        if (event.type === "job-done") onDone(`${model} is downloaded.`, "good");
        if (event.type === "job-cancelled") onDone("Download cancelled.", "good");
        if (event.type === "job-failed") onDone(`Download failed: ${event.error?.message ?? "unknown error"}`, "bad");
        if (event.type === "job-done" || event.type === "job-failed" || event.type === "job-cancelled") setRunning(null);
      });
    } catch (failure) {
      onDone((failure as Error).message, "bad");
    }
  };
  const cancel = async () => {
    if (!running) return;
    try {
      await remove(`/api/jobs/${running.id}`);
    } catch (failure) {
      onDone((failure as Error).message, "bad");
    }
  };
  return (
    <>
      {running ? (
        <div className="job-strip">
          <ProgressBar value={running.percent} label={`Downloading ${model}`} />
          <Button size="sm" onClick={() => void cancel()}>
            Cancel the download
          </Button>
        </div>
      ) : (
        <Button icon={Download} onClick={() => setAsking(true)}>
          Download the local model…
        </Button>
      )}
      <Dialog title="Download the local model?" open={asking} onClose={() => setAsking(false)}>
        <p>
          {model}: about {Math.round(sizeBytes / 1_000_000)} MB, downloaded once into Chunkpad's model cache. Answers then run on this computer; nothing leaves it.
        </p>
        <DialogActions>
          <Button onClick={() => setAsking(false)}>Not now</Button>
          <Button variant="primary" onClick={() => void download()}>
            Download
          </Button>
        </DialogActions>
      </Dialog>
    </>
  );
}
