import type { ParsedBlock } from "../../core/types.js";

/**
 * Rebuilds lines and paragraphs from pdf.js text items. Pure: positioned strings in, blocks
 * out. pdf.js marks line ends (hasEOL) and inserts spaces between words; this joins lines
 * into paragraphs by spacing, indentation and font size, repairs words hyphenated across a
 * line break, and marks short lines in a clearly larger font as headings.
 */
export interface PositionedText {
  str: string;
  /** PDF text matrix [a, b, c, d, x, y]. */
  transform: number[];
  width: number;
  height: number;
  hasEOL: boolean;
}

interface Line {
  text: string;
  x: number;
  y: number;
  right: number;
  size: number;
}

interface Paragraph {
  lines: Line[];
  size: number;
}

/** Ratio to the page's body font size from which a short paragraph is a heading. */
const HEADING_MIN_RATIO = 1.3;
const HEADING_LEVEL_ONE_RATIO = 1.6;
const HEADING_MAX_CHARACTERS = 200;
const HEADING_MAX_LINES = 3;
/** A vertical gap above this many line heights starts a new paragraph. */
const PARAGRAPH_GAP_LINES = 1.5;
/** Font sizes differing by more than this share belong to different paragraphs. */
const SIZE_CHANGE_SHARE = 0.15;

const CJK = /[\p{Script=Han}\p{Script=Hiragana}\p{Script=Katakana}\p{Script=Hangul}]/u;

export function layoutPage(items: readonly PositionedText[], page: number): ParsedBlock[] {
  const lines = buildLines(items);
  if (lines.length === 0) return [];
  const bodySize = dominantSize(lines);
  return groupParagraphs(lines).flatMap((paragraph): ParsedBlock[] => {
    const text = joinLines(paragraph.lines.map((line) => line.text));
    if (text === "") return [];
    const ratio = bodySize > 0 ? paragraph.size / bodySize : 1;
    const isHeading =
      ratio >= HEADING_MIN_RATIO &&
      paragraph.lines.length <= HEADING_MAX_LINES &&
      text.length <= HEADING_MAX_CHARACTERS &&
      /\p{L}.*\p{L}/u.test(text);
    if (isHeading) return [{ kind: "heading", text, level: ratio >= HEADING_LEVEL_ONE_RATIO ? 1 : 2, page }];
    return [{ kind: "paragraph", text, page }];
  });
}

function itemSize(item: PositionedText): number {
  const [a = 0, b = 0, c = 0, d = 0] = item.transform;
  return item.height > 0 ? item.height : Math.hypot(c, d) || Math.hypot(a, b);
}

function buildLines(items: readonly PositionedText[]): Line[] {
  const lines: Line[] = [];
  let parts: string[] = [];
  let line: Line | undefined;
  let longest = 0;

  const end = (): void => {
    if (line) {
      line.text = parts.join("").replace(/\s+/g, " ").trim();
      if (line.text !== "") lines.push(line);
    }
    parts = [];
    line = undefined;
    longest = 0;
  };

  for (const item of items) {
    const x = item.transform[4] ?? 0;
    const y = item.transform[5] ?? 0;
    const size = itemSize(item);
    const hasText = item.str.trim() !== "";
    // A safety net for text runs pdf.js did not mark with hasEOL: a jump of two lines or more.
    if (line && hasText && Math.abs(y - line.y) > 2 * Math.max(size, line.size)) end();
    if (hasText) {
      if (!line) line = { text: "", x, y, right: x + item.width, size };
      line.right = Math.max(line.right, x + item.width);
      if (item.str.length > longest) {
        longest = item.str.length;
        line.size = size;
      }
    }
    parts.push(item.str);
    if (item.hasEOL) end();
  }
  end();
  return lines;
}

/** The font size carrying the most characters: the page's body text. */
function dominantSize(lines: readonly Line[]): number {
  const weights = new Map<number, number>();
  for (const line of lines) {
    const key = Math.round(line.size * 2) / 2;
    weights.set(key, (weights.get(key) ?? 0) + line.text.length);
  }
  let best = 0;
  let bestWeight = -1;
  for (const [size, weight] of weights) {
    if (weight > bestWeight) {
      best = size;
      bestWeight = weight;
    }
  }
  return best;
}

function groupParagraphs(lines: readonly Line[]): Paragraph[] {
  const paragraphs: Paragraph[] = [];
  let current: Paragraph | undefined;
  for (const line of lines) {
    const previous = current?.lines[current.lines.length - 1];
    if (!current || !previous || startsParagraph(current, previous, line)) {
      current = { lines: [line], size: line.size };
      paragraphs.push(current);
      continue;
    }
    current.lines.push(line);
    current.size = Math.max(current.size, line.size);
  }
  return paragraphs;
}

function startsParagraph(paragraph: Paragraph, previous: Line, line: Line): boolean {
  const size = Math.max(previous.size, line.size);
  if (size <= 0) return false;
  if (Math.abs(previous.size - line.size) > SIZE_CHANGE_SHARE * size) return true;
  const gap = previous.y - line.y;
  // Moving up the page: a new column or a text box placed out of order.
  if (gap < -0.5 * size) return true;
  const spacing = typicalSpacing(paragraph);
  if (gap > (spacing !== undefined ? Math.max(spacing * 1.3, size * 0.9) : size * PARAGRAPH_GAP_LINES)) return true;
  // First-line indent.
  const indent = line.x - previous.x;
  if (indent > 0.9 * size && indent < 6 * size && paragraph.lines.length > 1) return true;
  // The previous line ended a sentence well short of the paragraph's right edge.
  const right = Math.max(...paragraph.lines.map((candidate) => candidate.right));
  if (paragraph.lines.length > 1 && previous.right < right - 4 * size && /[.!?:]["'”’)]?$/.test(previous.text)) return true;
  return false;
}

/** The baseline-to-baseline distance inside a paragraph, once it has two lines. */
function typicalSpacing(paragraph: Paragraph): number | undefined {
  const [first, second] = paragraph.lines;
  if (!first || !second) return undefined;
  const spacing = first.y - second.y;
  return spacing > 0 ? spacing : undefined;
}

/** Joins a paragraph's lines: "hyphen-\nated" becomes "hyphenated", CJK lines join without a space. */
export function joinLines(lines: readonly string[]): string {
  let text = "";
  for (const line of lines) {
    if (text === "") {
      text = line;
      continue;
    }
    if (/\p{L}[-\u00ad]$/u.test(text) && /^\p{Ll}/u.test(line)) {
      // "compi-" + "lation": a word broken at the line end.
      text = text.slice(0, -1) + line;
    } else if (/\p{L}-$/u.test(text) && /^[\p{Lu}\d]/u.test(line)) {
      // "Trace-" + "Monkey", "ISO-" + "8859": a hyphen that belongs to the word.
      text += line;
    } else if (CJK.test(text.slice(-1)) && CJK.test(line.charAt(0))) {
      text += line;
    } else {
      text += ` ${line}`;
    }
  }
  return text.replace(/\u00ad/g, "").trim();
}
