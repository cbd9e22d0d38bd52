import fs from "node:fs";
import path from "node:path";
import { strToU8, zipSync } from "fflate";
import { describe, expect, it } from "vitest";
import { isChunkpadError } from "../../core/errors.js";
import { DEFAULT_PARSE_LIMITS, type ParsedDocument } from "../../core/types.js";
import { MAX_SHEET_ROWS, TABLE_BLOCK_ROWS } from "./spreadsheet.js";
import { xlsxParser } from "./xlsx.js";
import { styleOfFormatCode } from "./xlsx-values.js";

const RELATIONSHIPS = "http://schemas.openxmlformats.org/package/2006/relationships";
const TYPES = "http://schemas.openxmlformats.org/officeDocument/2006/relationships";
const MAIN = `xmlns="http://schemas.openxmlformats.org/spreadsheetml/2006/main" xmlns:r="${TYPES}"`;

function parse(data: Uint8Array): Promise<ParsedDocument> {
  return xlsxParser.parse({ path: "/documents/book.xlsx", data, limits: DEFAULT_PARSE_LIMITS });
}

function relationship(id: string, type: string, target: string): string {
  return `<Relationship Id="${id}" Type="${TYPES}/${type}" Target="${target}"/>`;
}

function sheetXml(rows: string): string {
  return `<worksheet ${MAIN}><sheetData>${rows}</sheetData></worksheet>`;
}

/** A workbook whose sheet order (Summary, then Data) differs from its part names. */
function buildWorkbook(sheets: { summary: string; data: string }): Uint8Array {
  return zipSync({
    "_rels/.rels": strToU8(`<Relationships xmlns="${RELATIONSHIPS}">${relationship("rId1", "officeDocument", "xl/workbook.xml")}</Relationships>`),
    "xl/workbook.xml": strToU8(
      `<workbook ${MAIN}><sheets><sheet name="Summary" sheetId="2" r:id="rId2"/><sheet name="Chart" sheetId="3" r:id="rId9"/><sheet name="Data" sheetId="1" r:id="rId1"/></sheets></workbook>`,
    ),
    "xl/_rels/workbook.xml.rels": strToU8(
      `<Relationships xmlns="${RELATIONSHIPS}">${relationship("rId1", "worksheet", "worksheets/sheet1.xml")}${relationship("rId2", "worksheet", "worksheets/sheet2.xml")}` +
        `${relationship("rId9", "chartsheet", "chartsheets/sheet1.xml")}${relationship("rId3", "sharedStrings", "sharedStrings.xml")}${relationship("rId4", "styles", "styles.xml")}</Relationships>`,
    ),
    "xl/sharedStrings.xml": strToU8(
      `<sst ${MAIN}><si><t>Region</t></si><si><r><t>North </t></r><r><t>East</t></r></si><si><t>東京</t><rPh><t>トウキョウ</t></rPh></si></sst>`,
    ),
    "xl/styles.xml": strToU8(
      `<styleSheet ${MAIN}><numFmts><numFmt numFmtId="164" formatCode="yyyy\\-mm\\-dd hh:mm"/><numFmt numFmtId="165" formatCode="&quot;Total&quot; #,##0"/></numFmts>` +
        `<cellXfs><xf numFmtId="0"/><xf numFmtId="14"/><xf numFmtId="164"/><xf numFmtId="9"/><xf numFmtId="165"/></cellXfs></styleSheet>`,
    ),
    "xl/worksheets/sheet2.xml": strToU8(sheetXml(sheets.summary)),
    "xl/worksheets/sheet1.xml": strToU8(sheetXml(sheets.data)),
  });
}

