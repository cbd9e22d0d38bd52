import { ChunkpadError } from "../../core/errors.js";
import type { ParsedBlock, ParsedDocument, ParseInput, Parser } from "../../core/types.js";
import { looksBinary } from "../sniff.js";
import { decodeText } from "../text-encoding.js";

/** Plain text: decoded by BOM or best guess, split into paragraphs at blank lines. */
export const textParser: Parser = {
  name: "text",
  extensions: [".txt", ".text", ".csv", ".tsv", ".log", ".rst", ".org", ".adoc"],
  async parse(input: ParseInput): Promise<ParsedDocument> {
    const { text, encoding } = decodeText(input.data);
    if (looksBinary(text)) {
      throw new ChunkpadError(
        "PARSE_MALFORMED",
        "not a text file: it holds binary data — check that the file is what its extension says",
        { details: { encoding } },
      );
    }
    const blocks = splitParagraphs(text);
    if (blocks.length === 0) {
      throw new ChunkpadError("PARSE_EMPTY", "no text: the file is empty or only whitespace");
    }
    return { blocks, warnings: [] };
  },
};

/** Paragraphs are separated by blank lines; line breaks inside a paragraph are kept. */
export function splitParagraphs(text: string): ParsedBlock[] {
  const blocks: ParsedBlock[] = [];
  const normalized = normalizeNewlines(text).replaceAll("\u0000", "");
  for (const part of normalized.split(/\n[ \t\f\v]*\n/)) {
    const paragraph = part
      .split("\n")
      .map((line) => line.trimEnd())
      .join("\n")
      .replace(/^\n+|\n+$/g, "");
    if (paragraph.trim() === "") continue;
    blocks.push({ kind: "paragraph", text: paragraph });
  }
  return blocks;
}

export function normalizeNewlines(text: string): string {
  return text.replace(/\r\n?/g, "\n").replace(/[\u2028\u2029]/g, "\n");
}
