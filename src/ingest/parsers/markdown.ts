import { ChunkpadError } from "../../core/errors.js";
import type { ParsedBlock, ParsedDocument, ParseInput, Parser } from "../../core/types.js";
import { decodeText } from "../text-encoding.js";
import { normalizeNewlines } from "./text.js";

/**
 * Markdown (CommonMark plus the common extensions: front matter, pipe tables, pandoc title
 * blocks and heading attributes). A small line-based reader: it only needs the block
 * structure and plain text, not HTML rendering.
 */
export const markdownParser: Parser = {
  name: "markdown",
  extensions: [".md", ".markdown", ".mdown", ".mkd"],
  async parse(input: ParseInput): Promise<ParsedDocument> {
    const { text } = decodeText(input.data);
    const lines = normalizeNewlines(text).replaceAll("\u0000", "").split("\n");
    const { title: metadataTitle, bodyStart } = readFrontMatter(lines);
    const blocks = parseMarkdownBlocks(lines.slice(bodyStart));
    if (blocks.length === 0) {
      throw new ChunkpadError("PARSE_EMPTY", "no text: the file is empty or holds only front matter and markup");
    }
    const firstHeading = blocks.find((block) => block.kind === "heading" && block.level === 1);
    const title = metadataTitle ?? firstHeading?.text;
    return { ...(title ? { title } : {}), blocks, warnings: [] };
  },
};

