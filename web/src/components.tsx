import { useEffect, useRef, type ButtonHTMLAttributes, type ReactNode } from "react";

/** The app's few building blocks; their look comes from tokens.css. */

export function Button({ variant = "default", ...props }: ButtonHTMLAttributes<HTMLButtonElement> & { variant?: "default" | "primary" | "danger" }) {
  return <button type="button" {...props} className={`button button-${variant} ${props.className ?? ""}`} />;
}

export function Pill({ tone = "neutral", children }: { tone?: "neutral" | "good" | "warn" | "bad"; children: ReactNode }) {
  return <span className={`pill pill-${tone}`}>{children}</span>;
}

export function Card({ children, label }: { children: ReactNode; label?: string }) {
  return (
    <section className="card" aria-label={label}>
      {children}
    </section>
  );
}

export function ProgressBar({ value, label }: { value: number | null; label: string }) {
  return (
    <div className="progress" role="progressbar" aria-label={label} aria-valuemin={0} aria-valuemax={100} {...(value === null ? {} : { "aria-valuenow": Math.round(value) })}>
      <div className="progress-fill" style={{ width: `${value ?? 100}%` }} />
    </div>
  );
}

/** A modal dialog: focus moves in, Escape closes, the page behind is inert. */
export function Dialog({ title, open, onClose, children }: { title: string; open: boolean; onClose: () => void; children: ReactNode }) {
  const ref = useRef<HTMLDialogElement>(null);
  useEffect(() => {
    const dialog = ref.current;
    if (!dialog) return;
    if (open && !dialog.open) dialog.showModal();
    if (!open && dialog.open) dialog.close();
  }, [open]);
  return (
    <dialog ref={ref} className="dialog" aria-label={title} onClose={onClose} onCancel={onClose}>
      <h2>{title}</h2>
      {children}
    </dialog>
  );
}
