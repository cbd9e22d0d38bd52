import { useId, type ReactElement, type ReactNode } from "react";
import { cloneElement } from "react";

/** A form control with its label above and help text below, tied together for screen readers. */
export function Field({ label, help, children, extra }: { label: ReactNode; help?: ReactNode; children: ReactElement<{ id?: string; "aria-describedby"?: string }>; extra?: ReactNode }) {
  const id = useId();
  const helpId = `${id}-help`;
  return (
    <div className="field">
      <div className="field-label-row">
        <label htmlFor={id} className="field-label">
          {label}
        </label>
        {extra}
      </div>
      {cloneElement(children, { id, ...(help ? { "aria-describedby": helpId } : {}) })}
      {help && (
        <p className="field-help" id={helpId}>
          {help}
        </p>
      )}
    </div>
  );
}
