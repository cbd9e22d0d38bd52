import { X } from "lucide-react";
import { useEffect, type ReactNode } from "react";
import { IconButton } from "./Button.js";

/** The right-hand pane: details of what is selected; Escape or its close button closes it. */
export function Inspector({ title, onClose, children, overlay }: { title: string; onClose: () => void; children: ReactNode; overlay: boolean }) {
  useEffect(() => {
    const onKey = (event: KeyboardEvent) => {
      if (event.key === "Escape" && !event.defaultPrevented && !document.querySelector("[role=dialog]")) onClose();
    };
    window.addEventListener("keydown", onKey);
    return () => window.removeEventListener("keydown", onKey);
  }, [onClose]);
  return (
    <aside className={overlay ? "inspector inspector-overlay" : "inspector"} aria-label="Inspector">
      <div className="inspector-header">
        <h2 className="inspector-title">{title}</h2>
        <IconButton label="Close the inspector" icon={X} onClick={onClose} />
      </div>
      <div className="inspector-body">{children}</div>
    </aside>
  );
}
