import { ArrowUp, Folder as FolderIcon } from "lucide-react";
import { useCallback, useEffect, useState } from "react";
import type { Listing } from "../api/types.js";
import { Button } from "../components/Button.js";
import { Dialog, DialogActions } from "../components/Dialog.js";
import { fetchListing } from "../hooks/queries.js";

/** A folder picker over the server's folders (a browser page cannot name local paths). */
export function FolderPicker({ open, start, onClose, onChoose }: { open: boolean; start: string; onClose: () => void; onChoose: (path: string) => void }) {
  const [listing, setListing] = useState<Listing | null>(null);
  const [error, setError] = useState<string | null>(null);
  const browse = useCallback((target: string) => {
    setError(null);
    fetchListing(target).then(setListing, (failure: Error) => setError(failure.message));
  }, []);
  useEffect(() => {
    if (open) browse(start);
  }, [open, start, browse]);
  const join = (base: string, name: string) => `${base.replace(/[\\/]$/, "")}/${name}`;
  return (
    <Dialog title="Choose a folder" open={open} onClose={onClose}>
      {error && <p role="alert" className="notice notice-bad">{error}</p>}
      {listing && (
        <>
          <p className="folder-path">{listing.path}</p>
          <ul className="picker" aria-label="Folders">
            {listing.parent && (
              <li>
                <button type="button" className="picker-row" onClick={() => browse(listing.parent as string)}>
                  <ArrowUp aria-hidden="true" size={14} /> .. (up)
                </button>
              </li>
            )}
            {listing.folders.map((name) => (
              <li key={name}>
                <button type="button" className="picker-row" onClick={() => browse(join(listing.path, name))}>
                  <FolderIcon aria-hidden="true" size={14} /> {name}
                </button>
              </li>
            ))}
          </ul>
          <DialogActions>
            <Button onClick={onClose}>Cancel</Button>
            <Button variant="primary" onClick={() => onChoose(listing.path)}>
              Choose this folder
            </Button>
          </DialogActions>
        </>
      )}
    </Dialog>
  );
}
