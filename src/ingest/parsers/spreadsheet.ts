import type { ParsedBlock } from "../../core/types.js";

/**
 * What XLSX and ODS share: a sheet becomes a heading (its name) and table blocks of
 * "cell | cell | cell" rows. Empty rows go; so do columns empty in every row. A very large
 * sheet is cut at MAX_SHEET_ROWS with a warning: past that, a sheet is data for a database,
 * not text to chunk.
 */
export const MAX_SHEET_ROWS = 10_000;
export const MAX_SHEET_COLUMNS = 200;
/** Rows per table block, so one block stays a readable size for the chunker. */
export const TABLE_BLOCK_ROWS = 50;

export interface SheetBuilder {
  /** Adds a row (cells by column index; holes are empty). Returns false once the sheet is full. */
  addRow(cells: readonly (string | undefined)[]): boolean;
  /** True once a non-empty row arrived after the sheet was full. */
  readonly truncated: boolean;
  readonly full: boolean;
  finish(): { blocks: ParsedBlock[]; warning?: string };
}

export function createSheetBuilder(name: string): SheetBuilder {
  const rows: string[][] = [];
  let truncated = false;

  return {
    addRow(cells) {
      const row = cells.slice(0, MAX_SHEET_COLUMNS).map((cell) => cleanCell(cell ?? ""));
      while (row.length > 0 && row[row.length - 1] === "") row.pop();
      if (row.length === 0) return rows.length < MAX_SHEET_ROWS;
      if (rows.length >= MAX_SHEET_ROWS) {
        truncated = true;
        return false;
      }
      rows.push(row);
      return rows.length < MAX_SHEET_ROWS;
    },
    get truncated() {
      return truncated;
    },
    get full() {
      return rows.length >= MAX_SHEET_ROWS;
    },
    finish() {
      const blocks: ParsedBlock[] = [];
      const label = name.trim() || "Sheet";
      if (rows.length === 0) return { blocks };
      blocks.push({ kind: "heading", text: label, level: 1, sheet: name });
      const kept = keptColumns(rows);
      const line = (row: string[]): string => kept.filter((column) => column < row.length).map((column) => row[column] ?? "").join(" | ");
      // The first row is taken as the header; the chunker repeats it in every chunk of the sheet.
      const header = rows.length > 1 ? line(rows[0] ?? []) : undefined;
      for (let start = 0; start < rows.length; start += TABLE_BLOCK_ROWS) {
        const text = rows.slice(start, start + TABLE_BLOCK_ROWS).map(line).join("\n");
        blocks.push(header ? { kind: "table", text, sheet: name, header } : { kind: "table", text, sheet: name });
      }
      const warning = truncated
        ? `Sheet "${label}" has more than ${MAX_SHEET_ROWS} rows with content; only the first ${MAX_SHEET_ROWS} were read.`
        : undefined;
      return warning ? { blocks, warning } : { blocks };
    },
  };
}

function cleanCell(text: string): string {
  return text.replace(/\s+/g, " ").trim();
}

/** Column indexes that hold something in at least one row. */
function keptColumns(rows: string[][]): number[] {
  const width = rows.reduce((widest, row) => Math.max(widest, row.length), 0);
  const kept: number[] = [];
  for (let column = 0; column < width; column++) {
    if (rows.some((row) => (row[column] ?? "") !== "")) kept.push(column);
  }
  return kept;
}
