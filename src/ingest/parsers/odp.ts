import { ChunkpadError } from "../../core/errors.js";
import type { ParsedBlock, ParsedDocument, ParseInput, Parser } from "../../core/types.js";
import { childElements, findFirst } from "../xml.js";
import { throwIfAborted } from "../zip.js";
import { bodyContent, openOpenDocument, readContent, textBlocks } from "./opendocument.js";

/**
 * ODP: each draw:page is a slide; a frame of class "title" is the slide's heading; speaker
 * notes follow the slide's own text. Every block carries its 1-based slide number.
 */
export const odpParser: Parser = {
  name: "odp",
  extensions: [".odp", ".otp"],
  async parse(input: ParseInput): Promise<ParsedDocument> {
    const opened = openOpenDocument(input, "presentation");
    const presentation = bodyContent(readContent(opened), "presentation");
    if (!presentation) {
      throw new ChunkpadError("PARSE_MALFORMED", "The file is an OpenDocument file but not a presentation (its content has no office:presentation); check the file's extension.");
    }
    const pages = childElements(presentation, "page");
    const blocks: ParsedBlock[] = [];
    pages.forEach((page, index) => {
      throwIfAborted(input.signal);
      const slide = index + 1;
      const notes: string[] = [];
      for (const block of textBlocks(page, notes)) blocks.push({ ...block, slide });
      if (notes.length > 0) blocks.push({ kind: "list", text: notes.join("\n"), slide });
      const speakerNotes = findFirst(page, "notes");
      if (speakerNotes) {
        for (const block of textBlocks(speakerNotes)) blocks.push({ ...block, kind: block.kind === "heading" ? "paragraph" : block.kind, level: undefined, slide });
      }
    });
    for (const block of blocks) if (block.level === undefined) delete block.level;
    if (blocks.length === 0) throw new ChunkpadError("PARSE_EMPTY", "The presentation has no text (its slides hold only pictures or are empty); there is nothing to index.");
    const title = opened.title ?? blocks.find((block) => block.kind === "heading")?.text;
    return { ...(title ? { title } : {}), blocks, pageCount: pages.length, warnings: [] };
  },
};
