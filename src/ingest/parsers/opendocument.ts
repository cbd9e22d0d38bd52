import { ChunkpadError } from "../../core/errors.js";
import type { ParsedBlock, ParseInput } from "../../core/types.js";
import { attribute, childElements, collapseSpace, decodeXml, findAll, findFirst, parseXml, textContent, type XmlElement } from "../xml.js";
import { openZip, type ZipArchive } from "../zip.js";
import { markdownTable } from "./table-text.js";

/**
 * What ODT, ODP and ODS share: the package (content.xml, meta.xml, the manifest that says
 * whether the content is encrypted) and the text model (text:h with outline levels, text:p,
 * text:list, table:table, notes).
 */
export interface OpenDocumentPackage {
  zip: ZipArchive;
  title: string | undefined;
}

/** Spaces a single text:s may stand for; a damaged count must not build a huge string. */
const MAX_SPACE_RUN = 16;
const MAX_HEADING_LEVEL = 6;
/** Presentation frames that repeat on every slide (numbers, dates, footers): noise to search. */
const BOILERPLATE_FRAMES = new Set(["page-number", "date-time", "footer", "header"]);

/** Elements whose text is not the document's own: generated indexes, comments, change records. */
const SKIPPED = new Set([
  "table-of-content", "alphabetical-index", "illustration-index", "table-index", "object-index", "user-index",
  "bibliography", "annotation", "annotation-end", "tracked-changes", "sequence-decls", "variable-decls",
  "user-field-decls", "forms", "notes", "page-thumbnail", "event-listeners", "image",
]);

export function openOpenDocument(input: ParseInput, formatLabel: string): OpenDocumentPackage {
  if (isFlatOpenDocument(input.data)) return openFlatOpenDocument(input.data);
  const zip = openZip(input.data, { limits: input.limits, signal: input.signal });
  if (!zip.has("content.xml")) {
    throw new ChunkpadError("PARSE_MALFORMED", `The file is a zip archive but not an OpenDocument ${formatLabel} (it has no content.xml); check the file or rename it to its real type.`);
  }
  const manifest = zip.read("META-INF/manifest.xml");
  if (manifest && findFirst(parseXml(manifest, "META-INF/manifest.xml"), "encryption-data")) {
    throw new ChunkpadError(
      "PARSE_ENCRYPTED",
      `The OpenDocument ${formatLabel} is password-protected, which Chunkpad cannot open yet; save an unprotected copy (File > Save As, without a password) and process that.`,
    );
  }
  return { zip, title: readTitle(zip) };
}

/** A flat OpenDocument file (.fodt, .fods, .fodp): the whole document as one XML file. */
function isFlatOpenDocument(data: Uint8Array): boolean {
  if (data[0] === 0x50 && data[1] === 0x4b) return false;
  const head = Buffer.from(data.buffer, data.byteOffset, Math.min(data.byteLength, 4096)).toString("latin1");
  return /<office:document[\s>]/.test(head);
}

/**
 * A flat file holds what a package splits into content.xml and meta.xml; it is served to the
 * same readers as a one-entry package, so flat and zipped documents read alike.
 */
function openFlatOpenDocument(data: Uint8Array): OpenDocumentPackage {
  const meta = /<office:meta[\s>][\s\S]*?<\/office:meta>/.exec(decodeXml(data))?.[0];
  const metaBytes = meta ? new TextEncoder().encode(meta) : undefined;
  const parts = new Map<string, Uint8Array | undefined>([["content.xml", data], ["meta.xml", metaBytes]]);
  const zip: ZipArchive = {
    entries: [],
    has: (name) => parts.get(name) !== undefined,
    read: (name) => parts.get(name),
    inflatedBytes: 0,
  };
  return { zip, title: readTitle(zip) };
}

export function readContent(opened: OpenDocumentPackage): XmlElement {
  return parseXml(opened.zip.read("content.xml") ?? new Uint8Array(), "content.xml");
}

/** The body's content element: office:text, office:presentation or office:spreadsheet. */
export function bodyContent(content: XmlElement, local: string): XmlElement | undefined {
  const body = findFirst(content, "body");
  return body ? firstElement(body, local) : undefined;
}

function firstElement(element: XmlElement, local: string): XmlElement | undefined {
  return childElements(element, local)[0];
}

function readTitle(zip: ZipArchive): string | undefined {
  const meta = zip.read("meta.xml");
  if (!meta) return undefined;
  const title = findFirst(parseXml(meta, "meta.xml"), "title");
  const text = title ? collapseSpace(textContent(title)) : "";
  return text || undefined;
}

/**
 * Blocks for the text below an element, in reading order. Footnotes and endnotes go to
 * `notes` so the caller can append them after the body, as a reader would meet them.
 */
