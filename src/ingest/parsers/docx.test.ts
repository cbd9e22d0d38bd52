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
function buildDocx(body: string, options: { styles?: string; title?: string; parts?: Record<string, string>; relationships?: string } = {}): Uint8Array {
  const files: Record<string, Uint8Array> = {
    "[Content_Types].xml": strToU8(
      `<Types xmlns="http://schemas.openxmlformats.org/package/2006/content-types"><Default Extension="rels" ContentType="application/vnd.openxmlformats-package.relationships+xml"/><Default Extension="xml" ContentType="application/xml"/><Override PartName="/word/document.xml" ContentType="application/vnd.openxmlformats-officedocument.wordprocessingml.document.main+xml"/></Types>`,
    ),
    "_rels/.rels": strToU8(
      `<Relationships xmlns="http://schemas.openxmlformats.org/package/2006/relationships"><Relationship Id="rId1" Type="http://schemas.openxmlformats.org/officeDocument/2006/relationships/officeDocument" Target="word/document.xml"/><Relationship Id="rId2" Type="http://schemas.openxmlformats.org/package/2006/relationships/metadata/core-properties" Target="docProps/core.xml"/></Relationships>`,
    ),
    "word/_rels/document.xml.rels": strToU8(
      `<Relationships xmlns="http://schemas.openxmlformats.org/package/2006/relationships"><Relationship Id="rId1" Type="http://schemas.openxmlformats.org/officeDocument/2006/relationships/styles" Target="styles.xml"/>${options.relationships ?? ""}</Relationships>`,
    ),
    "word/document.xml": strToU8(`<w:document ${WORD}><w:body>${body}</w:body></w:document>`),
    "word/styles.xml": strToU8(`<w:styles ${WORD}>${options.styles ?? ""}</w:styles>`),
  };
  for (const [name, content] of Object.entries(options.parts ?? {})) files[name] = strToU8(content);
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

const RELATIONSHIP_TYPES = "http://schemas.openxmlformats.org/officeDocument/2006/relationships";
const texts = (document: ParsedDocument): string[] => document.blocks.map((block) => block.text);

describe("docxParser: text mammoth leaves out", () => {
  it("reads comments, labelled with their author (mammoth.js comments.docx)", async () => {
    const document = await parseCorpus("mammoth.js/comments.docx");
    expect(texts(document)).toEqual(["Ouch.", "Comment (Michael Williamson): A tachyon walks into a bar.", "Comment (Michael Williamson): Fin."]);
  });

  it("labels footnotes with the number the text shows (mammoth.js footnotes.docx, endnotes.docx)", async () => {
    expect(texts(await parseCorpus("mammoth.js/footnotes.docx"))).toEqual(["Ouch[1].[2]", "Footnote 1: A tachyon walks into a bar.", "Footnote 2: Fin."]);
    expect(texts(await parseCorpus("mammoth.js/endnotes.docx")).filter((text) => text.startsWith("Endnote"))).toHaveLength(2);
  });

  it("reads text boxes and SmartArt diagrams", async () => {
    expect(texts(await parseCorpus("mammoth.js/text-box.docx"))).toContain("Datum plane");
    expect(texts(await parseCorpus("pandoc/docx/diagram.docx"))).toContain("Diagram:\n- top\n- middle\n- bottom");
  });

  it("reads distinct headers and footers, labelled, without bare page numbers (pandoc 0_level_headers.docx)", async () => {
    const found = texts(await parseCorpus("pandoc/docx/0_level_headers.docx"));
    expect(found).toContain("Header: CONTENTS (Continued)");
    expect(found.filter((text) => text.startsWith("Footer:"))).toEqual([]);
    const headers = found.filter((text) => text.startsWith("Header:"));
    expect(new Set(headers).size).toBe(headers.length);
  });

  it("reads ruby as base text with the phonetic guide in parentheses", async () => {
    const ruby = (base: string, guide: string): string =>
      `<w:ruby><w:rubyPr><w:rubyAlign w:val="center"/></w:rubyPr><w:rt><w:r><w:t>${guide}</w:t></w:r></w:rt><w:rubyBase><w:r><w:t>${base}</w:t></w:r></w:rubyBase></w:ruby>`;
    const document = await parse(buildDocx(`<w:p><w:r><w:t>今日は</w:t></w:r>${ruby("東京", "とうきょう")}<w:r><w:t>へ行く</w:t></w:r></w:p>`));
    expect(texts(document)).toEqual(["今日は東京(とうきょう)へ行く"]);
  });

  it("reads altChunk parts, HTML and MHT, in place", async () => {
    const mht = [
      "MIME-Version: 1.0",
      'Content-Type: multipart/related; boundary="----=_NextPart_01"',
      "",
      "------=_NextPart_01",
      'Content-Type: text/html; charset="utf-8"',
      "Content-Transfer-Encoding: quoted-printable",
      "",
      "<html><body><p>Caf=C3=A9 menu from the MHT part, with a long=",
      " line.</p></body></html>",
      "------=_NextPart_01--",
      "",
    ].join("\r\n");
    const body = [
      paragraph("Before"),
      `<w:altChunk xmlns:r="${RELATIONSHIP_TYPES}" r:id="rIdHtml"/>`,
      paragraph("Between"),
      `<w:altChunk xmlns:r="${RELATIONSHIP_TYPES}" r:id="rIdMht"/>`,
      paragraph("After"),
    ].join("");
    const document = await parse(
      buildDocx(body, {
        parts: { "word/afchunk.htm": "<html><body><h2>Imported</h2><p>Text pasted as HTML.</p></body></html>", "word/afchunk2.mht": mht },
        relationships: `<Relationship Id="rIdHtml" Type="${RELATIONSHIP_TYPES}/aFChunk" Target="afchunk.htm"/><Relationship Id="rIdMht" Type="${RELATIONSHIP_TYPES}/aFChunk" Target="afchunk2.mht"/>`,
      }),
    );
    expect(texts(document)).toEqual(["Before", "Imported", "Text pasted as HTML.", "Between", "Café menu from the MHT part, with a long line.", "After"]);
  });

  it("reads a chart's title, series names and categories", async () => {
    const chart = `<c:chartSpace xmlns:c="http://schemas.openxmlformats.org/drawingml/2006/chart" xmlns:a="http://schemas.openxmlformats.org/drawingml/2006/main"><c:chart>
      <c:title><c:tx><c:rich><a:p><a:r><a:t>Rainfall by month</a:t></a:r></a:p></c:rich></c:tx></c:title>
      <c:plotArea><c:barChart>
        <c:ser><c:tx><c:strRef><c:strCache><c:pt idx="0"><c:v>Lyon</c:v></c:pt></c:strCache></c:strRef></c:tx>
          <c:cat><c:strRef><c:strCache><c:pt idx="0"><c:v>January</c:v></c:pt><c:pt idx="1"><c:v>February</c:v></c:pt></c:strCache></c:strRef></c:cat>
          <c:val><c:numRef><c:numCache><c:pt idx="0"><c:v>41</c:v></c:pt></c:numCache></c:numRef></c:val></c:ser>
        <c:ser><c:tx><c:strRef><c:strCache><c:pt idx="0"><c:v>Brest</c:v></c:pt></c:strCache></c:strRef></c:tx></c:ser>
      </c:barChart></c:plotArea></c:chart></c:chartSpace>`;
    const document = await parse(buildDocx(paragraph("Weather"), { parts: { "word/charts/chart1.xml": chart } }));
    expect(texts(document)).toEqual(["Weather", "Chart: Rainfall by month. Series: Lyon, Brest. Categories: January, February"]);
  });
});

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
    const endnotes = await parseCorpus("mammoth.js/endnotes.docx");
    expect(texts(endnotes)).toContain("Endnote 1: A tachyon walks into a bar.");
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
