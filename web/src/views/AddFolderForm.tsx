import { FolderSearch, Plus } from "lucide-react";
import { useState } from "react";
import { Button } from "../components/Button.js";
import { FolderPicker } from "./FolderPicker.js";

/** A folder path, typed or chosen in the picker; Add folder processes it. */
export function AddFolderForm({ busy, onAdd }: { busy: boolean; onAdd: (path: string) => void }) {
  const [path, setPath] = useState("");
  const [picking, setPicking] = useState(false);
  return (
    <form
      className="add-folder"
      onSubmit={(event) => {
        event.preventDefault();
        if (path.trim() !== "") onAdd(path.trim());
      }}
    >
      <label htmlFor="folder-path" className="field-label">
        Folder to add
      </label>
      <div className="input-row">
        <input id="folder-path" value={path} onChange={(event) => setPath(event.target.value)} placeholder="/home/me/Documents/reports" autoComplete="off" />
        <Button icon={FolderSearch} onClick={() => setPicking(true)}>
          Browse…
        </Button>
        <Button type="submit" variant="primary" icon={Plus} disabled={busy || path.trim() === ""}>
          Add folder
        </Button>
      </div>
      <FolderPicker
        open={picking}
        start={path}
        onClose={() => setPicking(false)}
        onChoose={(chosen) => {
          setPath(chosen);
          setPicking(false);
        }}
      />
    </form>
  );
}
