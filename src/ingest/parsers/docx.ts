import { parseHTML } from "linkedom";
import mammoth from "mammoth";
import { ChunkpadError, isChunkpadError } from "../../core/errors.js";
import type { ParsedBlock, ParsedDocument, ParseInput, Parser } from "../../core/types.js";
import type { ZipArchive } from "../zip.js";
import { altChunkHtml, altChunkId, docxExtraBlocks, rewriteMainPart } from "./docx-extras.js";
import { htmlToBlocks } from "./html-blocks.js";
import { htmlParser } from "./html.js";
import { readHeadingStyles } from "./docx-styles.js";
import { openPackage, readCoreTitle, readRelationships, requireMainPart } from "./ooxml.js";

/**
 * DOCX (and .docm/.dotx): mammoth reads the Word structure (heading styles, lists, tables,
 * text boxes, footnotes and endnotes) into HTML, which becomes blocks; docx-extras.ts adds
 * what mammoth skips (ruby, altChunk, comments, headers and footers, SmartArt, charts).
 * Mammoth reads the package only through the safe zip reader, so every byte it sees has been
 * inflated under the limits.
 */
export const docxParser: Parser = {
  name: "docx",
  extensions: [".docx", ".docm", ".dotx"],
  async parse(input: ParseInput): Promise<ParsedDocument> {
    const zip = openPackage(input);
    const mainPart = requireMainPart(zip, "word/document.xml", "Word document");
    const stylesPart = [...readRelationships(zip, mainPart).values()].find((relationship) => relationship.type === "styles")?.target;
    const headingLevels = readHeadingStyles(zip.read(stylesPart ?? "word/styles.xml"));

    let result: { value: string; messages: Array<{ type: string; message: string }> };
    try {
      // `file` (a zip already opened) is mammoth's own input form, absent from its typings.
      const source = { file: mammothFile(zip, mainPart) } as unknown as { buffer: Buffer };
      result = await mammoth.convertToHtml(source, {
        styleMap: STYLE_MAP,
        transformDocument: markHeadings(headingLevels),
        convertImage: mammoth.images.imgElement(() => Promise.resolve({ src: "" })),
        externalFileAccess: false,
      });
    } catch (error) {
      if (isChunkpadError(error)) throw error;
      const reason = error instanceof Error ? error.message : String(error);
      throw new ChunkpadError("PARSE_MALFORMED", `The Word document is damaged and cannot be read (${reason}); open and re-save it in Word or LibreOffice.`, { cause: error });
    }

    const { document } = parseHTML(`<!DOCTYPE html><html><head></head><body>${result.value}</body></html>`);
    // Mammoth links each footnote back to its reference with a "↑": not the author's text.
    for (const link of Array.from(document.querySelectorAll("a[href^='#footnote-ref-'], a[href^='#endnote-ref-']"))) link.remove();
    labelNotes(document);
    // A picture's description is text the author wrote; keep it where the picture stood.
    for (const image of Array.from(document.querySelectorAll("img"))) {
      const description = image.getAttribute("alt")?.trim();
      image.replaceWith(document.createTextNode(description ? ` ${description} ` : ""));
    }
    const blocks = [...(await expandAltChunks(htmlToBlocks(document.body), zip, mainPart, input)), ...docxExtraBlocks(zip)];
    if (blocks.length === 0) throw new ChunkpadError("PARSE_EMPTY", "The Word document has no text (it is empty or holds only pictures); there is nothing to index.");

    const title = readCoreTitle(zip) ?? blocks.find((block) => block.kind === "heading")?.text;
    const warnings = [...new Set(result.messages.filter((message) => message.type === "error").map((message) => message.message))].slice(0, MAX_WARNINGS);
    return { ...(title ? { title } : {}), blocks, warnings };
  },
};

const MAX_WARNINGS = 10;

/**
 * Mammoth lists footnotes and endnotes at the end as one numbered list; each becomes a
 * paragraph "Footnote 1: ..." (the number the text's reference shows), so a chunk holding a
 * note says what it is.
 */
function labelNotes(document: Document): void {
  for (const item of Array.from(document.querySelectorAll("li[id^='footnote-'], li[id^='endnote-']"))) {
    const id = item.getAttribute("id") ?? "";
    const reference = document.querySelector(`a[href='#${id}']`)?.textContent?.replace(/[[\]\s]/g, "");
    const label = id.startsWith("endnote-") ? "Endnote" : "Footnote";
    const paragraph = document.createElement("p");
    paragraph.textContent = `${label}${reference ? ` ${reference}` : ""}: ${(item.textContent ?? "").replace(/\s+/g, " ").trim()}`;
    const list = item.parentElement;
    list?.parentElement?.insertBefore(paragraph, list);
    item.remove();
    if (list && list.children.length === 0) list.remove();
  }
}

/** Replaces each altChunk mark with the blocks of the HTML it names (nothing when unreadable). */
async function expandAltChunks(blocks: ParsedBlock[], zip: ZipArchive, mainPart: string, input: ParseInput): Promise<ParsedBlock[]> {
  const expanded: ParsedBlock[] = [];
  for (const block of blocks) {
    const id = altChunkId(block);
    if (id === undefined) {
      expanded.push(block);
      continue;
    }
    const html = altChunkHtml(zip, mainPart, id);
    if (!html) continue;
    try {
      expanded.push(...(await htmlParser.parse({ ...input, data: html })).blocks);
    } catch {
      // An empty or unreadable embedded page adds nothing; the rest of the document stands.
    }
  }
  return expanded;
}

const HEADING_STYLE_NAME = "chunkpad heading";
const STYLE_MAP = [1, 2, 3, 4, 5, 6].map((level) => `p[style-name='${HEADING_STYLE_NAME} ${level}'] => h${level}:fresh`);

interface MammothParagraph {
  type: string;
  styleId?: string | null;
  styleName?: string | null;
}

/**
 * Mammoth maps headings by style name alone; this renames every paragraph whose style is a
 * heading by inheritance or outline level (see docx-styles.ts) so the style map catches it.
 */
function markHeadings(levels: Map<string, number>): (document: unknown) => unknown {
  const transforms = (mammoth as unknown as { transforms: { paragraph(transform: (paragraph: MammothParagraph) => MammothParagraph): (document: unknown) => unknown } }).transforms;
  return transforms.paragraph((paragraph) => {
    const level = paragraph.styleId ? levels.get(paragraph.styleId) : undefined;
    return level === undefined ? paragraph : { ...paragraph, styleName: `${HEADING_STYLE_NAME} ${level}` };
  });
}

/** The zip-file shape mammoth reads from (lib/zipfile.js), over the safe reader. */
function mammothFile(zip: ZipArchive, mainPart: string) {
  return {
    exists: (name: string): boolean => zip.has(name),
    read(name: string, encoding?: string): Promise<Uint8Array | string> {
      try {
        let bytes = zip.read(name);
        if (bytes && name === mainPart) bytes = new TextEncoder().encode(rewriteMainPart(new TextDecoder().decode(bytes)));
        if (!bytes) return Promise.reject(new Error(`the part ${name} is missing`));
        if (encoding === "base64") return Promise.resolve(Buffer.from(bytes).toString("base64"));
        if (encoding) return Promise.resolve(new TextDecoder(encoding).decode(bytes));
        return Promise.resolve(bytes);
      } catch (error) {
        return Promise.reject(error instanceof Error ? error : new Error(String(error)));
      }
    },
    write(): void {
      throw new Error("the document is read-only");
    },
    toArrayBuffer(): Promise<ArrayBuffer> {
      return Promise.reject(new Error("the document is read-only"));
    },
  };
}
