import type { ButtonHTMLAttributes, ReactNode } from "react";
import type { LucideIcon } from "lucide-react";

type Variant = "default" | "primary" | "danger" | "ghost";

/** A text button, optionally with a leading icon. */
export function Button({ variant = "default", icon: Icon, children, size = "md", ...props }: ButtonHTMLAttributes<HTMLButtonElement> & { variant?: Variant; icon?: LucideIcon; size?: "sm" | "md"; children: ReactNode }) {
  return (
    <button type="button" {...props} className={`button button-${variant} button-${size} ${props.className ?? ""}`}>
      {Icon && <Icon aria-hidden="true" size={size === "sm" ? 14 : 16} strokeWidth={2} />}
      <span>{children}</span>
    </button>
  );
}

/** A button showing only an icon; `label` is its accessible name and its tooltip. */
export function IconButton({ label, icon: Icon, variant = "ghost", ...props }: ButtonHTMLAttributes<HTMLButtonElement> & { label: string; icon: LucideIcon; variant?: Variant }) {
  return (
    <button type="button" {...props} aria-label={label} title={props.title ?? label} className={`icon-button button-${variant} ${props.className ?? ""}`}>
      <Icon aria-hidden="true" size={16} strokeWidth={2} />
    </button>
  );
}
