import { Card } from "../../components/Card.js";
import { Pill } from "../../components/Pill.js";
import { useStatus } from "../../hooks/queries.js";

/** The embedding model the server uses now, and whether it is on this computer. */
export function EmbeddingStatus() {
  const status = useStatus();
  const model = status.data?.embeddingModel;
  return (
    <Card label="Embedding model">
      <div className="card-row">
        <div>
          <h4 className="card-title">{model?.model ?? "…"}</h4>
          <p className="meta">
            {model ? `${model.provider}, ${model.dtype} weights` : ""}
            {model?.approximateBytes ? `, about ${Math.round(model.approximateBytes / 1_000_000)} MB` : ""}
          </p>
        </div>
        <Pill tone={model?.state === "ready" ? "good" : "warn"}>{model?.state === "ready" ? "on this computer" : (model?.state ?? "…")}</Pill>
      </div>
      <p className="meta">A changed model needs the chunks embedded again (Documents → Embed selected).</p>
    </Card>
  );
}
