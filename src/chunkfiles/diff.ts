/**
 * A line diff of two chunk files (the user's edit against freshly parsed chunks), for the
 * conflict view. Pure: the longest common subsequence of lines after the shared start and end
 * are set aside; a middle too large to compare line by line is shown as removed then added.
 */

export interface DiffLine {
  /** "same" in both, "mine" only in the edited file, "fresh" only in the fresh chunks. */
  kind: "same" | "mine" | "fresh";
  text: string;
}

/** Cells of the comparison table beyond which the middle is shown whole (about 16 MB of memory). */
const MAX_TABLE_CELLS = 4_000_000;

export function diffLines(mine: string, fresh: string): DiffLine[] {
  const a = splitLines(mine);
  const b = splitLines(fresh);
  let start = 0;
  while (start < a.length && start < b.length && a[start] === b[start]) start += 1;
  let endA = a.length;
  let endB = b.length;
  while (endA > start && endB > start && a[endA - 1] === b[endB - 1]) {
    endA -= 1;
    endB -= 1;
  }
  const same = (lines: string[]): DiffLine[] => lines.map((text) => ({ kind: "same", text }));
  return [...same(a.slice(0, start)), ...diffMiddle(a.slice(start, endA), b.slice(start, endB)), ...same(a.slice(endA))];
}

function diffMiddle(a: string[], b: string[]): DiffLine[] {
  if (a.length * b.length > MAX_TABLE_CELLS) {
    return [...a.map((text) => ({ kind: "mine" as const, text })), ...b.map((text) => ({ kind: "fresh" as const, text }))];
  }
  // lengths[i][j]: the longest common run of a[i..] and b[j..], in one flat array.
  const width = b.length + 1;
  const lengths = new Uint32Array((a.length + 1) * width);
  for (let i = a.length - 1; i >= 0; i -= 1) {
    for (let j = b.length - 1; j >= 0; j -= 1) {
      lengths[i * width + j] = a[i] === b[j] ? (lengths[(i + 1) * width + j + 1] ?? 0) + 1 : Math.max(lengths[(i + 1) * width + j] ?? 0, lengths[i * width + j + 1] ?? 0);
    }
  }
  const lines: DiffLine[] = [];
  let i = 0;
  let j = 0;
  while (i < a.length && j < b.length) {
    if (a[i] === b[j]) {
      lines.push({ kind: "same", text: a[i] as string });
      i += 1;
      j += 1;
    } else if ((lengths[(i + 1) * width + j] ?? 0) >= (lengths[i * width + j + 1] ?? 0)) {
      lines.push({ kind: "mine", text: a[i] as string });
      i += 1;
    } else {
      lines.push({ kind: "fresh", text: b[j] as string });
      j += 1;
    }
  }
  for (; i < a.length; i += 1) lines.push({ kind: "mine", text: a[i] as string });
  for (; j < b.length; j += 1) lines.push({ kind: "fresh", text: b[j] as string });
  return lines;
}

function splitLines(text: string): string[] {
  const lines = text.replace(/\r\n?/g, "\n").split("\n");
  if (lines.at(-1) === "") lines.pop();
  return lines;
}
