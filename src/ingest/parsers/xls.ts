import * as XLSX from "@e965/xlsx";
import { ChunkpadError } from "../../core/errors.js";
import type { ParsedBlock, ParsedDocument, ParseInput, Parser } from "../../core/types.js";
import { detectOfficeEncryption } from "../office-crypto.js";
import { throwIfAborted } from "../zip.js";
import { createSheetBuilder, MAX_SHEET_COLUMNS, MAX_SHEET_ROWS } from "./spreadsheet.js";

/**
 * Excel 97-2003 (.xls, .xlt) through SheetJS's maintained build: each sheet becomes the same
 * heading and "cell | cell" table blocks as an .xlsx (spreadsheet.ts), with the text each cell
 * displays. Encrypted workbooks are classified, not decrypted: SheetJS cannot open the RC4
 * CryptoAPI and XOR files Excel writes.
 */
export const xlsParser: Parser = {
  name: "xls",
  extensions: [".xls", ".xlt"],
  async parse(input: ParseInput): Promise<ParsedDocument> {
    if (detectOfficeEncryption(input.data) !== null) {
      throw new ChunkpadError(
        "PARSE_ENCRYPTED",
        "encrypted Excel 97-2003 workbook, which Chunkpad cannot decrypt; save an unprotected copy (or save it as .xlsx with a password, and give that password)",
      );
    }
    let workbook: XLSX.WorkBook;
    try {
      // One row past the cap, so a cut sheet is reported as cut.
      workbook = XLSX.read(input.data, { type: "array", dense: true, cellText: true, cellHTML: false, cellFormula: false, sheetRows: MAX_SHEET_ROWS + 1 });
    } catch (error) {
      throw new ChunkpadError("PARSE_MALFORMED", `not readable as an Excel workbook (${error instanceof Error ? error.message : String(error)}); open it in Excel and save it again`, { cause: error });
    }

    const blocks: ParsedBlock[] = [];
    const warnings: string[] = [];
    for (const name of workbook.SheetNames) {
      throwIfAborted(input.signal);
      const worksheet = workbook.Sheets[name];
      if (!worksheet) continue;
      const rows = XLSX.utils.sheet_to_json<unknown[]>(worksheet, { header: 1, raw: false, blankrows: false, defval: "" });
      const sheet = createSheetBuilder(name);
      for (const row of rows) {
        if (!sheet.addRow(row.slice(0, MAX_SHEET_COLUMNS).map((cell) => (cell === null || cell === undefined ? "" : String(cell)))) && sheet.truncated) break;
      }
      const result = sheet.finish();
      blocks.push(...result.blocks);
      if (result.warning) warnings.push(result.warning);
    }
    if (blocks.length === 0) throw new ChunkpadError("PARSE_EMPTY", "The workbook's sheets are empty; there is nothing to index.");
    const title = workbook.Props?.Title?.trim();
    return { ...(title ? { title } : {}), blocks, pageCount: workbook.SheetNames.length, warnings };
  },
};