const FENCE = /^( {0,3})(`{3,}|~{3,})(.*)$/;
const ATX_HEADING = /^ {0,3}(#{1,6})(?:[ \t]+(.*?))?(?:[ \t]+#+)?[ \t]*$/;
const SETEXT_UNDERLINE = /^ {0,3}(=+|-+)[ \t]*$/;
const THEMATIC_BREAK = /^ {0,3}([-*_])(?:[ \t]*\1){2,}[ \t]*$/;
const QUOTE = /^ {0,3}> ?(.*)$/;
const LIST_ITEM = /^([ \t]*)([-*+]|\d{1,9}[.)])(?:[ \t]+(.*)|$)/;
const TABLE_SEPARATOR = /^[ \t]*\|?[ \t]*:?-+:?[ \t]*(?:\|[ \t]*:?-+:?[ \t]*)*\|?[ \t]*$/;
const LINK_DEFINITION = /^ {0,3}\[[^\]^][^\]]*\]:\s*\S+/;
const INDENTED_CODE = /^(?: {4}|\t)/;
/** Lines of a grid or simple table's rules ("+----+", "------ ------"), which carry no text. */
const TABLE_RULE = /^[ \t]*[-=+:|]{3,}[-=+:| \t]*$/;

/** Front matter (--- YAML --- or +++ TOML +++) is dropped; its title is kept. */
export function readFrontMatter(lines: string[]): { title?: string; bodyStart: number } {
  const first = lines[0]?.trim();
  if (first === "---" || first === "+++") {
    const closers = first === "---" ? ["---", "..."] : ["+++"];
    const end = lines.findIndex((line, index) => index > 0 && closers.includes(line.trim()));
    // Only a block of "key: value" lines is front matter; otherwise "---" is a thematic break.
    if (end > 0 && lines.slice(1, end).some((line) => /^[\w-]+\s*[:=]/.test(line))) {
      let title: string | undefined;
      for (const line of lines.slice(1, end)) {
        const match = /^title\s*[:=]\s*(.+)$/i.exec(line);
        if (match?.[1]) title = unquote(match[1].trim());
      }
      return { ...(title ? { title } : {}), bodyStart: end + 1 };
    }
  }
  // A pandoc title block: "% Title", "% Author", "% Date" on the first lines.
  if (lines[0]?.startsWith("% ")) {
    let bodyStart = 0;
    while (lines[bodyStart]?.startsWith("%")) bodyStart++;
    const title = lines[0].slice(2).trim();
    return { ...(title ? { title } : {}), bodyStart };
  }
  return { bodyStart: 0 };
}

function unquote(value: string): string {
  const match = /^(["'])(.*)\1$/.exec(value);
  return (match?.[2] ?? value).trim();
}

export function parseMarkdownBlocks(lines: string[]): ParsedBlock[] {
  const blocks: ParsedBlock[] = [];
  let paragraph: string[] = [];
  const flush = (): void => {
    const text = cleanInline(paragraph.filter((line) => !TABLE_RULE.test(line)).join("\n"));
    if (text) blocks.push({ kind: "paragraph", text });
    paragraph = [];
  };

  let index = 0;
  while (index < lines.length) {
    const line = lines[index] ?? "";
    if (line.trim() === "") {
      flush();
      index++;
      continue;
    }
    const fence = FENCE.exec(line);
    if (fence && !(fence[2]?.startsWith("`") && fence[3]?.includes("`"))) {
      flush();
      const [, indent = "", marker = "```"] = fence;
      const body: string[] = [];
      index++;
      while (index < lines.length) {
        const current = lines[index] ?? "";
        const closing = new RegExp(`^ {0,3}${marker[0] === "`" ? "`" : "~"}{${marker.length},}[ \\t]*$`);
        if (closing.test(current)) break;
        body.push(current.startsWith(indent) ? current.slice(indent.length) : current.trimStart());
        index++;
      }
      index++;
      const code = body.join("\n").replace(/^\n+|\s+$/g, "");
      if (code) blocks.push({ kind: "code", text: code });
      continue;
    }
    if (line.trimStart().startsWith("<!--")) {
      flush();
      while (index < lines.length && !(lines[index] ?? "").includes("-->")) index++;
      index++;
      continue;
    }
    const heading = ATX_HEADING.exec(line);
    if (heading) {
      flush();
      const text = cleanInline(stripAttributes(heading[2] ?? ""));
      if (text) blocks.push({ kind: "heading", level: heading[1]?.length ?? 1, text });
      index++;
      continue;
    }
    const underline = SETEXT_UNDERLINE.exec(line);
    if (underline && paragraph.length > 0) {
      const text = cleanInline(stripAttributes(paragraph.join("\n")));
      paragraph = [];
      if (text) blocks.push({ kind: "heading", level: underline[1]?.startsWith("=") ? 1 : 2, text });
      index++;
      continue;
    }
    if (THEMATIC_BREAK.test(line)) {
      flush();
      index++;
      continue;
    }
    if (QUOTE.test(line)) {
      flush();
      const inner: string[] = [];
      while (index < lines.length) {
        const current = lines[index] ?? "";
        const quoted = QUOTE.exec(current);
        if (quoted) inner.push(quoted[1] ?? "");
        else if (current.trim() !== "" && inner.length > 0 && (inner[inner.length - 1] ?? "").trim() !== "") inner.push(current);
        else break;
        index++;
      }
      const text = parseMarkdownBlocks(inner).map((block) => block.text).join("\n");
      if (text) blocks.push({ kind: "quote", text });
      continue;
    }
    const item = LIST_ITEM.exec(line);
    // An ordered list interrupts a paragraph only when it starts at 1 (CommonMark).
    if (item && (paragraph.length === 0 || /^(?:[-*+]|1[.)])$/.test(item[2] ?? ""))) {
      flush();
      const { text, next } = readList(lines, index);
      if (text) blocks.push({ kind: "list", text });
      index = next;
      continue;
    }
    const next = lines[index + 1] ?? "";
    if (paragraph.length === 0 && line.includes("|") && next.includes("|") && TABLE_SEPARATOR.test(next)) {
      const rows: string[] = [tableRow(line)];
      index += 2;
      while (index < lines.length && (lines[index] ?? "").includes("|") && (lines[index] ?? "").trim() !== "") {
        rows.push(tableRow(lines[index] ?? ""));
        index++;
      }
      blocks.push({ kind: "table", text: rows.join("\n") });
      continue;
    }
    if (paragraph.length === 0 && INDENTED_CODE.test(line)) {
      const body: string[] = [];
      while (index < lines.length) {
        const current = lines[index] ?? "";
        if (INDENTED_CODE.test(current)) body.push(current.replace(INDENTED_CODE, ""));
        else if (current.trim() === "") body.push("");
        else break;
        index++;
      }
      const code = body.join("\n").replace(/\s+$/, "");
      if (code) blocks.push({ kind: "code", text: code });
      continue;
    }
    if (paragraph.length === 0 && LINK_DEFINITION.test(line)) {
      index++;
      continue;
    }
    paragraph.push(line);
    index++;
  }
  flush();
  return blocks;
}

/** Reads a list starting at `start`; items become "- text" lines, nested ones indented. */
function readList(lines: string[], start: number): { text: string; next: number } {
  const items: { indent: number; marker: string; parts: string[] }[] = [];
  let index = start;
  let blankBefore = false;
  while (index < lines.length) {
    const line = (lines[index] ?? "").replace(/\t/g, "    ");
    if (line.trim() === "") {
      blankBefore = true;
      index++;
      continue;
    }
    const item = LIST_ITEM.exec(line);
    const last = items[items.length - 1];
    if (item && !THEMATIC_BREAK.test(line)) {
      const first = items[0];
      // A different marker at the top level starts a new list (CommonMark).
      if (first && (item[1]?.length ?? 0) <= first.indent && markerType(item[2] ?? "-") !== markerType(first.marker)) break;
      items.push({ indent: item[1]?.length ?? 0, marker: item[2] ?? "-", parts: [item[3] ?? ""] });
    } else if (last && (/^\s{2,}/.test(line) || !blankBefore) && !startsOtherBlock(line)) {
      last.parts.push(line.trim());
    } else {
      break;
    }
    blankBefore = false;
    index++;
  }
  const indents: number[] = [];
  const rendered = items.map((item) => {
    while (indents.length > 0 && item.indent < (indents[indents.length - 1] ?? 0)) indents.pop();
    if (indents.length === 0 || item.indent > (indents[indents.length - 1] ?? 0)) indents.push(item.indent);
    const depth = indents.length - 1;
    const marker = /^\d/.test(item.marker) ? item.marker.replace(")", ".") : "-";
    const text = cleanInline(item.parts.filter((part) => !FENCE.test(part)).join("\n"));
    return `${"  ".repeat(depth)}${marker} ${text}`.trimEnd();
  });
  return { text: rendered.join("\n"), next: index };
}

