import type { ReactNode } from "react";

export type Tone = "neutral" | "good" | "warn" | "bad" | "accent";

/** A small rounded label: a state, a count, a location. */
export function Pill({ tone = "neutral", children, title }: { tone?: Tone; children: ReactNode; title?: string }) {
  return (
    <span className={`pill pill-${tone}`} title={title}>
      {children}
    </span>
  );
}
