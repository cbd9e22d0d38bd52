import fs from "node:fs";
import path from "node:path";
import { strToU8, zipSync } from "fflate";
import { describe, expect, it } from "vitest";
import { isChunkpadError } from "../../core/errors.js";
import { DEFAULT_PARSE_LIMITS, type ParsedDocument } from "../../core/types.js";
import { odsParser } from "./ods.js";
import { MAX_SHEET_ROWS } from "./spreadsheet.js";

const NAMESPACES = `xmlns:office="urn:oasis:names:tc:opendocument:xmlns:office:1.0" xmlns:text="urn:oasis:names:tc:opendocument:xmlns:text:1.0" xmlns:table="urn:oasis:names:tc:opendocument:xmlns:table:1.0"`;

function parse(data: Uint8Array): Promise<ParsedDocument> {
  return odsParser.parse({ path: "/documents/book.ods", data, limits: DEFAULT_PARSE_LIMITS });
}

function buildOds(tables: string): Uint8Array {
  return zipSync({
    mimetype: strToU8("application/vnd.oasis.opendocument.spreadsheet"),
    "content.xml": strToU8(`<office:document-content ${NAMESPACES}><office:body><office:spreadsheet>${tables}</office:spreadsheet></office:body></office:document-content>`),
  });
}

function cell(text: string, attributes = ""): string {
  return `<table:table-cell ${attributes}><text:p>${text}</text:p></table:table-cell>`;
}

describe("odsParser", () => {
  it("reads each sheet as a heading and rows, without expanding runs of blanks", async () => {
    const budget = [
      `<table:table table:name="Budget">`,
      `<table:table-row>${cell("Item")}${cell("Cost")}<table:table-cell table:number-columns-repeated="16380"/></table:table-row>`,
      `<table:table-row table:number-rows-repeated="1048000"><table:table-cell table:number-columns-repeated="16384"/></table:table-row>`,
      `<table:table-row>${cell("Rent")}${cell("1,200.00", `office:value-type="float" office:value="1200"`)}</table:table-row>`,
      `<table:table-row>${cell("Power<text:s text:c=\"2\"/>and water")}<table:table-cell><office:annotation><text:p>check this</text:p></office:annotation><text:p>80</text:p></table:table-cell></table:table-row>`,
      `</table:table>`,
    ].join("");
    const dates = `<table:table table:name="Dates"><table:table-row>${cell("Start")}${cell("01/02/2024", `office:value-type="date" office:date-value="2024-02-01"`)}</table:table-row></table:table>`;
    const document = await parse(buildOds(budget + dates));
    expect(document.pageCount).toBe(2);
    expect(document.blocks).toEqual([
      { kind: "heading", text: "Budget", level: 1, sheet: "Budget" },
      { kind: "table", text: "Item | Cost\nRent | 1,200.00\nPower and water | 80", sheet: "Budget", header: "Item | Cost" },
      { kind: "heading", text: "Dates", level: 1, sheet: "Dates" },
      { kind: "table", text: "Start | 01/02/2024", sheet: "Dates" },
    ]);
  });

  it("repeats identical rows up to the sheet cap and warns past it", async () => {
    const table = `<table:table table:name="Log"><table:table-row table:number-rows-repeated="${MAX_SHEET_ROWS + 5}">${cell("same")}</table:table-row></table:table>`;
    const document = await parse(buildOds(table));
    const rows = document.blocks.filter((block) => block.kind === "table").flatMap((block) => block.text.split("\n"));
    expect(rows.length).toBe(MAX_SHEET_ROWS);
    expect(document.warnings).toHaveLength(1);
    expect(document.warnings[0]).toContain(`Sheet "Log" has more than ${MAX_SHEET_ROWS} rows`);
  });

  it("reads the corpus spreadsheet", async () => {
    const data = new Uint8Array(fs.readFileSync(path.resolve("../shared/corpus/officeParser/files/test.ods")));
    const document = await parse(data);
    expect(document.pageCount).toBe(9);
    expect(document.blocks.filter((block) => block.kind === "heading").map((block) => block.text)).toEqual([
      ...Array.from({ length: 8 }, (_, index) => `Sheet${index + 1}`),
      "Chart_Sheet",
    ]);
    expect(document.blocks.find((block) => block.kind === "table" && block.text.includes("Books | 1"))?.sheet).toBe("Sheet3");
  });

  it("calls a spreadsheet with only empty sheets empty", async () => {
    const error = await parse(buildOds(`<table:table table:name="Empty"><table:table-row><table:table-cell/></table:table-row></table:table>`)).then(
      () => undefined,
      (caught: unknown) => caught,
    );
    expect(isChunkpadError(error, "PARSE_EMPTY")).toBe(true);
  });
});
