import fs from "node:fs";
import path from "node:path";
import { strToU8, zipSync } from "fflate";
import { describe, expect, it } from "vitest";
import { isChunkpadError } from "../../core/errors.js";
import { DEFAULT_PARSE_LIMITS, type ParsedDocument } from "../../core/types.js";
import { odpParser } from "./odp.js";

const NAMESPACES = `xmlns:office="urn:oasis:names:tc:opendocument:xmlns:office:1.0" xmlns:text="urn:oasis:names:tc:opendocument:xmlns:text:1.0" xmlns:draw="urn:oasis:names:tc:opendocument:xmlns:drawing:1.0" xmlns:presentation="urn:oasis:names:tc:opendocument:xmlns:presentation:1.0"`;

function parse(data: Uint8Array): Promise<ParsedDocument> {
  return odpParser.parse({ path: "/documents/deck.odp", data, limits: DEFAULT_PARSE_LIMITS });
}

function frame(role: string, text: string): string {
  return `<draw:frame presentation:class="${role}"><draw:text-box><text:p>${text}</text:p></draw:text-box></draw:frame>`;
}

function buildOdp(pages: string[]): Uint8Array {
  const body = pages.map((page) => `<draw:page>${page}</draw:page>`).join("");
  return zipSync({
    mimetype: strToU8("application/vnd.oasis.opendocument.presentation"),
    "content.xml": strToU8(`<office:document-content ${NAMESPACES}><office:body><office:presentation>${body}</office:presentation></office:body></office:document-content>`),
  });
}

describe("odpParser", () => {
  it("numbers slides, makes titles headings, keeps notes and drops slide boilerplate", async () => {
    const document = await parse(
      buildOdp([
        frame("title", "Welcome") + frame("subtitle", "A short tour") + frame("page-number", "1"),
        `<draw:custom-shape><text:p>Shape words</text:p></draw:custom-shape>` +
          `<presentation:notes>${frame("page-number", "2")}${frame("notes", "Say hello first.")}</presentation:notes>`,
        frame("title", "Plans") + frame("outline", "Ship it") + frame("footer", "Company confidential"),
      ]),
    );
    expect(document.pageCount).toBe(3);
    expect(document.blocks).toEqual([
      { kind: "heading", text: "Welcome", level: 1, slide: 1 },
      { kind: "paragraph", text: "A short tour", slide: 1 },
      { kind: "paragraph", text: "Shape words", slide: 2 },
      { kind: "paragraph", text: "Say hello first.", slide: 2 },
      { kind: "heading", text: "Plans", level: 1, slide: 3 },
      { kind: "paragraph", text: "Ship it", slide: 3 },
    ]);
    expect(document.title).toBe("Welcome");
  });

  it("reads the corpus presentation slide by slide", async () => {
    const data = new Uint8Array(fs.readFileSync(path.resolve("../shared/corpus/officeParser/files/test.odp")));
    const document = await parse(data);
    expect(document.pageCount).toBe(9);
    const headings = document.blocks.filter((block) => block.kind === "heading");
    expect(headings.slice(0, 3).map((block) => [block.slide, block.text])).toEqual([
      [1, "Demonstration of DOCX support in calibre"],
      [2, "Text Formatting"],
      [3, "Tables"],
    ]);
    expect(document.blocks.find((block) => block.text === "Slide Note 1.")?.slide).toBe(1);
    expect(document.blocks.find((block) => block.kind === "table")?.text).toContain("Books | 1");
    expect(document.blocks.every((block) => block.slide !== undefined && block.slide >= 1 && block.slide <= 9)).toBe(true);
  });

  it("calls a presentation with no text empty", async () => {
    const error = await parse(buildOdp([`<draw:frame><draw:image/></draw:frame>`])).then(
      () => undefined,
      (caught: unknown) => caught,
    );
    expect(isChunkpadError(error, "PARSE_EMPTY")).toBe(true);
  });
});
