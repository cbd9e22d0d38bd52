/** Grey bars where content is loading; the label says so to a screen reader. */
export function Skeleton({ lines = 3, label = "Loading…" }: { lines?: number; label?: string }) {
  return (
    <div className="skeleton" role="status" aria-label={label}>
      {Array.from({ length: lines }, (_, index) => (
        <span key={index} className="skeleton-line" style={{ width: `${90 - index * 17}%` }} />
      ))}
    </div>
  );
}
