import { strToU8, zipSync } from "fflate";
import { describe, expect, it } from "vitest";
import { corpusBytes } from "../../../test/helpers/parse.js";
import { rejectionOf } from "../../../test/helpers/rejection.js";
import { isChunkpadError } from "../../core/errors.js";
import { DEFAULT_PARSE_LIMITS, type ParsedDocument } from "../../core/types.js";
import { docxParser } from "./docx.js";

function parse(data: Uint8Array, limits = DEFAULT_PARSE_LIMITS): Promise<ParsedDocument> {
  return docxParser.parse({ path: "/documents/sample.docx", data, limits });
}

function parseCorpus(relativePath: string): Promise<ParsedDocument> {
  return parse(corpusBytes(relativePath));
}

const WORD = `xmlns:w="http://schemas.openxmlformats.org/wordprocessingml/2006/main"`;

/** A minimal Word package: document body paragraphs, a styles part, optional core title. */
function buildDocx(body: string, options: { styles?: string; title?: string } = {}): Uint8Array {
  const files: Record<string, Uint8Array> = {
    "[Content_Types].xml": strToU8(
      `<Types xmlns="http://schemas.openxmlformats.org/package/2006/content-types"><Default Extension="rels" ContentType="application/vnd.openxmlformats-package.relationships+xml"/><Default Extension="xml" ContentType="application/xml"/><Override PartName="/word/document.xml" ContentType="application/vnd.openxmlformats-officedocument.wordprocessingml.document.main+xml"/></Types>`,
    ),
    "_rels/.rels": strToU8(
      `<Relationships xmlns="http://schemas.openxmlformats.org/package/2006/relationships"><Relationship Id="rId1" Type="http://schemas.openxmlformats.org/officeDocument/2006/relationships/officeDocument" Target="word/document.xml"/><Relationship Id="rId2" Type="http://schemas.openxmlformats.org/package/2006/relationships/metadata/core-properties" Target="docProps/core.xml"/></Relationships>`,
    ),
    "word/_rels/document.xml.rels": strToU8(
      `<Relationships xmlns="http://schemas.openxmlformats.org/package/2006/relationships"><Relationship Id="rId1" Type="http://schemas.openxmlformats.org/officeDocument/2006/relationships/styles" Target="styles.xml"/></Relationships>`,
    ),
    "word/document.xml": strToU8(`<w:document ${WORD}><w:body>${body}</w:body></w:document>`),
    "word/styles.xml": strToU8(`<w:styles ${WORD}>${options.styles ?? ""}</w:styles>`),
  };
  if (options.title) {
    files["docProps/core.xml"] = strToU8(
      `<cp:coreProperties xmlns:cp="http://schemas.openxmlformats.org/package/2006/metadata/core-properties" xmlns:dc="http://purl.org/dc/elements/1.1/"><dc:title>${options.title}</dc:title></cp:coreProperties>`,
    );
  }
  return zipSync(files);
}

function paragraph(text: string, styleId?: string): string {
  const properties = styleId ? `<w:pPr><w:pStyle w:val="${styleId}"/></w:pPr>` : "";
  return `<w:p>${properties}<w:r><w:t>${text}</w:t></w:r></w:p>`;
}

function paragraphStyle(id: string, name: string, extra = ""): string {
  return `<w:style w:type="paragraph" w:styleId="${id}"><w:name w:val="${name}"/>${extra}</w:style>`;
}