export function textBlocks(container: XmlElement, notes: string[] = []): ParsedBlock[] {
  const blocks: ParsedBlock[] = [];
  const push = (block: ParsedBlock): void => {
    if (block.text.trim() === "") return;
    const previous = blocks[blocks.length - 1];
    // LibreOffice often writes each bullet as a list of its own: one list to a reader.
    if (block.kind === "list" && previous?.kind === "list") previous.text += `\n${block.text}`;
    else blocks.push(block);
  };

  const visit = (element: XmlElement): void => {
    for (const child of element.children) {
      if (typeof child === "string") continue;
      if (SKIPPED.has(child.local)) continue;
      switch (child.local) {
        case "h": {
          const deferred: XmlElement[] = [];
          const level = clampLevel(Number.parseInt(attribute(child, "outline-level") ?? "1", 10));
          push({ kind: "heading", text: collapseSpace(inlineText(child, notes, deferred)), level });
          deferred.forEach(visit);
          break;
        }
        case "p": {
          const deferred: XmlElement[] = [];
          push({ kind: "paragraph", text: paragraphText(child, notes, deferred) });
          deferred.forEach(visit);
          break;
        }
        case "list":
          // Numbered headings sit in lists; they must stay headings, so such a list is walked.
          if (findFirst(child, "h")) visit(child);
          else push({ kind: "list", text: listLines(child, 0, notes).join("\n") });
          break;
        case "table": {
          const table = markdownTable(tableRows(child, notes));
          if (table) push({ kind: "table", text: table.text, header: table.header });
          break;
        }
        case "frame":
          if (BOILERPLATE_FRAMES.has(attribute(child, "class") ?? "")) break;
          if (isTitleFrame(child)) push({ kind: "heading", text: collapseSpace(textContent(child)), level: 1 });
          else visit(child);
          break;
        default:
          visit(child);
      }
    }
  };
  visit(container);
  return blocks;
}

function clampLevel(level: number): number {
  return Number.isFinite(level) ? Math.min(Math.max(level, 1), MAX_HEADING_LEVEL) : 1;
}

/** A presentation frame that holds the slide's title. */
export function isTitleFrame(frame: XmlElement): boolean {
  const role = attribute(frame, "class");
  return role === "title";
}

/** A paragraph's text with line breaks kept as newlines. */
function paragraphText(paragraph: XmlElement, notes: string[], deferred: XmlElement[]): string {
  return inlineText(paragraph, notes, deferred)
    .split("\n")
    .map((line) => line.replace(/[ \t]+/g, " ").trim())
    .join("\n")
    .trim();
}

/**
 * Inline text as ODF defines it: whitespace collapses, text:s/text:tab/text:line-break stand
 * for the spaces, tabs and breaks. Frames anchored in the paragraph (text boxes, tables in
 * frames) are returned in `deferred` to become blocks of their own.
 */
function inlineText(element: XmlElement, notes: string[], deferred: XmlElement[]): string {
  let text = "";
  const visit = (node: XmlElement): void => {
    for (const child of node.children) {
      if (typeof child === "string") {
        text += child.replace(/[\s]+/g, " ");
        continue;
      }
      if (SKIPPED.has(child.local)) continue;
      switch (child.local) {
        case "s":
          text += " ".repeat(Math.min(Math.max(Number.parseInt(attribute(child, "c") ?? "1", 10) || 1, 1), MAX_SPACE_RUN));
          break;
        case "tab":
          text += "\t";
          break;
        case "line-break":
          text += "\n";
          break;
        case "note": {
          const citation = collapseSpace(textContent(findFirst(child, "note-citation") ?? child).slice(0, 20));
          const body = findFirst(child, "note-body");
          if (citation) text += `[${citation}]`;
          if (body) notes.push(`${citation ? `${citation}. ` : ""}${textBlocks(body, notes).map((block) => block.text).join(" ")}`);
          break;
        }
        case "frame":
        case "custom-shape":
        case "rect":
        case "g":
          deferred.push(child);
          break;
        default:
          visit(child);
      }
    }
  };
  visit(element);
  return text;
}

function listLines(list: XmlElement, depth: number, notes: string[]): string[] {
  const lines: string[] = [];
  for (const item of childElements(list).filter((child) => child.local === "list-item" || child.local === "list-header")) {
    let first = true;
    for (const part of childElements(item)) {
      if (part.local === "list") {
        lines.push(...listLines(part, depth + 1, notes));
        continue;
      }
      const text = part.local === "p" || part.local === "h" ? collapseSpace(inlineText(part, notes, [])) : textBlocks(part, notes).map((block) => block.text).join(" ");
      if (!text) continue;
      lines.push(`${"  ".repeat(depth)}${first ? "- " : "  "}${text}`);
      first = false;
    }
  }
  return lines;
}

/** A table's rows of cell texts; nested tables flatten into their cell. */
function tableRows(table: XmlElement, notes: string[]): string[][] {
  const rows: string[][] = [];
  for (const row of findAll(table, "table-row")) {
    const cells = childElements(row)
      .filter((cell) => cell.local === "table-cell" || cell.local === "covered-table-cell")
      .map((cell) => collapseSpace(textBlocks(cell, notes).map((block) => block.text).join(" ")));
    while (cells.length > 0 && cells[cells.length - 1] === "") cells.pop();
    if (cells.some((cell) => cell !== "")) rows.push(cells);
  }
  return rows;
}
