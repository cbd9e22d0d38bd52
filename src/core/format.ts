/** "3 MB", "1.9 GB": a size for download prompts and messages (decimal units, as hubs list them). */
export function formatBytes(bytes: number | null): string {
  if (bytes === null) return "size unknown";
  if (bytes >= 1e9) return `${(bytes / 1e9).toFixed(1)} GB`;
  if (bytes >= 1e6) return `${Math.round(bytes / 1e6)} MB`;
  return `${Math.max(1, Math.round(bytes / 1e3))} kB`;
}
