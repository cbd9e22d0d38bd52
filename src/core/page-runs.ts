/** "pages 1–3, 7" for a report line: runs of consecutive pages collapse to a range. */
export function describePageRuns(pages: readonly number[]): string {
  const runs: string[] = [];
  let start = pages[0];
  let previous = start;
  for (const page of [...pages.slice(1), Number.NaN]) {
    if (start === undefined || previous === undefined) break;
    if (page === previous + 1) {
      previous = page;
      continue;
    }
    runs.push(start === previous ? `${start}` : `${start}–${previous}`);
    start = page;
    previous = page;
  }
  return `${pages.length === 1 ? "page" : "pages"} ${runs.join(", ")}`;
}
