import { ChunkpadError } from "../../core/errors.js";
import type { ParsedBlock, ParsedDocument, ParseInput, Parser } from "../../core/types.js";
import { attribute, decodeXml, walkXml } from "../xml.js";
import { throwIfAborted } from "../zip.js";
import { openOpenDocument } from "./opendocument.js";
import { createSheetBuilder, MAX_SHEET_COLUMNS, MAX_SHEET_ROWS, type SheetBuilder } from "./spreadsheet.js";

/**
 * ODS: each table:table is a sheet: a heading (its name) then table blocks of rows, with the
 * text each cell displays (dates and numbers as formatted). content.xml is streamed; repeated
 * rows and columns (how ODF stores runs of blanks) are never expanded past the caps.
 */
export const odsParser: Parser = {
  name: "ods",
  extensions: [".ods", ".ots"],
  async parse(input: ParseInput): Promise<ParsedDocument> {
    const opened = openOpenDocument(input, "spreadsheet");
    const blocks: ParsedBlock[] = [];
    const warnings: string[] = [];
    let sheetCount = 0;

    let sheet: SheetBuilder | undefined;
    let tableDepth = 0;
    let row: string[] | undefined;
    let rowRepeat = 1;
    let cell: { repeat: number; paragraphs: string[] } | undefined;
    let paragraph: string | undefined;
    let skippedDepth = 0;

    walkXml(
      decodeXml(opened.zip.read("content.xml") ?? new Uint8Array()),
      {
        onOpen(element) {
          if (skippedDepth > 0 || element.local === "annotation") {
            skippedDepth++;
            return;
          }
          if (element.local === "table") {
            tableDepth++;
            if (tableDepth === 1) {
              sheetCount++;
              sheet = createSheetBuilder(attribute(element, "name") ?? `Sheet${sheetCount}`);
            }
            return;
          }
          if (tableDepth !== 1) {
            if (cell && element.local === "p") paragraph = "";
            return;
          }
          if (element.local === "table-row") {
            row = [];
            // One past the cap, so a long run still marks the sheet as cut.
            rowRepeat = repeatCount(attribute(element, "number-rows-repeated"), MAX_SHEET_ROWS + 1);
          } else if ((element.local === "table-cell" || element.local === "covered-table-cell") && row) {
            cell = { repeat: repeatCount(attribute(element, "number-columns-repeated"), MAX_SHEET_COLUMNS), paragraphs: [] };
          } else if (cell && element.local === "p") {
            paragraph = "";
          } else if (paragraph !== undefined) {
            if (element.local === "s") paragraph += " ".repeat(repeatCount(attribute(element, "c"), MAX_SPACE_RUN));
            else if (element.local === "tab") paragraph += "\t";
            else if (element.local === "line-break") paragraph += " ";
          }
        },
        onText(text) {
          if (skippedDepth === 0 && paragraph !== undefined) paragraph += text;
        },
        onClose(local) {
          if (skippedDepth > 0) {
            skippedDepth--;
            return;
          }
          if (local === "table") {
            tableDepth--;
            if (tableDepth === 0 && sheet) {
              const result = sheet.finish();
              blocks.push(...result.blocks);
              if (result.warning) warnings.push(result.warning);
              sheet = undefined;
            }
          } else if (local === "p" && cell && paragraph !== undefined) {
            cell.paragraphs.push(paragraph);
            paragraph = undefined;
          } else if ((local === "table-cell" || local === "covered-table-cell") && cell && row && tableDepth === 1) {
            const text = cell.paragraphs.join(" ");
            for (let index = 0; index < cell.repeat && row.length < MAX_SHEET_COLUMNS; index++) row.push(text);
            cell = undefined;
          } else if (local === "table-row" && row && sheet && tableDepth === 1) {
            // A run of blank rows (how ODF pads a sheet) is skipped at once; a run of identical
            // rows with text is repeated up to the cap, and one more row past it marks the cut.
            if (row.some((text) => text.trim() !== "")) {
              for (let index = 0; index < rowRepeat; index++) {
                const wasFull = sheet.full;
                sheet.addRow(row);
                if (wasFull) break;
              }
            }
            row = undefined;
          }
        },
      },
      () => {
        throwIfAborted(input.signal);
        return false;
      },
    );

    if (blocks.length === 0) throw new ChunkpadError("PARSE_EMPTY", "The spreadsheet's sheets are empty; there is nothing to index.");
    return { ...(opened.title ? { title: opened.title } : {}), blocks, pageCount: sheetCount, warnings };
  },
};

/** Spaces one text:s may add; a damaged count must not build a huge string. */
const MAX_SPACE_RUN = 16;

function repeatCount(value: string | undefined, cap: number): number {
  const count = Number.parseInt(value ?? "1", 10);
  return Number.isFinite(count) && count > 0 ? Math.min(count, cap) : 1;
}
