import { FileText, MessagesSquare, Search, Settings } from "lucide-react";

export type View = "documents" | "search" | "chat" | "settings";

/** The app's views, in the sidebar's order, with their shortcuts. */
export const VIEWS = [
  { id: "documents", label: "Documents", icon: FileText, shortcut: "Alt+1" },
  { id: "search", label: "Search", icon: Search, shortcut: "Alt+2" },
  { id: "chat", label: "Chat", icon: MessagesSquare, shortcut: "Alt+3" },
  { id: "settings", label: "Settings", icon: Settings, shortcut: "Alt+4" },
] as const;

const isMac = typeof navigator !== "undefined" && /Mac|iPhone|iPad/.test(navigator.platform);
export const MOD = isMac ? "⌘" : "Ctrl";
export const MOD_ARIA = isMac ? "Meta" : "Control";