describe("docxParser", () => {
  it("keeps heading levels from pandoc's headers test", async () => {
    const document = await parseCorpus("pandoc/docx/headers.docx");
    const headings = document.blocks.filter((block) => block.kind === "heading");
    expect(headings.map((block) => [block.level, block.text])).toEqual([
      [1, "A Test of Headers"],
      [2, "Second Level"],
      [3, "Third level"],
      [4, "Fourth level"],
      [5, "Fifth level"],
      [6, "Sixth level"],
    ]);
  });

  it("finds headings through style inheritance, outline levels and the Title style", async () => {
    const styles = [
      paragraphStyle("Heading2", "heading 2"),
      paragraphStyle("MyHeading", "My heading", `<w:basedOn w:val="Heading2"/>`),
      paragraphStyle("Outline", "Chapter line", `<w:pPr><w:outlineLvl w:val="2"/></w:pPr>`),
      paragraphStyle("Title", "Title"),
      paragraphStyle("Body", "Body text", `<w:pPr><w:outlineLvl w:val="9"/></w:pPr>`),
    ].join("");
    const body = [
      paragraph("The Report", "Title"),
      paragraph("Derived heading", "MyHeading"),
      paragraph("Outlined heading", "Outline"),
      paragraph("Plain words.", "Body"),
    ].join("");
    const document = await parse(buildDocx(body, { styles }));
    expect(document.blocks).toEqual([
      { kind: "heading", text: "The Report", level: 1 },
      { kind: "heading", text: "Derived heading", level: 2 },
      { kind: "heading", text: "Outlined heading", level: 3 },
      { kind: "paragraph", text: "Plain words." },
    ]);
    expect(document.title).toBe("The Report");
  });

  it("takes the title from the core properties when the author set one", async () => {
    const document = await parse(buildDocx(paragraph("Body text"), { title: "Quarterly Plan" }));
    expect(document.title).toBe("Quarterly Plan");
    expect((await parseCorpus("officeParser/files/test.docx")).title).toBe("DOCX Demo");
  });

  it("renders tables as markdown tables and lists as items", async () => {
    const tables = await parseCorpus("mammoth.js/tables.docx");
    expect(tables.blocks).toEqual([
      { kind: "paragraph", text: "Above" },
      {
        kind: "table",
        text: "| Top left | Top right |\n| --- | --- |\n| Bottom left | Bottom right |",
        header: "| Top left | Top right |\n| --- | --- |",
      },
      { kind: "paragraph", text: "Below" },
    ]);
    const list = await parseCorpus("mammoth.js/simple-list.docx");
    expect(list.blocks).toEqual([{ kind: "list", text: "- Apple\n- Banana" }]);
  });

  it("appends footnotes and endnotes after the body, without back-link arrows", async () => {
    const footnotes = await parseCorpus("mammoth.js/footnotes.docx");
    expect(footnotes.blocks.map((block) => block.text)).toEqual(["Ouch[1].[2]", "1. A tachyon walks into a bar.\n2. Fin."]);
    const endnotes = await parseCorpus("mammoth.js/endnotes.docx");
    expect(endnotes.blocks.at(-1)?.text).toContain("A tachyon walks into a bar.");
    expect(endnotes.blocks.map((block) => block.text).join("\n")).not.toContain("↑");
  });

  it("keeps a picture's description as text", async () => {
    const document = await parseCorpus("pandoc/docx/inline_images.docx");
    expect(document.blocks.map((block) => block.text).join("\n")).toContain("This one is green and looks like Sideshow Bob.");
  });

  it("reads Strict OOXML and a document.xml with a byte order mark", async () => {
    expect((await parseCorpus("mammoth.js/strict-format.docx")).blocks).toEqual([{ kind: "paragraph", text: "Test" }]);
    expect((await parseCorpus("mammoth.js/utf8-bom.docx")).blocks).toEqual([{ kind: "paragraph", text: "This XML has a byte order mark." }]);
  });

  it("classifies documents it cannot read", async () => {
    const empty = await rejectionOf(parseCorpus("mammoth.js/empty.docx"));
    expect(isChunkpadError(empty, "PARSE_EMPTY")).toBe(true);

    const notWord = await rejectionOf(parseCorpus("mammoth.js/hello.zip"));
    expect(isChunkpadError(notWord, "PARSE_MALFORMED")).toBe(true);
    expect((notWord as Error).message).toContain("not a Word document");

    const encrypted = await rejectionOf(parseCorpus("msoffcrypto-tool/inputs/example_password.docx"));
    expect(isChunkpadError(encrypted, "PARSE_MALFORMED")).toBe(true);
    expect((encrypted as Error).message).toMatch(/password/);

    const bomb = await rejectionOf(parseCorpus("officeParser/files/oversized_archive.docx"));
    expect(isChunkpadError(bomb, "PARSE_ZIP_BOMB")).toBe(true);
  });

  it("lets mammoth read only bytes that passed the zip limits", async () => {
    const data = corpusBytes("officeParser/files/test.docx");
    const error = await rejectionOf(parse(data, { ...DEFAULT_PARSE_LIMITS, maxDecompressedBytes: 100_000 }));
    expect(isChunkpadError(error, "PARSE_ZIP_BOMB")).toBe(true);
  });

  it("calls a damaged document.xml malformed", async () => {
    const files = {
      "_rels/.rels": strToU8(
        `<Relationships xmlns="http://schemas.openxmlformats.org/package/2006/relationships"><Relationship Id="rId1" Type="http://schemas.openxmlformats.org/officeDocument/2006/relationships/officeDocument" Target="word/document.xml"/></Relationships>`,
      ),
      "word/document.xml": strToU8(`<w:document ${WORD}><w:body><w:p><w:r><w:t>cut off`),
    };
    const error = await rejectionOf(parse(zipSync(files)));
    expect(isChunkpadError(error)).toBe(true);
    expect(["PARSE_MALFORMED", "PARSE_EMPTY"]).toContain((error as { code: string }).code);
  });
});
