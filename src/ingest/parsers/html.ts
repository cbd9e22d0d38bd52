import { Readability } from "@mozilla/readability";
import { parseHTML } from "linkedom";
import { ChunkpadError } from "../../core/errors.js";
import type { ParsedBlock, ParsedDocument, ParseInput, Parser } from "../../core/types.js";
import { decodeText } from "../text-encoding.js";
import { htmlToBlocks } from "./html-blocks.js";

/**
 * HTML: the page's main content as blocks. Navigation and other boilerplate go first (by
 * element and ARIA role); then the content is the page's <main> or single <article> when the
 * author marked one, otherwise what Readability selects, when it keeps a plausible share of
 * the page. Documents that are all content (exports, short pages) keep everything.
 */
export const htmlParser: Parser = {
  name: "html",
  extensions: [".html", ".htm", ".xhtml"],
  async parse(input: ParseInput): Promise<ParsedDocument> {
    const { text: html } = decodeText(input.data, { declaredEncoding: sniffCharset(input.data) });
    const { document } = parseHTML(wrapFragment(html));
    const body = document.body;
    const title = readTitle(document);
    let blocks: ParsedBlock[] = [];
    if (body) {
      removeBoilerplate(body);
      const selection = selectMainContent(document, body);
      blocks = htmlToBlocks(selection.root, selection.isKept ? { isKept: selection.isKept } : {});
      // Nothing in the selection: the whole body (minus the dropped elements) is the content.
      if (blocks.length === 0 && (selection.root !== body || selection.isKept)) blocks = htmlToBlocks(body);
    }
    // A page the DOM reading finds empty (framesets, broken markup) still has its visible text.
    if (blocks.length === 0) blocks = visibleTextBlocks(html);
    if (blocks.length === 0) throw emptyError();

    const firstHeading = blocks.find((block) => block.kind === "heading");
    const documentTitle = title ?? firstHeading?.text;
    return { ...(documentTitle ? { title: documentTitle } : {}), blocks, warnings: [] };
  },
};

/** Bytes scanned for a declared charset, as browsers do (the spec's prescan reads 1024). */
const CHARSET_SCAN_BYTES = 4096;
/** Readability's selection is used only when it keeps this share of the page's text... */
const MIN_SELECTED_SHARE = 0.2;
/** ...and drops more than this share; otherwise the page is all content. */
const MAX_SELECTED_SHARE = 0.9;
const MIN_SELECTED_CHARACTERS = 200;
const NODE_ID_ATTRIBUTE = "data-chunkpad-node";
/** Readability's scoring grows faster than the page; past this size the whole page is kept. */
const MAX_READABILITY_ELEMENTS = 20_000;

const DROPPED_SELECTOR = [
  "script", "style", "noscript", "template", "title", "iframe", "object", "embed", "svg", "canvas", "nav", "aside",
  "button", "select", "input", "textarea", "dialog", "[hidden]", "[aria-hidden='true']", "[role='navigation']",
  "[role='banner']", "[role='contentinfo']", "[role='complementary']", "[role='search']",
].join(", ");

