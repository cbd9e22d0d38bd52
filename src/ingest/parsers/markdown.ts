import type { Nodes, Parent, Root, RootContent } from "mdast";
import { fromMarkdown } from "mdast-util-from-markdown";
import { gfmFromMarkdown } from "mdast-util-gfm";
import { gfm } from "micromark-extension-gfm";
import { gfmFootnote } from "micromark-extension-gfm-footnote";
import { gfmStrikethrough } from "micromark-extension-gfm-strikethrough";
import { gfmTable } from "micromark-extension-gfm-table";
import { gfmTaskListItem } from "micromark-extension-gfm-task-list-item";
import { ChunkpadError } from "../../core/errors.js";
import type { ParsedBlock, ParsedDocument, ParseInput, Parser } from "../../core/types.js";
import { decodeText } from "../text-encoding.js";
import { normalizeNewlines } from "./text.js";
import { scanMarkdownBlocks } from "./markdown-scan.js";
import { collapse, stripAttributes, TABLE_RULE } from "./markdown-text.js";

/**
 * Markdown: CommonMark plus GitHub's tables, strikethrough and footnotes, read by micromark into
 * an mdast tree, so block structure follows the spec (setext headings, indented code, HTML
 * blocks, lazy continuation). Front matter and pandoc title blocks are read here first; pandoc
 * heading attributes are dropped from heading text.
 */
export const markdownParser: Parser = {
  name: "markdown",
  extensions: [".md", ".markdown", ".mdown", ".mkd"],
  async parse(input: ParseInput): Promise<ParsedDocument> {
    const { text } = decodeText(input.data);
    const lines = normalizeNewlines(text).replaceAll("\u0000", "").split("\n");
    const { title: metadataTitle, bodyStart } = readFrontMatter(lines);
    const blocks = markdownBlocks(lines.slice(bodyStart).join("\n"));
    if (blocks.length === 0) {
      throw new ChunkpadError("PARSE_EMPTY", "no text: the file is empty or holds only front matter and markup");
    }
    const firstHeading = blocks.find((block) => block.kind === "heading" && block.level === 1);
    const title = metadataTitle ?? firstHeading?.text;
    return { ...(title ? { title } : {}), blocks, warnings: [] };
  },
};

/**
 * GFM's autolink literals (www.…, http://…, https://…, e-mail addresses) cost more than the rest
 * of the parse (2.5–4× plain CommonMark on prose, bench/markdown-parse.ts), and none can start
 * in a text without "www.", "://" or "@": such a text is parsed without them, to the same tree.
 */
const AUTOLINK_POSSIBLE = /www\.|:\/\/|@/i;
const WITH_AUTOLINKS = { extensions: [gfm()], mdastExtensions: [gfmFromMarkdown()] };
const WITHOUT_AUTOLINKS = { extensions: [gfmFootnote(), gfmStrikethrough(), gfmTable(), gfmTaskListItem()], mdastExtensions: [gfmFromMarkdown()] };

export function parseMarkdown(markdown: string, options: { autolinks?: "when-possible" | "always" } = {}): Root {
  const autolinks = options.autolinks === "always" || AUTOLINK_POSSIBLE.test(markdown);
  return fromMarkdown(markdown, autolinks ? WITH_AUTOLINKS : WITHOUT_AUTOLINKS);
}

/**
 * The blocks of a markdown body: by the line scanner where it reads the text (most notes), each
 * block with inline markup parsed on its own; by micromark's whole tree otherwise.
 */
export function markdownBlocks(markdown: string): ParsedBlock[] {
  return scanMarkdownBlocks(markdown, markdownBlocksByTree) ?? markdownBlocksByTree(markdown);
}

/** The blocks of micromark's tree of the whole text (CommonMark plus GFM). */
export function markdownBlocksByTree(markdown: string): ParsedBlock[] {
  return blocksOf(parseMarkdown(markdown));
}

/** Front matter (--- YAML --- or +++ TOML +++) is dropped; its title is kept. */
function readFrontMatter(lines: string[]): { title?: string; bodyStart: number } {
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

function blocksOf(parent: Root | Parent): ParsedBlock[] {
  return parent.children.flatMap((node) => blocksOfNode(node as RootContent));
}

function blocksOfNode(node: RootContent): ParsedBlock[] {
  switch (node.type) {
    case "heading": {
      const text = stripAttributes(inlineText(node));
      return text ? [{ kind: "heading", level: node.depth, text }] : [];
    }
    case "paragraph":
      return textBlock("paragraph", inlineText(node));
    case "html":
      // Text inside an HTML block ("<div>Note</div>") is still the author's text.
      return textBlock("paragraph", htmlText(node.value));
    case "code":
      return textBlock("code", node.value.replace(/^\n+|\s+$/g, ""));
    case "list":
      return textBlock("list", listLines(node, 0).join("\n"));
    case "table":
      return [{ kind: "table", text: node.children.map((row) => row.children.map((cell) => inlineText(cell)).join(" | ")).join("\n") }];
    case "blockquote":
      return textBlock("quote", blocksOf(node).map((block) => block.text).join("\n"));
    case "footnoteDefinition":
      return blocksOf(node);
    default:
      // Thematic breaks, link reference definitions and front matter carry no text.
      return [];
  }
}

function textBlock(kind: ParsedBlock["kind"], text: string): ParsedBlock[] {
  return text ? [{ kind, text }] : [];
}

/**
 * A list as "- item" lines (ordered ones numbered), nested lists indented two spaces a level;
 * code inside an item follows it, indented, so a step's command stays with the step.
 */
function listLines(list: Extract<Nodes, { type: "list" }>, depth: number): string[] {
  const start = list.start ?? 1;
  const indent = "  ".repeat(depth);
  return list.children.flatMap((item, index) => {
    const marker = list.ordered ? `${start + index}.` : "-";
    const text = item.children
      .filter((child) => child.type !== "list" && child.type !== "code")
      .flatMap((child) => (child.type === "paragraph" || child.type === "heading" ? [inlineText(child)] : blocksOfNode(child).map((block) => block.text)))
      .filter(Boolean)
      .join(" ");
    const rest = item.children.flatMap((child) => {
      if (child.type === "list") return listLines(child, depth + 1);
      if (child.type === "code") return child.value.split("\n").filter((line) => line.trim() !== "").map((line) => `${indent}  ${line}`);
      return [];
    });
    return [`${indent}${marker} ${text}`.trimEnd(), ...rest];
  });
}

/** Inline markup to plain text: links keep their text, images their alt text, code its code. */
function inlineText(node: Nodes): string {
  return collapse(rawInline(node));
}

function rawInline(node: Nodes): string {
  switch (node.type) {
    case "text":
      return node.value
        .split("\n")
        .filter((line) => !TABLE_RULE.test(line))
        .join("\n");
    case "inlineCode":
      return node.value;
    case "image":
    case "imageReference":
      return node.alt ?? "";
    case "html":
      return /^<br\b/i.test(node.value) ? " " : "";
    case "break":
      return "\n";
    case "footnoteReference":
      return "";
    default:
      return "children" in node ? node.children.map((child) => rawInline(child as Nodes)).join("") : "";
  }
}

function htmlText(html: string): string {
  return collapse(
    html
      .replace(/<!--[\s\S]*?-->/g, "")
      .replace(/<(script|style)\b[\s\S]*?<\/\1\s*>/gi, "")
      .replace(/<br\b[^>]*>/gi, " ")
      .replace(/<[^>]*>/g, ""),
  );
}

