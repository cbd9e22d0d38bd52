import type { ParsedBlock } from "../../core/types.js";
import { attribute, childElements, collapseSpace, findAll, findFirst, firstChild, prefixedAttribute, type XmlElement } from "../xml.js";

/**
 * Blocks from a PresentationML shape tree (p:spTree), in the order the shapes are written,
 * which is the order PowerPoint's reading order and pandoc follow. Titles become headings;
 * slide numbers, dates and footers are skipped as boilerplate.
 */
export interface ShapeContext {
  /** Text of a SmartArt diagram's data part, looked up by the graphic frame's r:dm id. */
  diagramText?: (relationshipId: string) => string[];
  /** Whether body placeholders are bulleted (slides) or plain text (notes pages). Default true. */
  placeholderBullets?: boolean;
}

const TITLE_PLACEHOLDERS = new Set(["title", "ctrTitle"]);
const BOILERPLATE_PLACEHOLDERS = new Set(["sldNum", "dt", "ftr", "hdr", "sldImg"]);
/** Body placeholders whose paragraphs are bullets unless they say otherwise. */
const BULLET_PLACEHOLDERS = new Set(["body", "obj", ""]);

export function shapeTreeBlocks(tree: XmlElement, context: ShapeContext = {}): ParsedBlock[] {
  const blocks: ParsedBlock[] = [];
  const push = (block: ParsedBlock): void => {
    if (block.text.trim() !== "") blocks.push(block);
  };

  const visit = (container: XmlElement): void => {
    for (const shape of childElements(container)) {
      switch (shape.local) {
        case "sp":
          shapeBlock(shape, context.placeholderBullets ?? true, push);
          break;
        case "grpSp":
          visit(shape);
          break;
        case "graphicFrame":
          graphicFrameBlocks(shape, context, push);
          break;
        case "pic": {
          const description = attribute(findFirst(shape, "cNvPr") ?? shape, "descr");
          if (description) push({ kind: "paragraph", text: collapseSpace(description) });
          break;
        }
        case "AlternateContent": {
          // Producers write the same content twice (new and fallback form): read one.
          const choice = firstChild(shape, "Choice") ?? firstChild(shape, "Fallback");
          if (choice) visit(choice);
          break;
        }
        default:
          break;
      }
    }
  };
  visit(tree);
  return blocks;
}

function placeholderType(shape: XmlElement): string | undefined {
  const properties = firstChild(shape, "nvSpPr");
  const placeholder = properties ? findFirst(properties, "ph") : undefined;
  return placeholder ? (attribute(placeholder, "type") ?? "") : undefined;
}

function shapeBlock(shape: XmlElement, placeholderBullets: boolean, push: (block: ParsedBlock) => void): void {
  const body = firstChild(shape, "txBody");
  if (!body) return;
  const placeholder = placeholderType(shape);
  if (placeholder !== undefined && BOILERPLATE_PLACEHOLDERS.has(placeholder)) return;
  const paragraphs = childElements(body, "p");
  if (placeholder !== undefined && TITLE_PLACEHOLDERS.has(placeholder)) {
    push({ kind: "heading", text: collapseSpace(paragraphs.map(paragraphText).join(" ")), level: 1 });
    return;
  }
  const bulletsByDefault = placeholderBullets && placeholder !== undefined && BULLET_PLACEHOLDERS.has(placeholder);
  const lines: string[] = [];
  let bulleted = 0;
  for (const paragraph of paragraphs) {
    const text = paragraphText(paragraph).trim();
    if (!text) continue;
    const properties = firstChild(paragraph, "pPr");
    const explicitBullet = properties !== undefined && (firstChild(properties, "buChar") !== undefined || firstChild(properties, "buAutoNum") !== undefined);
    const noBullet = properties !== undefined && firstChild(properties, "buNone") !== undefined;
    const isBullet = explicitBullet || (bulletsByDefault && !noBullet);
    const depth = Math.min(Number.parseInt((properties && attribute(properties, "lvl")) ?? "0", 10) || 0, 8);
    if (isBullet) bulleted++;
    lines.push(isBullet ? `${"  ".repeat(depth)}- ${text.replace(/\n/g, " ")}` : text);
  }
  if (lines.length === 0) return;
  push({ kind: bulleted > 0 && bulleted === lines.length ? "list" : "paragraph", text: lines.join("\n") });
}

/** A DrawingML paragraph's text: runs, fields, and line breaks as newlines. */
export function paragraphText(paragraph: XmlElement): string {
  let text = "";
  for (const child of childElements(paragraph)) {
    if (child.local === "r" || child.local === "fld") {
      for (const run of childElements(child, "t")) text += plainText(run);
    } else if (child.local === "br") {
      text += "\n";
    }
  }
  return text.replace(/[ \t\u00a0]+/g, " ");
}

function plainText(element: XmlElement): string {
  return element.children.filter((child): child is string => typeof child === "string").join("");
}

function graphicFrameBlocks(frame: XmlElement, context: ShapeContext, push: (block: ParsedBlock) => void): void {
  const table = findFirst(frame, "tbl");
  if (table) {
    const rows: string[] = [];
    for (const row of findAll(table, "tr")) {
      const cells = childElements(row, "tc").map((cell) => collapseSpace(findAll(cell, "p").map(paragraphText).join(" ")));
      while (cells.length > 0 && cells[cells.length - 1] === "") cells.pop();
      if (cells.some((cell) => cell !== "")) rows.push(cells.join(" | "));
    }
    push({ kind: "table", text: rows.join("\n") });
    return;
  }
  const diagram = findFirst(frame, "relIds");
  const dataId = diagram ? prefixedAttribute(diagram, "dm") : undefined;
  if (dataId && context.diagramText) {
    const lines = context.diagramText(dataId);
    if (lines.length > 0) push({ kind: "list", text: lines.map((line) => `- ${line}`).join("\n") });
  }
}

/** The text points of a SmartArt data part (dgm:dataModel), skipping connector points. */
export function diagramDataText(data: XmlElement): string[] {
  const lines: string[] = [];
  for (const point of findAll(data, "pt")) {
    const type = attribute(point, "type") ?? "node";
    if (type === "parTrans" || type === "sibTrans" || type === "pres") continue;
    const body = findFirst(point, "t");
    if (!body) continue;
    const text = collapseSpace(childElements(body, "p").map(paragraphText).join(" "));
    if (text) lines.push(text);
  }
  return lines;
}
