import type { ParsedBlock, ParsedDocument } from "../core/types.js";

/** Where one block sits in the assembled text: text.slice(start, end) is the rendered block. */
export interface BlockSpan {
  start: number;
  end: number;
  block: ParsedBlock;
}

export interface AssembledText {
  text: string;
  spans: BlockSpan[];
}

export const BLOCK_SEPARATOR = "\n\n";

/** Heading text on one line, whitespace collapsed: what a heading renders as and what sections name. */
export function headingText(block: ParsedBlock): string {
  return block.text.replace(/\s+/g, " ").trim();
}

export function headingLevel(block: ParsedBlock): number {
  const level = block.level ?? 1;
  return Number.isInteger(level) ? Math.min(6, Math.max(1, level)) : 1;
}

/**
 * How a block appears in the extracted text. Line endings become "\n" (chunk files are
 * LF-only, so offsets stay true after a round trip); surrounding whitespace is trimmed;
 * headings render as markdown ("## Title").
 */
export function renderBlock(block: ParsedBlock): string {
  if (block.kind === "heading") {
    const text = headingText(block);
    return text.length === 0 ? "" : `${"#".repeat(headingLevel(block))} ${text}`;
  }
  return block.text.replace(/\r\n?/g, "\n").trim();
}

/**
 * The extracted text of a source: blocks in reading order joined by a blank line. Blocks with
 * no text are left out (and get no span). Character offsets in chunk metadata refer to this
 * text.
 */
export function assembleText(doc: ParsedDocument): AssembledText {
  const parts: string[] = [];
  const spans: BlockSpan[] = [];
  let offset = 0;
  for (const block of doc.blocks) {
    const rendered = renderBlock(block);
    if (rendered.length === 0) continue;
    if (parts.length > 0) offset += BLOCK_SEPARATOR.length;
    spans.push({ start: offset, end: offset + rendered.length, block });
    parts.push(rendered);
    offset += rendered.length;
  }
  return { text: parts.join(BLOCK_SEPARATOR), spans };
}
