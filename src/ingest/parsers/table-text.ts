/**
 * A table as a markdown table: the first row is the header, then a "---" row, then the rest.
 * Pipes inside cells are escaped and line breaks become spaces, so every row stays one line.
 * `header` is the first two lines, which the chunker repeats for chunks inside the table.
 */
export function markdownTable(rows: readonly (readonly string[])[]): { text: string; header: string } | undefined {
  const kept = rows.filter((row) => row.some((cell) => cell.trim() !== ""));
  const width = kept.reduce((widest, row) => Math.max(widest, row.length), 0);
  if (kept.length === 0 || width === 0) return undefined;
  const line = (row: readonly string[]): string => {
    const cells = Array.from({ length: width }, (_, index) => (row[index] ?? "").replace(/\s+/g, " ").trim().replace(/\|/g, "\\|"));
    return `| ${cells.join(" | ")} |`;
  };
  const header = `${line(kept[0] ?? [])}\n|${" --- |".repeat(width)}`;
  const text = [header, ...kept.slice(1).map(line)].join("\n");
  return { text, header };
}