export function sniffCharset(data: Uint8Array): string | undefined {
  const head = Buffer.from(data.buffer, data.byteOffset, Math.min(data.byteLength, CHARSET_SCAN_BYTES)).toString("latin1");
  const meta = /<meta\b[^>]*?charset\s*=\s*["']?\s*([\w:.-]+)/i.exec(head);
  if (meta?.[1]) return meta[1];
  const xml = /<\?xml\b[^>]*?encoding\s*=\s*["']([\w:.-]+)["']/i.exec(head);
  return xml?.[1];
}

/** A page that starts (after a declaration, doctype and comments) with <html> and has a <body>. */
const WELL_FORMED_PAGE = /^\s*(?:<\?xml[^>]*>\s*)?(?:<!--[\s\S]*?-->\s*)*(?:<!doctype[^>]*>\s*)?(?:<!--[\s\S]*?-->\s*)*<html[\s>]/i;

/**
 * linkedom leaves <body> empty for a page without <html> and <body>, or with anything (a
 * <meta>, stray text) before <html>, as old and saved pages often have; give it both.
 */
function wrapFragment(html: string): string {
  if (WELL_FORMED_PAGE.test(html) && /<body[\s>]/i.test(html)) return html;
  const stripped = html.replace(/^\s*(?:<\?xml[^>]*>\s*)?(?:<!doctype[^>]*>\s*)?/i, "").replace(/<\/?html(?:\s[^>]*)?>/gi, "");
  const headPattern = /<head(?:\s[^>]*)?>[\s\S]*?<\/head>/i;
  const head = headPattern.exec(stripped)?.[0] ?? "<head></head>";
  const rest = stripped.replace(headPattern, "").replace(/<\/?body(?:\s[^>]*)?>/gi, "");
  return `<!DOCTYPE html><html>${head}<body>${rest}</body></html>`;
}

function readTitle(document: Document): string | undefined {
  const title = document.querySelector("title")?.textContent?.replace(/\s+/g, " ").trim();
  if (title) return title;
  const og = document.querySelector("meta[property='og:title']")?.getAttribute("content")?.trim();
  return og || undefined;
}

function removeBoilerplate(body: Element): void {
  for (const element of Array.from(body.querySelectorAll(DROPPED_SELECTOR))) element.remove();
  for (const element of Array.from(body.querySelectorAll("header, footer"))) {
    // An article's own header holds its title; keep those.
    if (!element.parentElement?.closest("article, main, [role='main']")) element.remove();
  }
  for (const element of Array.from(body.querySelectorAll("[style]"))) {
    if (/(?:display\s*:\s*none|visibility\s*:\s*hidden)/i.test(element.getAttribute("style") ?? "")) element.remove();
  }
}

interface ContentSelection {
  root: Element;
  isKept?: (element: Element) => boolean;
}

function selectMainContent(document: Document, body: Element): ContentSelection {
  const main = body.querySelector("main, [role='main']");
  if (main && textLength(main) > 0) return { root: main };
  const articles = body.querySelectorAll("article");
  const article = articles.length === 1 ? articles[0] : undefined;
  if (article && textLength(article) > 0) return { root: article };

  const selected = readabilitySelection(document, body);
  if (selected === undefined) return { root: body };
  const bodyLength = textLength(body);
  const share = bodyLength === 0 ? 0 : selected.length / bodyLength;
  if (selected.length < MIN_SELECTED_CHARACTERS || share < MIN_SELECTED_SHARE || share >= MAX_SELECTED_SHARE) {
    return { root: body };
  }
  const kept = selected.ids;
  return { root: body, isKept: (element) => kept.has(element.getAttribute(NODE_ID_ATTRIBUTE) ?? "") };
}

/**
 * Runs Readability on a copy of the page and reports which of the original elements it kept
 * (by a numbered attribute), so the original structure (heading levels, which Readability
 * rewrites) is what becomes blocks.
 */
function readabilitySelection(document: Document, body: Element): { ids: Set<string>; length: number } | undefined {
  const elements = Array.from(body.querySelectorAll("*"));
  if (elements.length > MAX_READABILITY_ELEMENTS) return undefined;
  elements.forEach((element, index) => element.setAttribute(NODE_ID_ATTRIBUTE, String(index)));
  try {
    const copy = parseHTML(document.toString()).document;
    const article = new Readability<Element>(copy, { serializer: (node) => node as Element }).parse();
    const content = article?.content;
    if (!content) return undefined;
    const kept = new Set<string>();
    for (const element of Array.from(content.querySelectorAll(`[${NODE_ID_ATTRIBUTE}]`))) {
      kept.add(element.getAttribute(NODE_ID_ATTRIBUTE) ?? "");
    }
    return { ids: kept, length: textLength(content) };
  } catch {
    // Readability fails on some odd trees; the whole page is then the content.
    return undefined;
  }
}

function textLength(element: Element): number {
  return (element.textContent ?? "").replace(/\s+/g, "").length;
}

/**
 * The page's visible text read from the markup itself: no head, scripts, styles or comments;
 * block tags end paragraphs. The last resort when the DOM reading finds nothing.
 */
export function visibleTextBlocks(html: string): ParsedBlock[] {
  const text = html
    .replace(/<!--[\s\S]*?-->/g, " ")
    .replace(/<(head|script|style|template|title|svg)\b[\s\S]*?<\/\1\s*>/gi, " ")
    .replace(/<\/?(?:p|div|br|tr|li|h[1-6]|table|blockquote|pre|section|article|frameset|noframes|center|dd|dt)\b[^>]*>/gi, "\n\n")
    .replace(/<[^>]*>/g, " ");
  return decodeEntities(text)
    .split(/\n\s*\n/)
    .map((paragraph) => paragraph.replace(/\s+/g, " ").trim())
    .filter((paragraph) => /[\p{L}\p{N}]/u.test(paragraph))
    .map((paragraph) => ({ kind: "paragraph" as const, text: paragraph }));
}

const NAMED_ENTITIES: Record<string, string> = { amp: "&", lt: "<", gt: ">", quot: '"', apos: "'", nbsp: " " };

function decodeEntities(text: string): string {
  return text.replace(/&(#x[0-9a-f]+|#\d+|[a-z]+);/gi, (whole, name: string) => {
    if (name.startsWith("#")) {
      const point = name[1] === "x" || name[1] === "X" ? Number.parseInt(name.slice(2), 16) : Number.parseInt(name.slice(1), 10);
      return point > 0 && point <= 0x10ffff ? String.fromCodePoint(point) : whole;
    }
    return NAMED_ENTITIES[name.toLowerCase()] ?? whole;
  });
}

function emptyError(): ChunkpadError {
  return new ChunkpadError("PARSE_EMPTY", "no visible text in the page body (scripts, styles and navigation are not indexed)");
}