describe("xlsxParser", () => {
  it("reads sheets in workbook order as a heading and table rows", async () => {
    const summary = [
      `<row r="1"><c r="A1" t="s"><v>0</v></c><c r="C1" t="inlineStr"><is><t>Share</t></is></c></row>`,
      `<row r="2"></row>`,
      `<row r="3"><c r="A3" t="s"><v>1</v></c><c r="C3" s="3"><v>0.25</v></c><c r="D3" t="b"><v>1</v></c></row>`,
      `<row r="4"><c r="A4" t="s"><v>2</v></c><c r="C4"><v>0.30000000000000004</v></c><c r="D4" t="e"><v>#DIV/0!</v></c></row>`,
    ].join("");
    const data = [
      `<row r="1"><c r="B1" s="1"><v>45292</v></c><c r="C1" s="2"><v>45292.5</v></c><c r="D1" s="4"><v>1200</v></c></row>`,
      `<row r="2"><c r="B2" t="str"><f>A1&amp;"x"</f><v>computed</v></c></row>`,
    ].join("");
    const document = await parse(buildWorkbook({ summary, data }));
    expect(document.pageCount).toBe(3);
    expect(document.warnings).toEqual([]);
    expect(document.blocks).toEqual([
      { kind: "heading", text: "Summary", level: 1, sheet: "Summary" },
      { kind: "table", text: "Region | Share\nNorth East | 25% | TRUE\n東京 | 0.3 | #DIV/0!", sheet: "Summary", header: "Region | Share" },
      { kind: "heading", text: "Data", level: 1, sheet: "Data" },
      { kind: "table", text: "2024-01-01 | 2024-01-01 12:00 | 1200\ncomputed", sheet: "Data", header: "2024-01-01 | 2024-01-01 12:00 | 1200" },
    ]);
  });

  it("cuts a very large sheet with a warning and splits rows into table blocks", async () => {
    const rows = Array.from({ length: MAX_SHEET_ROWS + 50 }, (_, index) => `<row r="${index + 1}"><c r="A${index + 1}" t="inlineStr"><is><t>row ${index + 1}</t></is></c></row>`).join("");
    const document = await parse(buildWorkbook({ summary: rows, data: "" }));
    const tables = document.blocks.filter((block) => block.kind === "table");
    expect(tables.length).toBe(MAX_SHEET_ROWS / TABLE_BLOCK_ROWS);
    expect(tables.at(-1)?.text.split("\n").at(-1)).toBe(`row ${MAX_SHEET_ROWS}`);
    expect(document.warnings).toEqual([`Sheet "Summary" has more than ${MAX_SHEET_ROWS} rows with content; only the first ${MAX_SHEET_ROWS} were read.`]);
    expect(document.blocks.some((block) => block.sheet === "Data")).toBe(false);
  });

  it("reads the corpus workbooks", async () => {
    const corpus = path.resolve("../shared/corpus");
    const example = await parse(new Uint8Array(fs.readFileSync(path.join(corpus, "msoffcrypto-tool/outputs/example.xlsx"))));
    expect(example.blocks).toEqual([
      { kind: "heading", text: "Sheet1", level: 1, sheet: "Sheet1" },
      { kind: "table", text: "lorem | ipsum", sheet: "Sheet1" },
    ]);
    const test = await parse(new Uint8Array(fs.readFileSync(path.join(corpus, "officeParser/files/test.xlsx"))));
    expect(test.blocks.find((block) => block.kind === "table" && block.text.includes("Books | 1"))?.sheet).toBe("Sheet3");
  });

  it("calls a workbook with only empty sheets empty", async () => {
    const error = await parse(buildWorkbook({ summary: `<row r="1"/>`, data: "" })).then(
      () => undefined,
      (caught: unknown) => caught,
    );
    expect(isChunkpadError(error, "PARSE_EMPTY")).toBe(true);
  });
});

describe("styleOfFormatCode", () => {
  it("tells dates and percentages from numbers, ignoring quoted text and colours", () => {
    expect(styleOfFormatCode("dd/mm/yyyy")).toBe("date");
    expect(styleOfFormatCode("[h]:mm:ss")).toBe("date");
    expect(styleOfFormatCode("0.0%")).toBe("percent");
    expect(styleOfFormatCode(`"days" 0`)).toBe("number");
    expect(styleOfFormatCode("[Red]#,##0.00;[Blue]-#,##0.00")).toBe("number");
    expect(styleOfFormatCode("General")).toBe("number");
  });
});
