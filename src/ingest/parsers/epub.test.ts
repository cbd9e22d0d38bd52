import fs from "node:fs";
import path from "node:path";
import { strToU8, zipSync } from "fflate";
import { describe, expect, it } from "vitest";
import { rejectionOf } from "../../../test/helpers/rejection.js";
import { isChunkpadError } from "../../core/errors.js";
import { DEFAULT_PARSE_LIMITS, type ParsedDocument } from "../../core/types.js";
import { epubParser } from "./epub.js";

function parse(data: Uint8Array): Promise<ParsedDocument> {
  return epubParser.parse({ path: "/books/book.epub", data, limits: DEFAULT_PARSE_LIMITS });
}

function chapter(body: string): string {
  return `<?xml version="1.0" encoding="UTF-8"?><!DOCTYPE html><html xmlns="http://www.w3.org/1999/xhtml"><head><title/><link rel="stylesheet" href="s.css"/></head><body>${body}</body></html>`;
}

/** A book whose spine order (b, then a) differs from its manifest and file names. */
function buildBook(extra: Record<string, string> = {}): Uint8Array {
  const files: Record<string, string> = {
    mimetype: "application/epub+zip",
    "META-INF/container.xml": `<container xmlns="urn:oasis:names:tc:opendocument:xmlns:container" version="1.0"><rootfiles><rootfile full-path="OPS/content.opf" media-type="application/oebps-package+xml"/></rootfiles></container>`,
    "OPS/content.opf": `<package xmlns="http://www.idpf.org/2007/opf" version="3.0"><metadata xmlns:dc="http://purl.org/dc/elements/1.1/"><dc:title>Rivers &amp; Roads</dc:title></metadata>
      <manifest><item id="a" href="text/ch%201.xhtml" media-type="application/xhtml+xml"/><item id="b" href="text/intro.xhtml" media-type="application/xhtml+xml"/><item id="nav" href="nav.xhtml" media-type="application/xhtml+xml" properties="nav"/><item id="css" href="s.css" media-type="text/css"/></manifest>
      <spine><itemref idref="nav"/><itemref idref="b"/><itemref idref="a"/><itemref idref="css"/></spine></package>`,
    "OPS/nav.xhtml": chapter(`<nav epub:type="toc"><ol><li><a href="text/intro.xhtml">Introduction</a></li></ol></nav>`),
    "OPS/text/intro.xhtml": chapter(`<h1>Introduction</h1><div/><p>Rivers&nbsp;carve <a id="note"/>valleys.</p>`),
    "OPS/text/ch 1.xhtml": chapter(`<h2>Chapter One</h2><p>Roads follow rivers.</p><ul><li>Rome</li><li>Lyon</li></ul>`),
    ...extra,
  };
  return zipSync(Object.fromEntries(Object.entries(files).map(([name, text]) => [name, strToU8(text)])));
}

describe("epubParser", () => {
  it("reads chapters in spine order, skipping the navigation document", async () => {
    const document = await parse(buildBook());
    expect(document.title).toBe("Rivers & Roads");
    expect(document.blocks).toEqual([
      { kind: "heading", text: "Introduction", level: 1 },
      { kind: "paragraph", text: "Rivers carve valleys." },
      { kind: "heading", text: "Chapter One", level: 2 },
      { kind: "paragraph", text: "Roads follow rivers." },
      { kind: "list", text: "- Rome\n- Lyon" },
    ]);
  });

  it("reads pandoc's Waste Land with its title and section headings", async () => {
    const data = new Uint8Array(fs.readFileSync(path.resolve("../shared/corpus/pandoc/epub/wasteland.epub")));
    const document = await parse(data);
    expect(document.title).toBe("The Waste Land");
    expect(document.blocks.filter((block) => block.kind === "heading").map((block) => [block.level, block.text])).toEqual([
      [1, "The Waste Land"],
      [2, "I. THE BURIAL OF THE DEAD"],
      [2, "II. A GAME OF CHESS"],
      [2, 'NOTES ON "THE WASTE LAND"'],
      [3, "I. THE BURIAL OF THE DEAD"],
      [3, "II. A GAME OF CHESS"],
    ]);
    expect(document.blocks.find((block) => block.text === "April is the cruellest month, breeding")).toBeDefined();
  });

  it("refuses DRM-encrypted chapters but not obfuscated fonts", async () => {
    const encryption = (algorithm: string, uri: string): string =>
      `<encryption xmlns="urn:oasis:names:tc:opendocument:xmlns:container" xmlns:enc="http://www.w3.org/2001/04/xmlenc#"><enc:EncryptedData><enc:EncryptionMethod Algorithm="${algorithm}"/><enc:CipherData><enc:CipherReference URI="${uri}"/></enc:CipherData></enc:EncryptedData></encryption>`;
    const drm = await rejectionOf(parse(buildBook({ "META-INF/encryption.xml": encryption("http://www.w3.org/2001/04/xmlenc#aes128-cbc", "OPS/text/intro.xhtml") })));
    expect(isChunkpadError(drm, "PARSE_ENCRYPTED")).toBe(true);
    expect((drm as Error).message).toContain("DRM");

    const fonts = await parse(buildBook({ "META-INF/encryption.xml": encryption("http://www.idpf.org/2008/embedding", "OPS/fonts/a.otf") }));
    expect(fonts.blocks.length).toBeGreaterThan(0);
  });

  it("calls a zip with no package document malformed", async () => {
    const error = await rejectionOf(parse(zipSync({ "chapter.xhtml": strToU8(chapter("<p>x</p>")) })));
    expect(isChunkpadError(error, "PARSE_MALFORMED")).toBe(true);
    expect((error as Error).message).toContain("not an EPUB");
  });
});
