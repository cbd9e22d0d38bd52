import type { ParsedBlock } from "../../core/types.js";
import { collapse, stripAttributes, TABLE_RULE } from "./markdown-text.js";

/**
 * A line scanner for the markdown most notes are made of: ATX headings, paragraphs, flat lists
 * and fenced code at the left margin, and pipe tables of plain cells. It finds where CommonMark's blocks begin and end; a block
 * with no inline markup but plain links becomes text here, one with markup is parsed by micromark on its own (the
 * same result: with no link reference definitions in the document, a block's inline content
 * depends on nothing outside it). Anything it does not handle — indented lines, block quotes,
 * HTML blocks, tables, thematic breaks, setext headings, reference definitions, lazy
 * continuation — makes it return undefined, and the whole document is parsed by micromark, as
 * before. The AST parse was most of Step 1's cost on markdown (issue 22); a test holds the two
 * paths to the same blocks on every markdown file at hand.
 */

/** Characters an inline parse could change text for: escapes, code, emphasis, links, images, HTML, entities, strikethrough, table cells. */
const INLINE_MARKUP = /[\\`*_[\]!<>&~|]/;
const ATX = /^(#{1,6})(?:[ \t]+(.*))?$/;
const FENCE = /^(`{3,}|~{3,})(.*)$/;
const LIST_START = /^(?:[-*+]|\d{1,9}[.)])(?:[ \t]|$)/;
const BULLET = /^([-*+])( {1,4})(\S.*)$/;
const ORDERED = /^(\d{1,9})([.)])( {1,4})(\S.*)$/;
const EMPTY_ITEM = /^(?:([-*+])|(\d{1,9})([.)]))[ \t]*$/;
/** Thematic breaks, setext underlines and grid or simple table rules. */
const RULE_LIKE = /^[-*_=+:|][-*_=+:| \t]*$/;
/** An item whose text opens another block (a heading, a nested list, a fence, a quote): left to micromark. */
const OPENS_BLOCK = /^(?:#{1,6}(?:[ \t]|$)|[-*+](?:[ \t]|$)|\d{1,9}[.)](?:[ \t]|$)|```|~~~|[>=<])/;

/**
 * An inline link with nothing else in it: a one-line label of plain characters with a letter or
 * digit, and a destination without spaces, brackets or markup (no title). micromark's tree
 * gives such a link as its label's text, so the scanner can too; notes link a lot (the index,
 * a source), and a block parsed by micromark costs ≈ 0.2 ms.
 */
const PLAIN_LINK = /\[([^\n\\`*_[\]!<>&~|()]*[\p{L}\p{N}][^\n\\`*_[\]!<>&~|()]*)\]\(([^\s\\`*_[\]!<>&~|()]*)\)/gu;

/**
 * Markup characters that stand for themselves: "&" that cannot begin a character reference (no
 * "#", no "name;" after it: "R&D", "AT&T"), "!" not before "[" (no image), "_" between letters
 * or digits ("snake_case"), and a run of "*" or "_" with a space or tab on both sides ("X * Y"):
 * such runs can neither open nor close emphasis. Notes are full of them.
 */
const INERT_MARKUP = /&(?!#|[A-Za-z0-9]+;)|!(?!\[)|(?<=[\p{L}\p{N}])_(?=[\p{L}\p{N}])|(?<=[ \t])(?:\*+|_+)(?=[ \t])/gu;

/**
 * The text of inline content whose only markup is plain links, as micromark's path gives it (its
 * text nodes, each without table-rule lines (TABLE_RULE), joined); undefined when anything else needs the parser.
 */
function plainInline(text: string): string | undefined {
  if (!INLINE_MARKUP.test(text)) return withoutRules(text);
  // Looked for in a copy with the inert characters masked (same offsets); the text is taken from the original.
  let masked = text.replace(INERT_MARKUP, "\u0000");
  // With no "<" anywhere, no ">" closes HTML or an autolink ("->"); a quote's ">" is a block, never here.
  if (!masked.includes("<")) masked = masked.replaceAll(">", "\u0000");
  // Without "](" no bracket makes a link ("[1]", "[sic]"): references need definitions, and a document
  // with one is not scanned. One at the start may be a task item's box ("- [x] done"): left to micromark.
  if (!masked.includes("](") && !masked.startsWith("[")) masked = masked.replace(/[[\]]/g, "\u0000");
  const pieces: string[] = [];
  let last = 0;
  for (const match of masked.matchAll(PLAIN_LINK)) {
    const label = match[1] as string;
    if (INLINE_MARKUP.test(masked.slice(last, match.index))) return undefined;
    pieces.push(text.slice(last, match.index), text.slice(match.index + 1, match.index + 1 + label.length));
    last = match.index + match[0].length;
  }
  if (INLINE_MARKUP.test(masked.slice(last))) return undefined;
  pieces.push(text.slice(last));
  return pieces.map(withoutRules).join("");
}

function withoutRules(text: string): string {
  return text.split("\n").filter((line) => !TABLE_RULE.test(line)).join("\n");
}

/** A pipe table's delimiter row, between pipes at both ends: dashes with optional alignment colons. */
const TABLE_DELIMITER = /^\|(?:[ \t]*:?-+:?[ \t]*\|)+$/;

/** A row's cells when it starts and ends with "|" at the margin (trailing spaces or tabs aside). */
function cellsOf(line: string): string[] | undefined {
  const row = line.replace(/[ \t]+$/, "");
  return row.length >= 2 && row.startsWith("|") && row.endsWith("|") ? row.slice(1, -1).split("|") : undefined;
}

/**
 * A pipe table as micromark's path gives it (each row's cells as text joined by " | ", the
 * delimiter row left out), when every line is a row between pipes with as many cells as the
 * delimiter row and every cell is plain text or plain links; undefined otherwise (escaped pipes,
 * code, uneven rows, a line that is not a row: micromark's call).
 */
function plainTable(lines: readonly string[]): ParsedBlock[] | undefined {
  const delimiter = lines[1]?.replace(/[ \t]+$/, "");
  if (delimiter === undefined || !TABLE_DELIMITER.test(delimiter)) return undefined;
  const width = (cellsOf(delimiter) as string[]).length;
  const rows: string[] = [];
  for (const [index, line] of lines.entries()) {
    if (index === 1) continue;
    const cells = cellsOf(line)?.map((cell) => plainInline(cell.replace(/^[ \t]+|[ \t]+$/g, "")));
    if (cells?.length !== width || cells.includes(undefined)) return undefined;
    rows.push(cells.map((cell) => collapse(cell ?? "")).join(" | "));
  }
  return [{ kind: "table", text: rows.join("\n") }];
}

type Segment =
  | { kind: "heading"; line: string; level: number; content: string }
  | { kind: "paragraph"; lines: string[] }
  | { kind: "list"; lines: string[]; items: ListItem[] }
  | { kind: "code"; value: string }
  | { kind: "opaque"; lines: string[] };

interface ListItem {
  marker: string;
  number: number | undefined;
  content: string;
}

/**
 * The blocks of `markdown` (front matter already taken off), or undefined when the text holds
 * something only the full parser reads right. `parseBlock` parses one block's lines with micromark.
 */
export function scanMarkdownBlocks(markdown: string, parseBlock: (text: string) => ParsedBlock[]): ParsedBlock[] | undefined {
  // A reference definition ("[label]: url", footnotes too) changes how text elsewhere reads.
  if (markdown.includes("]:")) return undefined;
  const segments = segmentsOf(markdown.split("\n"));
  if (!segments) return undefined;
  return segments.flatMap((segment) => blocksOfSegment(segment, parseBlock));
}

function blocksOfSegment(segment: Segment, parseBlock: (text: string) => ParsedBlock[]): ParsedBlock[] {
  switch (segment.kind) {
    case "opaque":
      return plainTable(segment.lines) ?? parseBlock(segment.lines.join("\n"));
    case "code": {
      const text = segment.value.replace(/^\n+|\s+$/g, "");
      return text ? [{ kind: "code", text }] : [];
    }
    case "heading": {
      const content = plainInline(segment.content);
      if (content === undefined) return parseBlock(segment.line);
      const text = stripAttributes(collapse(content));
      return text ? [{ kind: "heading", level: segment.level, text }] : [];
    }
    case "paragraph": {
      const content = plainInline(segment.lines.join("\n"));
      if (content === undefined) return parseBlock(segment.lines.join("\n"));
      const text = collapse(content);
      return text ? [{ kind: "paragraph", text }] : [];
    }
    case "list": {
      const contents = segment.items.map((item) => (OPENS_BLOCK.test(item.content) ? undefined : plainInline(item.content)));
      if (contents.includes(undefined)) return parseBlock(segment.lines.join("\n"));
      const start = segment.items[0]?.number;
      const text = contents
        .map((content, index) => `${start === undefined ? "-" : `${start + index}.`} ${collapse(content ?? "")}`.trimEnd())
        .join("\n");
      return text ? [{ kind: "list", text }] : [];
    }
  }
}

function isBlank(line: string): boolean {
  return /^[ \t]*$/.test(line);
}

/** The line's list item, or undefined when it is a list start this scanner does not read (empty, tabs, 5+ spaces). */
function listItemOf(line: string): ListItem | undefined {
  const bullet = BULLET.exec(line);
  if (bullet) return { marker: bullet[1] as string, number: undefined, content: bullet[3] as string };
  const ordered = ORDERED.exec(line);
  if (ordered) return { marker: ordered[2] as string, number: Number(ordered[1]), content: ordered[4] as string };
  // An empty item ("1969." alone on its line: CommonMark makes it a list item with no text).
  const empty = EMPTY_ITEM.exec(line);
  if (empty) return { marker: (empty[1] ?? empty[3]) as string, number: empty[2] === undefined ? undefined : Number(empty[2]), content: "" };
  return undefined;
}

/** Lines into top-level blocks, or undefined at the first line the scanner leaves to micromark. */
function segmentsOf(lines: string[]): Segment[] | undefined {
  const segments: Segment[] = [];
  let index = 0;
  while (index < lines.length) {
    const line = lines[index] as string;
    if (isBlank(line)) {
      index++;
      continue;
    }
    const indent = indentOf(line);
    if (indent === undefined || indent > 3) return undefined;
    if (!startsPlainly(line.slice(indent))) {
      const opaque = readOpaque(lines, index);
      if (!opaque) return undefined;
      segments.push(opaque.segment);
      index = opaque.next;
      continue;
    }
    if (indent > 0) {
      // Only a paragraph is read when indented (1–3 spaces); any other block there is micromark's.
      if (FENCE.test(line.slice(indent)) || ATX.test(line.slice(indent)) || LIST_START.test(line.slice(indent))) return undefined;
    } else if (FENCE.test(line)) {
      const fence = FENCE.exec(line) as RegExpExecArray;
      const opening = fence[1] as string;
      // A backtick fence's info string may not hold a backtick (then it is inline code).
      if (opening.startsWith("`") && (fence[2] ?? "").includes("`")) return undefined;
      const closing = new RegExp(`^ {0,3}${opening[0] === "`" ? "`" : "~"}{${opening.length},}[ \\t]*$`);
      const body: string[] = [];
      index++;
      while (index < lines.length && !closing.test(lines[index] as string)) body.push(lines[index++] as string);
      index++; // the closing fence (or past the end: an open fence runs to the end of the document)
      segments.push({ kind: "code", value: body.join("\n") });
      continue;
    } else if (ATX.test(line)) {
      const heading = ATX.exec(line) as RegExpExecArray;
      const content = (heading[2] ?? "").trim().replace(/(?:^|[ \t]+)#+$/, "").trim();
      segments.push({ kind: "heading", line, level: (heading[1] as string).length, content });
      index++;
      continue;
    } else if (LIST_START.test(line)) {
      const list = readList(lines, index);
      if (!list) return undefined;
      segments.push(list.segment);
      index = list.next;
      continue;
    }
    // A paragraph runs to a blank line or a line that interrupts it.
    const paragraph: string[] = [line];
    const paragraphStart = index;
    let opaque = false;
    index++;
    for (let next = lines[index]; next !== undefined && !isBlank(next); next = lines[index]) {
      const interrupt = interruptsParagraph(next);
      if (interrupt === undefined) {
        opaque = true;
        break;
      }
      if (interrupt) break;
      paragraph.push(next);
      index++;
    }
    if (opaque) {
      // A table header, a setext underline or a quote under the text: the lot, to the blank line, is micromark's.
      const run = readOpaque(lines, paragraphStart);
      if (!run) return undefined;
      segments.push(run.segment);
      index = run.next;
      continue;
    }
    segments.push({ kind: "paragraph", lines: paragraph });
  }
  return segments;
}

/**
 * Lines from `start` to the next blank line, parsed by micromark on their own (a table, a quote,
 * a setext heading, a thematic break). That is the same as in the document only when nothing in
 * them can run past the blank line or into what follows: a fence, HTML, a list item or indented
 * code makes it undefined.
 */
function readOpaque(lines: string[], start: number): { segment: Segment; next: number } | undefined {
  const run: string[] = [];
  let index = start;
  for (let line = lines[index]; line !== undefined && !isBlank(line); line = lines[++index]) {
    const indent = indentOf(line);
    if (indent === undefined || (index === start && indent > 3)) return undefined;
    const text = line.slice(indent);
    if (FENCE.test(text) || LIST_START.test(text) || text.startsWith("<") || (indent > 3 && /^[ \t]*$/.test(lines[index + 1] ?? ""))) return undefined;
    run.push(line);
  }
  return { segment: { kind: "opaque", lines: run }, next: index };
}

/** Leading spaces, or undefined when the indentation holds a tab (columns the scanner does not count). */
function indentOf(line: string): number | undefined {
  const indent = /^[ \t]*/.exec(line)?.[0] ?? "";
  return indent.includes("\t") ? undefined : indent.length;
}

/**
 * For a non-blank line under paragraph text: true when it starts a new block (a fence, an ATX
 * heading, a bullet item, an item numbered 1), false when it continues the text, undefined when
 * it is something the scanner leaves to micromark (a quote, HTML, a rule or setext underline).
 */
function interruptsParagraph(line: string): boolean | undefined {
  const indent = indentOf(line);
  if (indent === undefined) return undefined;
  if (indent > 3) return line.includes("|") ? undefined : false; // indented code cannot interrupt a paragraph
  const text = line.slice(indent);
  if (!startsPlainly(text)) return undefined;
  if (FENCE.test(text) || ATX.test(text)) return indent === 0 ? true : undefined;
  if (LIST_START.test(text)) {
    // Only a non-empty item, and of numbered ones only one numbered 1, interrupts a paragraph:
    // "1969." or "3) budgets" under text continues it.
    if (/^(?:[-*+]|\d{1,9}[.)])[ \t]*$/.test(text)) return false;
    const number = /^(\d{1,9})[.)]/.exec(text)?.[1];
    if (number !== undefined && Number(number) !== 1) return false;
    // A bullet or "1." at the margin starts a list; indented, or with tabs or 5+ spaces after it, it is micromark's call.
    return listItemOf(text) && indent === 0 ? true : undefined;
  }
  return false;
}

/** A line this scanner can place (from its first non-space): not a quote, HTML, table or rule. */
function startsPlainly(text: string): boolean {
  const first = text[0];
  return first !== ">" && first !== "<" && !text.includes("|") && !RULE_LIKE.test(text);
}

/**
 * A flat list from `start`: items of one kind at the left margin, each one paragraph (its lines
 * may continue, lazily or indented), blank lines between items allowed.
 */
function readList(lines: string[], start: number): { segment: Segment; next: number } | undefined {
  const first = listItemOf(lines[start] as string);
  if (!first) return undefined;
  const items: ListItem[] = [first];
  const listLines: string[] = [lines[start] as string];
  let index = start + 1;
  const sameKind = (item: ListItem) => item.marker === first.marker && (item.number === undefined) === (first.number === undefined);
  while (index < lines.length) {
    const line = lines[index] as string;
    if (isBlank(line)) {
      let after = index;
      while (after < lines.length && isBlank(lines[after] as string)) after++;
      const following = lines[after];
      if (following === undefined) break;
      // An indented line after a blank belongs to the item (a second paragraph, a nested block).
      if (/^[ \t]/.test(following)) return undefined;
      if (!LIST_START.test(following)) break;
      const item = listItemOf(following);
      if (!item) return undefined;
      if (!sameKind(item)) break;
      listLines.push(...lines.slice(index, after + 1));
      items.push(item);
      index = after + 1;
      continue;
    }
    if (LIST_START.test(line)) {
      // At the margin under an item, any list marker starts an item (the rule that only "1."
      // interrupts text is for a paragraph that holds the line): one of another kind ends this
      // list and begins the next ("3) budgets" under a bullet's text), as after a blank line.
      const item = listItemOf(line);
      if (!item) return undefined;
      if (!sameKind(item)) break;
      listLines.push(line);
      items.push(item);
      index++;
      continue;
    }
    // Under an empty item nothing goes on lazily: an indented line would be its content (micromark's call), any other ends the list.
    if ((items[items.length - 1] as ListItem).content === "") {
      if (/^[ \t]/.test(line)) return undefined;
      break;
    }
    // An indented line may open a block inside the item ("    1. nested" under "1. One"): micromark's call.
    const text = line.trimStart();
    if (text.length < line.length && (OPENS_BLOCK.test(text) || !startsPlainly(text))) return undefined;
    const interrupt = interruptsParagraph(line);
    if (interrupt === undefined) return undefined;
    if (interrupt) {
      // A fence or heading at the margin ends the list; a list of another kind right under it is micromark's call.
      if (indentOf(line) !== 0 || !(FENCE.test(line) || ATX.test(line))) return undefined;
      break;
    }
    // The item's text goes on (indented, or lazily at the margin): nothing here can interrupt it.
    const last = items[items.length - 1] as ListItem;
    items[items.length - 1] = { ...last, content: `${last.content}\n${line.trimStart()}` };
    listLines.push(line);
    index++;
  }
  return { segment: { kind: "list", lines: listLines, items }, next: index };
}
