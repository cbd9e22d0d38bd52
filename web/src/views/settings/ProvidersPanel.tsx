import { useQueryClient } from "@tanstack/react-query";
import { KeyRound } from "lucide-react";
import { useState } from "react";
import { post } from "../../api/client.js";
import type { KeyDescription } from "../../api/types.js";
import { Button } from "../../components/Button.js";
import { Card } from "../../components/Card.js";
import { Pill } from "../../components/Pill.js";
import { Skeleton } from "../../components/Skeleton.js";
import { keys, useProviders, useSettings } from "../../hooks/queries.js";
import { LocalModelDownload } from "./LocalModelDownload.js";
import { PROVIDER_SETTINGS } from "./labels.js";
import { SettingControl } from "./SettingControl.js";

/** Answer providers: which is ready, each one's key (write-only), base URL and model. */
export function ProvidersPanel({ onMessage }: { onMessage: (text: string, tone: "good" | "bad") => void }) {
  const providers = useProviders();
  const settings = useSettings();
  const client = useQueryClient();
  const [drafts, setDrafts] = useState<Record<string, string>>({});
  if (providers.error) return <p role="alert" className="notice notice-bad">{providers.error.message}</p>;
  if (!providers.data) return <Skeleton lines={6} label="Loading the providers" />;
  const storeKey = async (key: KeyDescription) => {
    try {
      const stored = await post<KeyDescription>("/api/keys", { provider: key.provider, key: drafts[key.provider] ?? "" });
      setDrafts({ ...drafts, [key.provider]: "" });
      onMessage(`The ${stored.provider} key is stored (${stored.location}).`, "good");
    } catch (failure) {
      onMessage((failure as Error).message, "bad");
    }
    void client.invalidateQueries({ queryKey: keys.providers });
  };
  return (
    <section aria-label="Answer providers" className="provider-grid">
      {providers.data.providers.map((provider) => {
        const key = providers.data.keys.find((candidate) => candidate.provider === provider.provider);
        return (
          <Card key={provider.provider} label={`${provider.provider} provider`} className="provider-card">
            <div className="card-row">
              <h4 className="card-title">{provider.provider}</h4>
              <div className="pill-row">
                {provider.selected && <Pill tone="accent">answers now</Pill>}
                <Pill tone={provider.ready ? "good" : "warn"}>{provider.ready ? "ready" : "not ready"}</Pill>
              </div>
            </div>
            <p className="meta">{provider.detail}</p>
            {provider.installedModels && provider.installedModels.length > 0 && (
              <p className="meta" aria-label={`Models installed in ${provider.provider}`}>
                Installed: {provider.installedModels.join(", ")}
              </p>
            )}
            {key && (
              <form
                className="key-form"
                onSubmit={(event) => {
                  event.preventDefault();
                  void storeKey(key);
                }}
              >
                <label htmlFor={`key-${key.provider}`} className="field-label">
                  {key.provider} API key <span className="meta">{key.source ? `(set: ${key.location})` : "(not set)"}</span>
                </label>
                <div className="input-row">
                  <input id={`key-${key.provider}`} type="password" autoComplete="off" placeholder={key.source ? "Replace the stored key" : "Paste the key"} value={drafts[key.provider] ?? ""} onChange={(event) => setDrafts({ ...drafts, [key.provider]: event.target.value })} />
                  <Button type="submit" icon={KeyRound} disabled={(drafts[key.provider] ?? "") === ""}>
                    Save {key.provider} key
                  </Button>
                </div>
              </form>
            )}
            {provider.provider === "local" && !provider.ready && provider.downloadBytes !== undefined && (
              <LocalModelDownload sizeBytes={provider.downloadBytes} model={provider.model} onDone={(text, tone) => {
                onMessage(text, tone);
                void client.invalidateQueries({ queryKey: keys.providers });
              }} />
            )}
            {(PROVIDER_SETTINGS[provider.provider] ?? []).map((settingKey) => {
              const row = settings.data?.find((candidate) => candidate.key === settingKey);
              return row ? <SettingControl key={row.key} row={row} onSaved={(text) => onMessage(text, "good")} onError={(text) => onMessage(text, "bad")} /> : null;
            })}
          </Card>
        );
      })}
    </section>
  );
}
