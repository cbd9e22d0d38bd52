import fs from "node:fs";
import path from "node:path";
import { DEFAULT_PARSE_LIMITS, type ParsedDocument, type ParseInput, type Parser } from "../../src/core/types.js";

/** What parser tests share: real corpus files, a stand-in parser, and a content comparison. */

export const CORPUS_DIR = path.resolve("../shared/corpus");

/** The bytes of a file under ../shared/corpus. */
export function corpusBytes(relativePath: string): Uint8Array {
  return new Uint8Array(fs.readFileSync(path.join(CORPUS_DIR, relativePath)));
}

/** Parses a real file, the way the pipeline would, with the default limits. */
export function parseFile(parser: Parser, filePath: string): Promise<ParsedDocument> {
  return parser.parse({ path: filePath, data: fs.readFileSync(filePath), limits: DEFAULT_PARSE_LIMITS });
}

/** A stand-in .docx parser that records what it was given and answers one paragraph of `text`. */
export function recordingParser(text: string): Parser & { inputs: ParseInput[] } {
  const inputs: ParseInput[] = [];
  return {
    name: "docx",
    extensions: [".docx"],
    inputs,
    parse(input) {
      inputs.push(input);
      return Promise.resolve({ blocks: [{ kind: "paragraph", text }], warnings: [] });
    },
  };
}

/** Words of four letters or more, the unit of the content comparisons with reference texts. */
function words(text: string): Set<string> {
  return new Set(text.normalize("NFKC").toLowerCase().match(/\p{L}{4,}/gu) ?? []);
}

/** The share (0..1) of the reference text's words that the parsed title and blocks contain. */
export function shareOfWordsFound(reference: string, document: ParsedDocument): number {
  const found = words(`${document.title ?? ""}\n${document.blocks.map((block) => block.text).join("\n")}`);
  const expected = [...words(reference)];
  return expected.filter((word) => found.has(word)).length / expected.length;
}
