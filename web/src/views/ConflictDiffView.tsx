import type { ConflictDiff } from "../api/types.js";
import { Skeleton } from "../components/Skeleton.js";

/** The user's chunk file against the chunks a fresh parse would write, line by line. */
export function ConflictDiffView({ diff, loading, error }: { diff: ConflictDiff | undefined; loading: boolean; error: string | null }) {
  if (error !== null) return <p className="notice notice-bad">The differences could not be shown: {error}</p>;
  if (loading || diff === undefined) return <Skeleton lines={3} />;
  const { counts } = diff;
  return (
    <div className="conflict-diff">
      <p className="conflict-diff-summary">
        {diff.failure
          ? `The changed source cannot be read (${diff.failure.message}); taking fresh chunks would fail until it can.`
          : counts.mine === 0 && counts.fresh === 0
            ? "Your edit and the fresh chunks hold the same text."
            : `${plural(counts.mine, "line")} only in your edit, ${plural(counts.fresh, "line")} only in the fresh chunks.`}
      </p>
      {diff.failure === null && (
        <div className="diff" role="region" aria-label="Your edit against the fresh chunks" tabIndex={0}>
          {diff.lines.map((line, index) =>
            line.kind === "same" ? (
              <div key={index} className="diff-line">
                <span aria-hidden="true" className="diff-sign" />
                {line.text || " "}
              </div>
            ) : line.kind === "mine" ? (
              <del key={index} className="diff-line diff-mine">
                <span className="diff-sign" aria-hidden="true">−</span>
                <span className="visually-hidden">Only in your edit: </span>
                {line.text || " "}
              </del>
            ) : (
              <ins key={index} className="diff-line diff-fresh">
                <span className="diff-sign" aria-hidden="true">+</span>
                <span className="visually-hidden">Only in the fresh chunks: </span>
                {line.text || " "}
              </ins>
            ),
          )}
        </div>
      )}
    </div>
  );
}

function plural(count: number, word: string): string {
  return `${count} ${word}${count === 1 ? "" : "s"}`;
}
