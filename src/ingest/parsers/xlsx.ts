import { ChunkpadError } from "../../core/errors.js";
import type { ParsedBlock, ParsedDocument, ParseInput, Parser } from "../../core/types.js";
import { attribute, childElements, decodeXml, prefixedAttribute, walkXml } from "../xml.js";
import { throwIfAborted, type ZipArchive } from "../zip.js";
import { openPackage, readCoreTitle, readRelationships, readXmlPart, requireMainPart } from "./ooxml.js";
import { createSheetBuilder, MAX_SHEET_COLUMNS } from "./spreadsheet.js";
import { columnIndex, formatNumber, readCellFormats, type CellFormats } from "./xlsx-values.js";

/**
 * XLSX (and .xlsm): each worksheet in workbook order becomes a heading (its name) and table
 * blocks; blocks carry the sheet name. Sheets and shared strings are streamed, not built
 * into trees, and a sheet stops being read once it is full (see spreadsheet.ts).
 */
export const xlsxParser: Parser = {
  name: "xlsx",
  extensions: [".xlsx", ".xlsm", ".xltx"],
  async parse(input: ParseInput): Promise<ParsedDocument> {
    const zip = openPackage(input);
    const mainPart = requireMainPart(zip, "xl/workbook.xml", "Excel workbook");
    const relationships = readRelationships(zip, mainPart);
    const partOfType = (type: string): string | undefined => [...relationships.values()].find((relationship) => relationship.type === type && !relationship.external)?.target;

    const sharedStrings = readSharedStrings(zip.read(partOfType("sharedStrings") ?? "xl/sharedStrings.xml"));
    const formats = readCellFormats(zip.read(partOfType("styles") ?? "xl/styles.xml"), zip.read(mainPart));
    const workbook = readXmlPart(zip, mainPart);
    const sheetsElement = workbook ? childElements(workbook, "sheets")[0] : undefined;
    const sheets = sheetsElement ? childElements(sheetsElement, "sheet") : [];

    const blocks: ParsedBlock[] = [];
    const warnings: string[] = [];
    for (const sheet of sheets) {
      throwIfAborted(input.signal);
      const name = attribute(sheet, "name") ?? "Sheet";
      const relationship = relationships.get(prefixedAttribute(sheet, "id") ?? "");
      // Chart sheets and dialog sheets hold no cells.
      if (!relationship || relationship.external || relationship.type !== "worksheet") continue;
      const result = readSheet(zip, relationship.target, name, { sharedStrings, formats, signal: input.signal });
      blocks.push(...result.blocks);
      if (result.warning) warnings.push(result.warning);
    }

    if (blocks.length === 0) throw new ChunkpadError("PARSE_EMPTY", "The workbook's sheets are empty; there is nothing to index.");
    return { ...optionalTitle(readCoreTitle(zip)), blocks, pageCount: sheets.length, warnings };
  },
};

function optionalTitle(title: string | undefined): { title?: string } {
  return title ? { title } : {};
}

/** Each si's text: its t, or its rich-text runs' t, without phonetic guides (rPh). */
function readSharedStrings(bytes: Uint8Array | undefined): string[] {
  const strings: string[] = [];
  if (!bytes) return strings;
  let current: string | undefined;
  let inText = false;
  let phoneticDepth = 0;
  walkXml(decodeXml(bytes), {
    onOpen(element) {
      if (element.local === "si") current = "";
      else if (element.local === "rPh") phoneticDepth++;
      else if (element.local === "t" && phoneticDepth === 0) inText = true;
    },
    onText(text) {
      if (inText && current !== undefined) current += text;
    },
    onClose(local) {
      if (local === "t") inText = false;
      else if (local === "rPh") phoneticDepth--;
      else if (local === "si") {
        strings.push(current ?? "");
        current = undefined;
      }
    },
  });
  return strings;
}

interface SheetContext {
  sharedStrings: string[];
  formats: CellFormats;
  signal: AbortSignal | undefined;
}

function readSheet(zip: ZipArchive, partPath: string, name: string, context: SheetContext): { blocks: ParsedBlock[]; warning?: string } {
  const bytes = zip.read(partPath);
  const builder = createSheetBuilder(name);
  if (!bytes) return { blocks: [], warning: `Sheet "${name}" is missing from the file (${partPath}); it was skipped.` };

  let row: (string | undefined)[] | undefined;
  let cell: { column: number; type: string; style: number } | undefined;
  let value = "";
  let inlineText = "";
  let reading: "value" | "inline" | undefined;
  let stopped = false;
  walkXml(
    decodeXml(bytes),
    {
      onOpen(element) {
        if (stopped) return;
        if (element.local === "row") row = [];
        else if (element.local === "c" && row) {
          const column = columnIndex(attribute(element, "r")) ?? row.length;
          cell = { column, type: attribute(element, "t") ?? "n", style: Number(attribute(element, "s") ?? "0") };
          value = "";
          inlineText = "";
        } else if (cell && element.local === "v") reading = "value";
        else if (cell && element.local === "t") reading = "inline";
      },
      onText(text) {
        if (reading === "value") value += text;
        else if (reading === "inline") inlineText += text;
      },
      onClose(local) {
        if (stopped) return;
        if (local === "v" || local === "t") reading = undefined;
        else if (local === "c" && cell && row) {
          if (cell.column < MAX_SHEET_COLUMNS) row[cell.column] = cellText(cell, value, inlineText, context);
          cell = undefined;
        } else if (local === "row" && row) {
          if (!builder.addRow(row) && builder.truncated) stopped = true;
          row = undefined;
        }
      },
    },
    () => {
      throwIfAborted(context.signal);
      return stopped;
    },
  );
  return builder.finish();
}

function cellText(cell: { type: string; style: number }, value: string, inlineText: string, context: SheetContext): string {
  switch (cell.type) {
    case "s":
      return context.sharedStrings[Number(value)] ?? "";
    case "inlineStr":
      return inlineText;
    case "b":
      return value.trim() === "1" ? "TRUE" : value.trim() === "0" ? "FALSE" : value;
    case "str":
    case "e":
    case "d":
      return value;
    default:
      return formatNumber(value, context.formats.styles[cell.style] ?? "number", context.formats.date1904);
  }
}
