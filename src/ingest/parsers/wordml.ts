import { ChunkpadError } from "../../core/errors.js";
import type { ParsedBlock, ParsedDocument, ParseInput } from "../../core/types.js";
import { attribute, childElements, collapseSpace, findAll, findFirst, firstChild, parseXml, textContent, type XmlElement } from "../xml.js";

/**
 * Word 2003 XML (WordprocessingML, root w:wordDocument), which Word saves with a .xml or .doc
 * name: paragraphs in order, headings by their style ("heading 1".."heading 6", "Title") or
 * outline level, tables as "a | b" rows. Reached through the .doc parser, which sniffs it.
 */
const MAX_HEADING_LEVEL = 6;

export function looksLikeWordml(data: Uint8Array): boolean {
  const head = Buffer.from(data.buffer, data.byteOffset, Math.min(data.byteLength, 4096)).toString("latin1");
  return /^(\uFEFF|\xEF\xBB\xBF)?\s*<\?xml/.test(head) && /<w:wordDocument[\s>]/.test(head);
}

export function parseWordml(input: ParseInput): ParsedDocument {
  const root = parseXml(input.data, "Word XML document");
  if (root.local !== "wordDocument") throw new ChunkpadError("PARSE_MALFORMED", "an XML file, but not a Word 2003 XML document; check that the file is what its extension says");
  const headingLevels = readHeadingStyles(root);
  const body = findFirst(root, "body");
  const blocks: ParsedBlock[] = [];

  const visit = (element: XmlElement): void => {
    for (const child of childElements(element)) {
      if (child.local === "p") {
        const text = paragraphText(child).trim();
        if (text === "") continue;
        const level = headingLevel(child, headingLevels);
        blocks.push(level ? { kind: "heading", text: collapseSpace(text), level } : { kind: "paragraph", text });
      } else if (child.local === "tbl") {
        const rows = findAll(child, "tr")
          .map((row) => findAll(row, "tc").map((cell) => collapseSpace(findAll(cell, "p").map(paragraphText).join(" "))))
          .filter((cells) => cells.some((cell) => cell !== ""))
          .map((cells) => cells.join(" | "));
        if (rows.length > 0) blocks.push({ kind: "table", text: rows.join("\n") });
      } else if (child.local !== "sectPr" && child.local !== "pPr") {
        // wx:sect and wx:sub-section wrap the paragraphs of a section.
        visit(child);
      }
    }
  };
  if (body) visit(body);
  if (blocks.length === 0) throw new ChunkpadError("PARSE_EMPTY", "The Word XML document has no text; there is nothing to index.");
  const properties = findFirst(root, "DocumentProperties");
  const titleElement = properties ? firstChild(properties, "Title") : undefined;
  const title = titleElement ? collapseSpace(textContent(titleElement)) : "";
  return { ...(title ? { title } : {}), blocks, warnings: [] };
}

/** A paragraph's runs: w:t text, w:tab as a tab, w:br as a line break; deleted text and field codes left out. */
function paragraphText(paragraph: XmlElement): string {
  let text = "";
  const visit = (element: XmlElement): void => {
    for (const child of element.children) {
      if (typeof child === "string") continue;
      if (child.local === "t") text += textContent(child);
      else if (child.local === "tab") text += "\t";
      else if (child.local === "br" || child.local === "cr") text += "\n";
      else if (child.local !== "delText" && child.local !== "instrText" && child.local !== "pPr" && child.local !== "rPr") visit(child);
    }
  };
  visit(paragraph);
  return text;
}

function headingLevel(paragraph: XmlElement, headingLevels: ReadonlyMap<string, number>): number | undefined {
  const properties = firstChild(paragraph, "pPr");
  if (!properties) return undefined;
  const style = firstChild(properties, "pStyle");
  const fromStyle = style ? headingLevels.get(attribute(style, "val") ?? "") : undefined;
  if (fromStyle) return fromStyle;
  const outline = firstChild(properties, "outlineLvl");
  const level = outline ? Number.parseInt(attribute(outline, "val") ?? "", 10) : Number.NaN;
  return Number.isFinite(level) && level >= 0 && level < 9 ? Math.min(level + 1, MAX_HEADING_LEVEL) : undefined;
}

/** Style id → heading level, from the styles' names ("heading 2") or their outline levels. */
function readHeadingStyles(root: XmlElement): Map<string, number> {
  const levels = new Map<string, number>();
  const styles = findFirst(root, "styles");
  for (const style of styles ? childElements(styles, "style") : []) {
    const id = attribute(style, "styleId");
    if (!id) continue;
    const nameElement = firstChild(style, "name");
    const name = (nameElement ? attribute(nameElement, "val") : undefined) ?? id;
    const match = /^heading\s*(\d)$/i.exec(name);
    if (match) levels.set(id, Math.min(Number(match[1]), MAX_HEADING_LEVEL));
    else if (/^title$/i.test(name)) levels.set(id, 1);
  }
  // Word's built-in ids, for a file that leaves its styles out.
  for (let level = 1; level <= MAX_HEADING_LEVEL; level++) if (!levels.has(`Heading${level}`)) levels.set(`Heading${level}`, level);
  return levels;
}
