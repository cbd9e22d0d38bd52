import type { ChunkMeta } from "../core/types.js";
import { headingText } from "./assemble.js";
import type { BlockSpan } from "./assemble.js";

/** For each span, the text of the nearest heading at or above it (undefined before the first). */
export function sectionsBySpan(spans: readonly BlockSpan[]): Array<string | undefined> {
  let current: string | undefined;
  return spans.map((span) => {
    if (span.block.kind === "heading") current = headingText(span.block);
    return current;
  });
}

/** Index of the span holding offset (the last span starting at or before it). */
export function spanIndexAt(spans: readonly BlockSpan[], offset: number): number {
  let low = 0;
  let high = spans.length - 1;
  while (low < high) {
    const middle = Math.ceil((low + high) / 2);
    if ((spans[middle]?.start ?? 0) <= offset) low = middle;
    else high = middle - 1;
  }
  return low;
}

/**
 * Metadata of the chunk text[charStart, charEnd): page is the first page among its blocks and
 * pageEnd the last when it differs; slide and sheet are the first block's; section is the
 * nearest heading at or above the chunk's start.
 */
export function chunkMeta(
  spans: readonly BlockSpan[],
  sections: ReadonlyArray<string | undefined>,
  charStart: number,
  charEnd: number,
): ChunkMeta {
  const first = spanIndexAt(spans, charStart);
  const last = spanIndexAt(spans, Math.max(charStart, charEnd - 1));
  let page: number | undefined;
  let pageEnd: number | undefined;
  let slide: number | undefined;
  let sheet: string | undefined;
  for (let index = first; index <= last; index++) {
    const block = spans[index]?.block;
    if (!block) continue;
    if (block.page !== undefined) {
      page ??= block.page;
      pageEnd = Math.max(pageEnd ?? block.page, block.page);
    }
    slide ??= block.slide;
    sheet ??= block.sheet;
  }

  const meta: ChunkMeta = {};
  if (page !== undefined) meta.page = page;
  if (page !== undefined && pageEnd !== undefined && pageEnd > page) meta.pageEnd = pageEnd;
  if (slide !== undefined) meta.slide = slide;
  if (sheet !== undefined) meta.sheet = sheet;
  meta.charStart = charStart;
  meta.charEnd = charEnd;
  const section = sections[first];
  if (section !== undefined && section.length > 0) meta.section = section;
  return meta;
}
