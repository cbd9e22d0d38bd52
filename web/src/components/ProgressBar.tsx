export function ProgressBar({ value, label }: { value: number | null; label: string }) {
  return (
    <div className="progress" role="progressbar" aria-label={label} aria-valuemin={0} aria-valuemax={100} {...(value === null ? {} : { "aria-valuenow": Math.round(value) })}>
      <div className={value === null ? "progress-fill progress-indeterminate" : "progress-fill"} style={{ width: `${value ?? 35}%` }} />
    </div>
  );
}
