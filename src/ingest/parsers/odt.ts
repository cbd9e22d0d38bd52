import { ChunkpadError } from "../../core/errors.js";
import type { ParsedDocument, ParseInput, Parser } from "../../core/types.js";
import { bodyContent, openOpenDocument, readContent, textBlocks } from "./opendocument.js";

/** ODT (and .ott templates): content.xml's office:text, headings with their outline levels. */
export const odtParser: Parser = {
  name: "odt",
  extensions: [".odt", ".ott"],
  async parse(input: ParseInput): Promise<ParsedDocument> {
    const opened = openOpenDocument(input, "text document");
    const text = bodyContent(readContent(opened), "text");
    if (!text) {
      throw new ChunkpadError("PARSE_MALFORMED", "The file is an OpenDocument file but not a text document (its content has no office:text); check the file's extension.");
    }
    const notes: string[] = [];
    const blocks = textBlocks(text, notes);
    if (notes.length > 0) blocks.push({ kind: "list", text: notes.join("\n") });
    if (blocks.length === 0) throw new ChunkpadError("PARSE_EMPTY", "The OpenDocument text has no text (it is empty or holds only pictures); there is nothing to index.");
    const title = opened.title ?? blocks.find((block) => block.kind === "heading")?.text;
    return { ...(title ? { title } : {}), blocks, warnings: [] };
  },
};
