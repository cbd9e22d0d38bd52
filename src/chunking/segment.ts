/** One segment from Intl.Segmenter, with its offset in the whole text. */
export interface TextSegment {
  index: number;
  segment: string;
  isWordLike: boolean;
}

/**
 * Intl.Segmenter over a long string gets slower than linear in V8 (a 200 kB string takes
 * seconds), so the text is segmented in windows. Each window's last segment may be cut by the
 * window's end, so it is dropped and the next window starts where it began.
 */
const WINDOW_CHARS = 2048;

export function* segmentText(segmenter: Intl.Segmenter, text: string): Generator<TextSegment> {
  let windowStart = 0;
  while (windowStart < text.length) {
    const windowEnd = Math.min(text.length, windowStart + WINDOW_CHARS);
    const isLastWindow = windowEnd === text.length;
    const segments = [...segmenter.segment(text.slice(windowStart, windowEnd))];
    const keep = isLastWindow || segments.length < 2 ? segments.length : segments.length - 1;
    for (let position = 0; position < keep; position++) {
      const segment = segments[position];
      if (!segment) continue;
      yield { index: windowStart + segment.index, segment: segment.segment, isWordLike: segment.isWordLike ?? false };
    }
    const next = segments[keep];
    windowStart = next ? windowStart + next.index : windowEnd;
  }
}
