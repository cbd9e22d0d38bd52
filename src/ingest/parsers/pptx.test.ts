import { strToU8, zipSync } from "fflate";
import { describe, expect, it } from "vitest";
import { corpusBytes } from "../../../test/helpers/parse.js";
import { isChunkpadError } from "../../core/errors.js";
import { DEFAULT_PARSE_LIMITS, type ParsedDocument } from "../../core/types.js";
import { pptxParser } from "./pptx.js";

const RELATIONSHIPS = "http://schemas.openxmlformats.org/package/2006/relationships";
const TYPES = "http://schemas.openxmlformats.org/officeDocument/2006/relationships";
const NAMESPACES = `xmlns:a="http://schemas.openxmlformats.org/drawingml/2006/main" xmlns:r="${TYPES}" xmlns:p="http://schemas.openxmlformats.org/presentationml/2006/main"`;

function parse(data: Uint8Array): Promise<ParsedDocument> {
  return pptxParser.parse({ path: "/documents/deck.pptx", data, limits: DEFAULT_PARSE_LIMITS });
}

function parseCorpus(relativePath: string): Promise<ParsedDocument> {
  return parse(corpusBytes(relativePath));
}

function shape(text: string | string[], placeholder?: string): string {
  const nv = `<p:nvSpPr><p:cNvPr id="2" name="s"/><p:cNvSpPr/><p:nvPr>${placeholder === undefined ? "" : `<p:ph${placeholder ? ` type="${placeholder}"` : ""}/>`}</p:nvPr></p:nvSpPr>`;
  const paragraphs = (Array.isArray(text) ? text : [text]).map((line) => `<a:p><a:r><a:t>${line}</a:t></a:r></a:p>`).join("");
  return `<p:sp>${nv}<p:spPr/><p:txBody><a:bodyPr/>${paragraphs}</p:txBody></p:sp>`;
}

function slideXml(shapes: string): string {
  return `<p:sld ${NAMESPACES}><p:cSld><p:spTree><p:nvGrpSpPr/><p:grpSpPr/>${shapes}</p:spTree></p:cSld></p:sld>`;
}

/**
 * A deck whose presentation order differs from its file names: slide3.xml is shown first,
 * then slide1.xml, then slide2.xml (as after reordering slides in PowerPoint).
 */
function buildDeck(): Uint8Array {
  const relationship = (id: string, type: string, target: string): string => `<Relationship Id="${id}" Type="${TYPES}/${type}" Target="${target}"/>`;
  return zipSync({
    "_rels/.rels": strToU8(`<Relationships xmlns="${RELATIONSHIPS}">${relationship("rId1", "officeDocument", "ppt/presentation.xml")}</Relationships>`),
    "ppt/presentation.xml": strToU8(
      `<p:presentation ${NAMESPACES}><p:sldIdLst><p:sldId id="256" r:id="rId7"/><p:sldId id="257" r:id="rId5"/><p:sldId id="258" r:id="rId6"/></p:sldIdLst></p:presentation>`,
    ),
    "ppt/_rels/presentation.xml.rels": strToU8(
      `<Relationships xmlns="${RELATIONSHIPS}">${relationship("rId5", "slide", "slides/slide1.xml")}${relationship("rId6", "slide", "slides/slide2.xml")}${relationship("rId7", "slide", "/ppt/slides/slide3.xml")}</Relationships>`,
    ),
    "ppt/slides/slide3.xml": strToU8(slideXml(shape("Opening", "ctrTitle") + shape("Quarterly review", "subTitle") + shape("1", "sldNum"))),
    "ppt/slides/slide1.xml": strToU8(
      slideXml(
        shape("Agenda", "title") +
          shape(["Revenue", "Hiring"], "") +
          `<p:grpSp><p:nvGrpSpPr/><p:grpSpPr/>${shape("Grouped note")}</p:grpSp>` +
          shape("2024-01-01", "dt"),
      ),
    ),
    "ppt/slides/_rels/slide1.xml.rels": strToU8(`<Relationships xmlns="${RELATIONSHIPS}">${relationship("rId2", "notesSlide", "../notesSlides/notesSlide1.xml")}</Relationships>`),
    "ppt/notesSlides/notesSlide1.xml": strToU8(slideXml(shape("", "sldImg") + shape("Mention the new office.", "body"))),
    "ppt/slides/slide2.xml": strToU8(
      slideXml(
        shape("Numbers", "title") +
          `<p:graphicFrame><a:graphic><a:graphicData><a:tbl><a:tr><a:tc><a:txBody><a:p><a:r><a:t>Team</a:t></a:r></a:p></a:txBody></a:tc><a:tc><a:txBody><a:p><a:r><a:t>Size</a:t></a:r></a:p></a:txBody></a:tc></a:tr>` +
          `<a:tr><a:tc><a:txBody><a:p><a:r><a:t>Design</a:t></a:r></a:p></a:txBody></a:tc><a:tc><a:txBody><a:p><a:r><a:t>4</a:t></a:r></a:p></a:txBody></a:tc></a:tr></a:tbl></a:graphicData></a:graphic></p:graphicFrame>`,
      ),
    ),
  });
}

