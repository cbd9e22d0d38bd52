import { GitMerge } from "lucide-react";
import { post } from "../api/client.js";
import type { Folder } from "../api/types.js";
import { Button } from "../components/Button.js";
import { useConflictDiff, useRefreshDocuments } from "../hooks/queries.js";
import { ConflictDiffView } from "./ConflictDiffView.js";

/** A file whose source changed after its chunk file was edited: keep the edit, or take fresh chunks. */
export function ConflictNote({ folder, file, onSettled, onError }: { folder: Folder; file: string; onSettled: (text: string) => void; onError: (text: string) => void }) {
  const refresh = useRefreshDocuments();
  const diff = useConflictDiff(folder.id, file);
  const resolve = async (choice: "keep-mine" | "take-fresh") => {
    try {
      const outcome = await post<{ resolved: boolean }>(`/api/folders/${folder.id}/resolve`, { file, choice });
      onSettled(outcome.resolved ? (choice === "keep-mine" ? `Kept your edit of ${file}.` : `Replaced the chunks of ${file} with fresh ones.`) : `${file} had no conflict to settle.`);
    } catch (failure) {
      onError((failure as Error).message);
    }
    await refresh();
  };
  return (
    <div className="notice notice-warn conflict" role="note" aria-label={`Conflict in ${file}`}>
      <GitMerge aria-hidden="true" size={18} />
      <div>
        <p>
          <strong>{file} changed</strong> after its chunk file was edited. Search and answers use your edited chunks (below) until you choose:
          keep your edit (you can still change it below), or take fresh chunks from the changed source.
        </p>
        <ConflictDiffView diff={diff.data} loading={diff.isPending} error={diff.error ? diff.error.message : null} />
        <div className="button-row">
          <Button onClick={() => void resolve("keep-mine")}>Keep my edit</Button>
          <Button variant="primary" onClick={() => void resolve("take-fresh")}>
            Take fresh chunks
          </Button>
        </div>
      </div>
    </div>
  );
}
