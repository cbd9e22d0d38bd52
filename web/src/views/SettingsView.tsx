import { useQueryClient } from "@tanstack/react-query";
import { useState } from "react";
import { Card } from "../components/Card.js";
import { Skeleton } from "../components/Skeleton.js";
import { Toolbar } from "../components/Toolbar.js";
import { keys, useSettings } from "../hooks/queries.js";
import { THEMES, type Theme } from "../hooks/useTheme.js";
import { ArchivePanel } from "./settings/ArchivePanel.js";
import { DataPanel } from "./settings/DataPanel.js";
import { IN_PROVIDER_CARDS, labelOf, SECTIONS, type Section } from "./settings/labels.js";
import { ProvidersPanel } from "./settings/ProvidersPanel.js";
import { SettingControl } from "./settings/SettingControl.js";
import { EmbeddingStatus } from "./settings/EmbeddingStatus.js";

/** Settings in sections with human labels; every setting the CLI has, written to the same config file. */
export function SettingsView({ theme, onTheme, onFolderRemoved }: { theme: Theme; onTheme: (theme: Theme) => void; onFolderRemoved: () => void }) {
  const settings = useSettings();
  const client = useQueryClient();
  const [section, setSection] = useState<Section>("answers");
  const [message, setMessage] = useState<{ tone: "good" | "bad"; text: string } | null>(null);
  const saved = (text: string) => {
    setMessage({ tone: "good", text });
    void client.invalidateQueries({ queryKey: keys.settings });
    void client.invalidateQueries({ queryKey: keys.providers });
    void client.invalidateQueries({ queryKey: keys.status });
  };
  const failed = (text: string) => setMessage({ tone: "bad", text });
  const rows = (settings.data ?? []).filter((row) => labelOf(row.key).section === section && !IN_PROVIDER_CARDS.has(row.key));
  const current = SECTIONS.find((entry) => entry.id === section) ?? SECTIONS[0];
  return (
    <div className="view">
      <Toolbar title="Settings" subtitle="Written to Chunkpad's config file, as chunkpad config set does" />
      <div className="settings">
        <nav aria-label="Settings sections" className="settings-nav">
          <ul>
            {SECTIONS.map((entry) => (
              <li key={entry.id}>
                <button type="button" className="settings-nav-item" aria-current={entry.id === section ? "page" : undefined} onClick={() => (setSection(entry.id), setMessage(null))}>
                  {entry.label}
                </button>
              </li>
            ))}
          </ul>
        </nav>
        <div className="settings-body">
          <h3 className="settings-title">{current?.label}</h3>
          <p className="meta settings-intro">{current?.intro}</p>
          {message && (
            <p role={message.tone === "bad" ? "alert" : "status"} className={`notice notice-${message.tone}`}>
              {message.text}
            </p>
          )}
          {settings.error && <p role="alert" className="notice notice-bad">{settings.error.message}</p>}
          {section === "answers" && <ProvidersPanel onMessage={(text, tone) => (tone === "bad" ? failed(text) : saved(text))} />}
          {section === "embeddings" && <EmbeddingStatus />}
          {section === "appearance" && (
            <Card label="Colours">
              <div className="setting">
                <div className="setting-text">
                  <label htmlFor="theme" className="field-label">
                    Theme
                  </label>
                  <p className="field-help">Light, dark, or high contrast; "As the system" follows your operating system.</p>
                </div>
                <div className="setting-control">
                  <select id="theme" value={theme} onChange={(event) => onTheme(event.target.value as Theme)}>
                    {THEMES.map((entry) => (
                      <option key={entry.id} value={entry.id}>
                        {entry.label}
                      </option>
                    ))}
                  </select>
                </div>
              </div>
            </Card>
          )}
          {section === "privacy" && (
            <Card label="What leaves this computer">
              <ul className="plain-list">
                <li>Documents, chunks and vectors stay on this computer; the embedding model runs here.</li>
                <li>A question and the chunks it found go to the answer provider you choose: nowhere, with the local model or Ollama on this computer; to Anthropic or OpenAI (or the server at the base URL you set) otherwise.</li>
                <li>API keys are kept in the operating system's keychain when it has one; the app can replace a key but never shows it again.</li>
                <li>Models are downloaded only after you agree, from the hub URLs under Embeddings and Answers.</li>
              </ul>
            </Card>
          )}
          {section === "data" && <DataPanel onMessage={(text, tone) => (tone === "bad" ? failed(text) : saved(text))} onFolderRemoved={onFolderRemoved} />}
          {section === "data" && <ArchivePanel onMessage={(text, tone) => (tone === "bad" ? failed(text) : saved(text))} onFolderRemoved={onFolderRemoved} />}
          {settings.isPending && <Skeleton lines={5} label="Loading the settings" />}
          {rows.length > 0 && (
            <Card label={`${current?.label} settings`} className="settings-card">
              {rows.map((row) => (
                <SettingControl key={row.key} row={row} onSaved={saved} onError={failed} />
              ))}
            </Card>
          )}
        </div>
      </div>
    </div>
  );
}
