import { Dialog } from "../components/Dialog.js";
import type { Shortcut } from "../hooks/useShortcuts.js";

/** The keyboard shortcuts, from the same table the app listens with. */
export function HelpOverlay({ open, onClose, shortcuts }: { open: boolean; onClose: () => void; shortcuts: Shortcut[] }) {
  return (
    <Dialog title="Keyboard shortcuts" open={open} onClose={onClose}>
      <table className="shortcuts">
        <tbody>
          {shortcuts.map((shortcut) => (
            <tr key={shortcut.keys}>
              <th scope="row">
                <kbd>{shortcut.keys}</kbd>
              </th>
              <td>{shortcut.description}</td>
            </tr>
          ))}
        </tbody>
      </table>
    </Dialog>
  );
}
