import { useEffect, useState } from "react";

export type Theme = "system" | "light" | "dark" | "contrast";
export const THEMES: Array<{ id: Theme; label: string }> = [
  { id: "system", label: "As the system" },
  { id: "light", label: "Light" },
  { id: "dark", label: "Dark" },
  { id: "contrast", label: "High contrast" },
];

/** The theme chosen in Settings → Appearance, kept in this browser. */
export function useTheme() {
  const [theme, setTheme] = useState<Theme>(() => (localStorage.getItem("chunkpad-theme") as Theme | null) ?? "system");
  useEffect(() => {
    document.documentElement.dataset.theme = theme;
    localStorage.setItem("chunkpad-theme", theme);
  }, [theme]);
  return [theme, setTheme] as const;
}
