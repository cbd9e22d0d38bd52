import type { ReactNode } from "react";

/** A raised surface grouping one thing: a result, an answer, a settings section. */
export function Card({ children, label, className = "", as: Tag = "section" }: { children: ReactNode; label?: string; className?: string; as?: "section" | "article" | "div" | "li" }) {
  return (
    <Tag className={`card ${className}`} aria-label={label}>
      {children}
    </Tag>
  );
}