describe("pptxParser", () => {
  it("reads slides in presentation order with 1-based slide numbers", async () => {
    const document = await parse(buildDeck());
    expect(document.pageCount).toBe(3);
    expect(document.blocks).toEqual([
      { kind: "heading", text: "Opening", level: 1, slide: 1 },
      { kind: "paragraph", text: "Quarterly review", slide: 1 },
      { kind: "heading", text: "Agenda", level: 1, slide: 2 },
      { kind: "list", text: "- Revenue\n- Hiring", slide: 2 },
      { kind: "paragraph", text: "Grouped note", slide: 2 },
      { kind: "paragraph", text: "Mention the new office.", slide: 2 },
      { kind: "heading", text: "Numbers", level: 1, slide: 3 },
      { kind: "table", text: "Team | Size\nDesign | 4", slide: 3 },
    ]);
    expect(document.title).toBe("Opening");
  });

  it("reads pandoc's pptx reader test: titles, bullets, tables and SmartArt text", async () => {
    const document = await parseCorpus("pandoc/pptx-reader/basic.pptx");
    expect(document.pageCount).toBe(4);
    expect(document.blocks.filter((block) => block.kind === "heading").map((block) => [block.slide, block.text])).toEqual([
      [1, "LLMs"],
      [2, "Everworker venn diagram"],
      [3, "Table"],
      [4, "Smart Art"],
    ]);
    expect(document.blocks.find((block) => block.kind === "table")).toEqual({ kind: "table", text: "Col1 | Col2 | Col3\nName | Anton | Antich\nAge | 23 | years", slide: 3 });
    const smartArt = document.blocks.filter((block) => block.slide === 4).map((block) => block.text).join("\n");
    expect(smartArt).toContain("First");
    expect(smartArt).toContain("and yet again");
  });

  it("keeps speaker notes on their slide", async () => {
    const document = await parseCorpus("pandoc/pptx/speaker-notes/output.pptx");
    expect(document.blocks.find((block) => block.text.includes("Here is a note."))?.slide).toBe(1);
    expect(document.blocks.find((block) => block.text.includes("The second note div"))?.slide).toBe(3);
  });

  it("classifies what it cannot read", async () => {
    const notPresentation = await parse(zipSync({ "_rels/.rels": strToU8(`<Relationships xmlns="${RELATIONSHIPS}"/>`) })).then(
      () => undefined,
      (error: unknown) => error,
    );
    expect(isChunkpadError(notPresentation, "PARSE_MALFORMED")).toBe(true);
    expect((notPresentation as Error).message).toContain("not a PowerPoint presentation");
  });
});
