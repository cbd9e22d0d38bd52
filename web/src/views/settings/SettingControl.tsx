import { RotateCcw, Save } from "lucide-react";
import { useState } from "react";
import { remove, put } from "../../api/client.js";
import type { SettingRow } from "../../api/types.js";
import { IconButton } from "../../components/Button.js";
import { Pill } from "../../components/Pill.js";
import { labelOf } from "./labels.js";

const SOURCE_TEXT: Record<string, string> = { default: "default", config: "set here", env: "from the environment", flag: "from a flag" };

/** One setting: its control, where its value comes from, Save and Reset; the server validates. */
export function SettingControl({ row, onSaved, onError }: { row: SettingRow; onSaved: (text: string) => void; onError: (text: string) => void }) {
  const [draft, setDraft] = useState<string | null>(null);
  const { label } = labelOf(row.key);
  const id = `setting-${row.key.replace(/\W+/g, "-")}`;
  const value = draft ?? (row.value === null ? "" : String(row.value));
  const save = async () => {
    try {
      const saved = await put<SettingRow>(`/api/settings/${encodeURIComponent(row.key)}`, { value: draft ?? "" });
      setDraft(null);
      onSaved(`${label} is now ${String(saved.value)}.`);
    } catch (failure) {
      onError(`${label}: ${(failure as Error).message}`);
    }
  };
  const reset = async () => {
    try {
      await remove(`/api/settings/${encodeURIComponent(row.key)}`);
      setDraft(null);
      onSaved(`${label} is back to its default.`);
    } catch (failure) {
      onError(`${label}: ${(failure as Error).message}`);
    }
  };
  return (
    <form
      className="setting"
      onSubmit={(event) => {
        event.preventDefault();
        void save();
      }}
    >
      <div className="setting-text">
        <label htmlFor={id} className="field-label">
          {label}
        </label>
        <p className="field-help" id={`${id}-help`}>
          {row.description.charAt(0).toUpperCase() + row.description.slice(1)}.
        </p>
        {row.problem && <p role="alert" className="notice notice-bad">{row.problem}</p>}
      </div>
      <div className="setting-control">
        {row.kind.type === "enum" ? (
          <select id={id} aria-describedby={`${id}-help`} value={value} onChange={(event) => setDraft(event.target.value)}>
            {row.value === null && <option value="">(not set)</option>}
            {row.kind.values?.map((option) => (
              <option key={option} value={option}>
                {option}
              </option>
            ))}
          </select>
        ) : (
          <input id={id} aria-describedby={`${id}-help`} value={value} inputMode={row.kind.type === "integer" || row.kind.type === "number" ? "decimal" : undefined} placeholder={row.default === null ? "not set" : String(row.default)} onChange={(event) => setDraft(event.target.value)} />
        )}
        <Pill tone={row.source === "config" ? "accent" : "neutral"}>{SOURCE_TEXT[row.source] ?? row.source}</Pill>
        <IconButton type="submit" label={`Save ${label}`} icon={Save} variant={draft === null ? "ghost" : "primary"} disabled={draft === null} />
        <IconButton label={`Reset ${label} to its default`} icon={RotateCcw} disabled={row.source !== "config"} onClick={() => void reset()} />
      </div>
    </form>
  );
}
