import type { ReactNode } from "react";

/** The bar at the top of a view: its title on the left, its actions on the right. */
export function Toolbar({ title, subtitle, children }: { title: ReactNode; subtitle?: ReactNode; children?: ReactNode }) {
  return (
    <div className="toolbar" role="toolbar" aria-label="View actions">
      <div className="toolbar-title">
        <h2>{title}</h2>
        {subtitle && <p className="toolbar-subtitle">{subtitle}</p>}
      </div>
      {children && <div className="toolbar-actions">{children}</div>}
    </div>
  );
}
