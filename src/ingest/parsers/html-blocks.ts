import type { ParsedBlock } from "../../core/types.js";
import { markdownTable } from "./table-text.js";

/**
 * Turns a DOM subtree into blocks: headings with levels, paragraphs, lists as "- item" lines,
 * tables as markdown tables, <pre> as code, blockquotes as quotes. Works on any DOM that has
 * the standard Node API (linkedom here).
 */
export interface BlockWalkOptions {
  /**
   * Whether an element's own text counts (the main-content selection). Elements that do not
   * count are still descended into, so content kept below them is found.
   */
  isKept?: (element: Element) => boolean;
}

const ELEMENT_NODE = 1;
const TEXT_NODE = 3;
/** Stands for a <br> while whitespace is collapsed (a private-use character). */
const LINE_BREAK = "\ue000";

const BLOCK_TAGS = new Set([
  "address", "article", "aside", "body", "center", "dd", "details", "dialog", "div", "dl", "dt", "fieldset",
  "figcaption", "figure", "footer", "form", "header", "hgroup", "html", "li", "main", "nav", "section", "summary",
  "tbody", "td", "tfoot", "th", "thead", "tr", "caption", "menu", "legend", "noscript",
]);

export function htmlToBlocks(root: Element, options: BlockWalkOptions = {}): ParsedBlock[] {
  const isKept = options.isKept ?? (() => true);
  const blocks: ParsedBlock[] = [];
  let inline = "";

  const push = (kind: ParsedBlock["kind"], text: string, level?: number): void => {
    if (text.trim() === "") return;
    blocks.push(level === undefined ? { kind, text } : { kind, text, level });
  };
  const flush = (): void => {
    push("paragraph", finishInline(inline));
    inline = "";
  };

  /** `kept`: this node's own text counts; `insideKept`: some ancestor is kept content. */
  const walk = (node: Node, kept: boolean, insideKept: boolean): void => {
    for (const child of Array.from(node.childNodes)) {
      if (child.nodeType === TEXT_NODE) {
        if (kept) inline += child.nodeValue ?? "";
        continue;
      }
      if (child.nodeType !== ELEMENT_NODE) continue;
      const element = child as Element;
      const tag = element.localName.toLowerCase();
      const keptHere = isKept(element);
      const heading = /^h([1-6])$/.exec(tag);
      if (heading) {
        // A heading inside the kept content stays even when the selection dropped it, unless
        // the selection dropped its whole section (a sidebar's "Most read").
        const sectionKept = insideKept && Array.from(node.childNodes).some((sibling) => sibling !== element && containsKept(sibling));
        if (keptHere || kept || sectionKept) {
          flush();
          push("heading", collapse(inlineText(element)), Number(heading[1]));
        }
        continue;
      }
      if (!keptHere) {
        if (BLOCK_TAGS.has(tag) || tag === "p") flush();
        walk(element, false, insideKept);
        continue;
      }
      switch (tag) {
        case "br":
          inline += LINE_BREAK;
          break;
        case "hr":
          flush();
          break;
        case "p":
          flush();
          push("paragraph", finishInline(inlineText(element)));
          break;
        case "ul":
        case "ol":
        case "menu":
          flush();
          push("list", renderList(element, 0).join("\n"));
          break;
        case "dl":
          flush();
          push("list", renderDefinitions(element));
          break;
        case "table":
          flush();
          blocks.push(...renderTable(element));
          break;
        case "pre":
          flush();
          push("code", (element.textContent ?? "").replace(/^\n+|\s+$/g, ""));
          break;
        case "blockquote": {
          flush();
          const inner = htmlToBlocks(element, options).map((block) => block.text);
          push("quote", inner.join("\n"));
          break;
        }
        case "img":
        case "script":
        case "style":
        case "template":
          break;
        default:
          if (BLOCK_TAGS.has(tag)) {
            flush();
            walk(element, true, true);
            flush();
          } else {
            walk(element, true, true);
          }
      }
    }
  };

  const containsKept = (node: Node): boolean =>
    node.nodeType === ELEMENT_NODE && (isKept(node as Element) || Array.from((node as Element).querySelectorAll("*")).some(isKept));

  walk(root, isKept(root), isKept(root));
  flush();
  return blocks;
}

