import { useEffect, useRef } from "react";

export interface Shortcut {
  /** As shown in the help overlay: "Ctrl+K", "?", "Alt+1". */
  keys: string;
  description: string;
  matches: (event: KeyboardEvent) => boolean;
  run: () => void;
  /** Also while typing in a field (default: only outside fields). */
  inFields?: boolean;
}

const typing = (target: EventTarget | null) => target instanceof HTMLElement && (target.isContentEditable || ["INPUT", "TEXTAREA", "SELECT"].includes(target.tagName));

/** The app's keyboard shortcuts, one listener; the help overlay lists the same table. */
export function useShortcuts(shortcuts: Shortcut[]) {
  const current = useRef(shortcuts);
  current.current = shortcuts;
  useEffect(() => {
    const onKey = (event: KeyboardEvent) => {
      for (const shortcut of current.current) {
        if (!shortcut.matches(event) || (!shortcut.inFields && typing(event.target))) continue;
        event.preventDefault();
        shortcut.run();
        return;
      }
    };
    window.addEventListener("keydown", onKey);
    return () => window.removeEventListener("keydown", onKey);
  }, []);
}
