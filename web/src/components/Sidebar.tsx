import type { LucideIcon } from "lucide-react";
import type { ReactNode } from "react";

/** One entry of the sidebar's view list. */
export function NavItem({ icon: Icon, label, current, onClick, shortcut }: { icon: LucideIcon; label: string; current: boolean; onClick: () => void; shortcut?: string }) {
  return (
    <li>
      <button type="button" className="nav-item" aria-current={current ? "page" : undefined} onClick={onClick} title={shortcut ? `${label} (${shortcut})` : label}>
        <Icon aria-hidden="true" size={16} />
        <span>{label}</span>
      </button>
    </li>
  );
}

/** A titled group of the sidebar (Folders, Conversations) with optional actions beside the title. */
export function SidebarSection({ title, actions, children, label }: { title: string; actions?: ReactNode; children: ReactNode; label?: string }) {
  return (
    <section className="sidebar-section" aria-label={label ?? title}>
      <div className="sidebar-section-header">
        <h2 className="sidebar-section-title">{title}</h2>
        {actions && <div className="sidebar-section-actions">{actions}</div>}
      </div>
      {children}
    </section>
  );
}