/** Text of an element with <br> kept as a line break and block children as spaces. */
function inlineText(element: Element): string {
  let text = "";
  const visit = (node: Node): void => {
    for (const child of Array.from(node.childNodes)) {
      if (child.nodeType === TEXT_NODE) text += child.nodeValue ?? "";
      else if (child.nodeType === ELEMENT_NODE) {
        const tag = (child as Element).localName.toLowerCase();
        if (tag === "br") text += LINE_BREAK;
        else if (tag === "script" || tag === "style" || tag === "template") continue;
        else {
          const block = BLOCK_TAGS.has(tag) || tag === "p" || tag === "ul" || tag === "ol" || tag === "table";
          if (block) text += " ";
          visit(child);
          if (block) text += " ";
        }
      }
    }
  };
  visit(element);
  return text;
}

function collapse(text: string): string {
  return text.replace(/[\s\ue000]+/g, " ").trim();
}

function finishInline(text: string): string {
  return text
    .replace(/[ \t\n\r\f\u00a0]+/g, (space) => (space.includes("\u00a0") ? "\u00a0" : " "))
    .split(LINE_BREAK)
    .map((line) => line.trim())
    .join("\n")
    .replace(/\u00a0/g, " ")
    .replace(/^\n+|\n+$/g, "")
    .replace(/\n{3,}/g, "\n\n")
    .trim();
}

function renderList(list: Element, depth: number): string[] {
  const lines: string[] = [];
  const ordered = list.localName.toLowerCase() === "ol";
  let number = Number.parseInt(list.getAttribute("start") ?? "1", 10);
  if (!Number.isFinite(number)) number = 1;
  for (const item of Array.from(list.children)) {
    if (item.localName.toLowerCase() !== "li") {
      if (/^(ul|ol)$/i.test(item.localName)) lines.push(...renderList(item, depth + 1));
      continue;
    }
    const nested: Element[] = [];
    let text = "";
    for (const child of Array.from(item.childNodes)) {
      if (child.nodeType === ELEMENT_NODE && /^(ul|ol)$/i.test((child as Element).localName)) nested.push(child as Element);
      else if (child.nodeType === TEXT_NODE) text += child.nodeValue ?? "";
      else if (child.nodeType === ELEMENT_NODE) text += ` ${inlineText(child as Element)} `;
    }
    const marker = ordered ? `${number}.` : "-";
    number++;
    lines.push(`${"  ".repeat(depth)}${marker} ${collapse(text)}`.trimEnd());
    for (const sublist of nested) lines.push(...renderList(sublist, depth + 1));
  }
  return lines;
}

function renderDefinitions(list: Element): string {
  const lines: string[] = [];
  for (const child of Array.from(list.querySelectorAll("dt, dd"))) {
    const text = collapse(inlineText(child));
    if (!text) continue;
    if (child.localName.toLowerCase() === "dt") lines.push(`- ${text}`);
    else if (lines.length > 0) lines[lines.length - 1] += `: ${text}`;
    else lines.push(`- ${text}`);
  }
  return lines.join("\n");
}

function renderTable(table: Element): ParsedBlock[] {
  const blocks: ParsedBlock[] = [];
  const caption = table.querySelector("caption");
  const captionText = caption && caption.closest("table") === table ? collapse(inlineText(caption)) : "";
  if (captionText) blocks.push({ kind: "paragraph", text: captionText });
  const rows: string[][] = [];
  for (const row of Array.from(table.querySelectorAll("tr"))) {
    if (row.closest("table") !== table) continue;
    rows.push(
      Array.from(row.children)
        .filter((cell) => /^(td|th)$/i.test(cell.localName))
        .map((cell) => collapse(inlineText(cell))),
    );
  }
  // A one-column table is layout (old pages put their whole text in one), not data.
  if (rows.every((row) => row.filter((cell) => cell !== "").length <= 1)) {
    for (const row of rows) {
      const text = row.find((cell) => cell !== "");
      if (text) blocks.push({ kind: "paragraph", text });
    }
    return blocks;
  }
  const rendered = markdownTable(rows);
  if (rendered) blocks.push({ kind: "table", text: rendered.text, header: rendered.header });
  return blocks;
}