function markerType(marker: string): string {
  return /^\d/.test(marker) ? `ordered${marker.slice(-1)}` : marker;
}

function startsOtherBlock(line: string): boolean {
  return ATX_HEADING.test(line) || QUOTE.test(line) || FENCE.test(line) || THEMATIC_BREAK.test(line);
}

function tableRow(line: string): string {
  const cells = line
    .trim()
    .replace(/^\|/, "")
    .replace(/(?<!\\)\|$/, "")
    .split(/(?<!\\)\|/)
    .map((cell) => cleanInline(cell.replace(/\\\|/g, "|")));
  return cells.join(" | ");
}

/** Pandoc heading attributes: "Title {#id .class}". */
function stripAttributes(text: string): string {
  return text.replace(/\s*\{[#.][^}]*\}\s*$/, "");
}

const ENTITIES: Record<string, string> = { amp: "&", lt: "<", gt: ">", quot: '"', apos: "'", nbsp: " " };

/** Markdown inline syntax to plain text: links keep their text, images their alt text. */
export function cleanInline(text: string): string {
  // Code spans are kept verbatim; everything else between them is cleaned.
  return text
    .split(/(`+)([^`]|[^`][\s\S]*?[^`])\1(?!`)/)
    .map((part, index) => {
      if (index % 3 === 1) return "";
      if (index % 3 === 2) return part.trim();
      return cleanInlineText(part);
    })
    .join("")
    .replace(/[ \t]*\n[ \t]*/g, " ")
    .replace(/[ \t]{2,}/g, " ")
    .trim();
}

function cleanInlineText(text: string): string {
  return text
    .replace(/<!--[\s\S]*?-->/g, "")
    .replace(/!\[([^\]]*)\]\((?:[^()]|\([^)]*\))*\)(?:\{[^}]*\})?/g, "$1")
    .replace(/!\[([^\]]*)\]\[[^\]]*\]/g, "$1")
    .replace(/\[([^\]]+)\]\((?:[^()]|\([^)]*\))*\)(?:\{[^}]*\})?/g, "$1")
    .replace(/\[([^\]]+)\]\[[^\]]*\]/g, "$1")
    .replace(/\[\^[^\]]+\]:?/g, "")
    .replace(/\[([^\]]*)\]\{[^}]*\}/g, "$1")
    .replace(/<((?:https?|mailto|ftp):[^>\s]+)>/g, "$1")
    .replace(/<(\/?[A-Za-z][A-Za-z0-9-]*)(?:\s[^>]*)?\/?>/g, (_tag, name: string) => (/^br$/i.test(name) ? " " : ""))
    .replace(/(\*\*|__)(?=\S)([\s\S]*?\S)\1/g, "$2")
    .replace(/(^|[^\w*\\])\*(?=[^\s*])([\s\S]*?[^\s*\\])\*(?![\w*])/g, "$1$2")
    .replace(/(^|\W)_(?=\S)([\s\S]*?\S)_(?!\w)/g, "$1$2")
    .replace(/~~(?=\S)([\s\S]*?\S)~~/g, "$1")
    // Unpaired strong/strike markers left by odd spacing (Word exports) carry no text.
    .replace(/(?<!\\)(?:\*\*+|~~)/g, "")
    .replace(/\\\n/g, "\n")
    .replace(/\\([!-/:-@[-`{-~])/g, "$1")
    .replace(/&(#x[0-9a-f]+|#\d+|[a-z]+);/gi, (entity, name: string) => decodeEntity(entity, name));
}

function decodeEntity(entity: string, name: string): string {
  if (name.startsWith("#")) {
    const code = name[1] === "x" || name[1] === "X" ? parseInt(name.slice(2), 16) : parseInt(name.slice(1), 10);
    return Number.isFinite(code) && code > 0 && code <= 0x10ffff ? String.fromCodePoint(code) : entity;
  }
  return ENTITIES[name.toLowerCase()] ?? entity;
}
