import { redactUrl } from "../../core/redact.js";
import type { LoadedSettings } from "./config.js";
import type { ResolvedSetting } from "./settings.js";

/**
 * Settings as they are shown (config list and get, the settings API): a URL setting with a
 * credential in it (https://user:pass@host, ?key=…) keeps where it points and loses the secret.
 * Only what is shown is redacted; the clients use the value as written.
 */
export function shownSetting(row: ResolvedSetting): ResolvedSetting {
  if (row.setting.kind.type !== "url" && row.setting.kind.type !== "ollama-host") return row;
  const value = typeof row.value === "string" ? redactUrl(row.value) : row.value;
  const problem = row.problem === undefined ? undefined : redactUrl(row.problem);
  if (value === row.value && problem === row.problem) return row;
  return { ...row, value, ...(problem === undefined ? {} : { problem }) };
}

export function shownSettings(loaded: LoadedSettings): LoadedSettings {
  return { ...loaded, settings: loaded.settings.map(shownSetting) };
}
