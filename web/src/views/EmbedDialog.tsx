import { useState } from "react";
import { Button } from "../components/Button.js";
import { Dialog, DialogActions } from "../components/Dialog.js";
import { useStatus } from "../hooks/queries.js";

/** Consent before embedding: which model, and how much it downloads once. */
export function EmbedDialog({ open, onClose, onEmbed }: { open: boolean; onClose: () => void; onEmbed: (options: { reembed: boolean }) => void }) {
  const status = useStatus();
  const [reembed, setReembed] = useState(false);
  const model = status.data?.embeddingModel;
  return (
    <Dialog title="Embed the included chunks" open={open} onClose={onClose}>
      <p>
        Model: <strong>{model?.model ?? "…"}</strong>
        {model?.state === "ready" ? " (already on this computer)" : model?.approximateBytes ? ` (about ${Math.round(model.approximateBytes / 1_000_000)} MB to download once)` : " (downloaded once; size unknown)"}.
      </p>
      <p>Then every included chunk that is new or changed is embedded. Your documents never leave this computer.</p>
      <label className="check-row">
        <input type="checkbox" checked={reembed} onChange={(event) => setReembed(event.target.checked)} />
        Re-embed every folder (after changing the embedding model: drops all vectors and embeds every included chunk again)
      </label>
      <DialogActions>
        <Button onClick={onClose}>Not now</Button>
        <Button variant="primary" onClick={() => onEmbed({ reembed })}>
          Download if needed and embed
        </Button>
      </DialogActions>
    </Dialog>
  );
}
