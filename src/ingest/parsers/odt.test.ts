import fs from "node:fs";
import path from "node:path";
import { strToU8, zipSync } from "fflate";
import { describe, expect, it } from "vitest";
import { rejectionOf } from "../../../test/helpers/rejection.js";
import { isChunkpadError } from "../../core/errors.js";
import { DEFAULT_PARSE_LIMITS, type ParsedDocument } from "../../core/types.js";
import { odtParser } from "./odt.js";

const PANDOC_ODT = path.resolve("../shared/corpus/pandoc/odt/odt");
const NAMESPACES = `xmlns:office="urn:oasis:names:tc:opendocument:xmlns:office:1.0" xmlns:text="urn:oasis:names:tc:opendocument:xmlns:text:1.0" xmlns:table="urn:oasis:names:tc:opendocument:xmlns:table:1.0" xmlns:draw="urn:oasis:names:tc:opendocument:xmlns:drawing:1.0"`;

function buildOdt(body: string, extra: Record<string, string> = {}): Uint8Array {
  const files: Record<string, Uint8Array> = {
    mimetype: strToU8("application/vnd.oasis.opendocument.text"),
    "content.xml": strToU8(`<office:document-content ${NAMESPACES}><office:body><office:text>${body}</office:text></office:body></office:document-content>`),
  };
  for (const [name, content] of Object.entries(extra)) files[name] = strToU8(content);
  return zipSync(files);
}

function parse(data: Uint8Array): Promise<ParsedDocument> {
  return odtParser.parse({ path: "/documents/sample.odt", data, limits: DEFAULT_PARSE_LIMITS });
}

function parseCorpus(name: string): Promise<ParsedDocument> {
  return parse(new Uint8Array(fs.readFileSync(path.join(PANDOC_ODT, name))));
}

describe("odtParser", () => {
  it("keeps headings with their outline levels (pandoc's headers test)", async () => {
    const document = await parseCorpus("headers.odt");
    expect(document.blocks).toEqual([
      { kind: "heading", text: "A header (Lv 1)", level: 1 },
      { kind: "paragraph", text: "A paragraph" },
      { kind: "heading", text: "Another header (Lv 2)", level: 2 },
      { kind: "paragraph", text: "Another paragraph" },
      { kind: "heading", text: "Back to Level 1", level: 1 },
    ]);
    expect(document.title).toBe("A header (Lv 1)");
  });

  it("renders nested lists with indentation", async () => {
    const document = await parseCorpus("unorderedList.odt");
    expect(document.blocks).toEqual([
      {
        kind: "list",
        text: "- A list item\n- A second\n- A third\n  - New level!\n    - And another!\n    - It's great up here!\n  - Oh noes\n  - We fell!\n- Maybe someone\n- Pushed us?",
      },
    ]);
  });

  it("reads ODF spacing, tables, text boxes and footnotes", async () => {
    const body = [
      `<text:list><text:list-item><text:h text:outline-level="1">1. Budget</text:h></text:list-item></text:list>`,
      `<text:h text:outline-level="2">Costs<text:s text:c="3"/>overview</text:h>`,
      `<text:p>First<text:tab/>second<text:line-break/>next   line <text:span>joined</text:span>` +
        `<text:note text:note-class="footnote"><text:note-citation>1</text:note-citation><text:note-body><text:p>Source: survey.</text:p></text:note-body></text:note>.</text:p>`,
      `<table:table table:name="T"><table:table-row><table:table-cell><text:p>Item</text:p></table:table-cell><table:table-cell><text:p>Price</text:p></table:table-cell></table:table-row>` +
        `<table:table-row><table:table-cell><text:p>Tea</text:p></table:table-cell><table:table-cell><text:p>3</text:p></table:table-cell><table:table-cell/></table:table-row></table:table>`,
      `<text:p>Anchor<draw:frame><draw:text-box><text:p>Boxed words</text:p></draw:text-box></draw:frame></text:p>`,
      `<office:annotation><text:p>A reviewer comment</text:p></office:annotation>`,
      `<text:table-of-content><text:index-body><text:p>Costs overview 1</text:p></text:index-body></text:table-of-content>`,
    ].join("");
    const document = await parse(buildOdt(body));
    expect(document.blocks).toEqual([
      { kind: "heading", text: "1. Budget", level: 1 },
      { kind: "heading", text: "Costs overview", level: 2 },
      { kind: "paragraph", text: "First second\nnext line joined[1]." },
      { kind: "table", text: "| Item | Price |\n| --- | --- |\n| Tea | 3 |", header: "| Item | Price |\n| --- | --- |" },
      { kind: "paragraph", text: "Anchor" },
      { kind: "paragraph", text: "Boxed words" },
      { kind: "list", text: "1. Source: survey." },
    ]);
  });

  it("takes the title from meta.xml", async () => {
    const meta = `<office:document-meta ${NAMESPACES} xmlns:dc="http://purl.org/dc/elements/1.1/"><office:meta><dc:title>Annual Plan</dc:title></office:meta></office:document-meta>`;
    const document = await parse(buildOdt(`<text:p>Body</text:p>`, { "meta.xml": meta }));
    expect(document.title).toBe("Annual Plan");
  });

  it("classifies what it cannot read", async () => {
    const encryptedManifest = `<manifest:manifest xmlns:manifest="urn:oasis:names:tc:opendocument:xmlns:manifest:1.0"><manifest:file-entry manifest:full-path="content.xml"><manifest:encryption-data manifest:checksum-type="SHA1/1K"/></manifest:file-entry></manifest:manifest>`;
    const encrypted = await rejectionOf(parse(buildOdt(`<text:p>x</text:p>`, { "META-INF/manifest.xml": encryptedManifest })));
    expect(isChunkpadError(encrypted, "PARSE_ENCRYPTED")).toBe(true);

    const notOdt = await rejectionOf(parse(zipSync({ "readme.txt": strToU8("hello") })));
    expect(isChunkpadError(notOdt, "PARSE_MALFORMED")).toBe(true);
    expect((notOdt as Error).message).toContain("content.xml");

    const empty = await rejectionOf(parseCorpus("image.odt"));
    expect(isChunkpadError(empty, "PARSE_EMPTY")).toBe(true);
  });
});
