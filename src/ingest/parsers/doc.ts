import WordExtractor from "word-extractor";
import { ChunkpadError } from "../../core/errors.js";
import type { ParsedBlock, ParsedDocument, ParseInput, Parser } from "../../core/types.js";
import { withOfficeDecryption } from "../office-crypto.js";
import { readOle, readStream } from "../office-crypto/ole.js";
import { decryptWordBinary, isWordDocumentStream, wordEncryption } from "../office-crypto/word-binary.js";
import { looksLikeText } from "../sniff.js";
import { looksLikeRtf, rtfParser } from "./rtf.js";
import { textParser } from "./text.js";
import { looksLikeWordml, parseWordml } from "./wordml.js";

/**
 * What a ".doc" file really holds. Files in the wild are often RTF, a .docx, or a web page
 * saved with a .doc name; the registry can use this to re-dispatch by content.
 */
export type WordFileFormat = "ole" | "rtf" | "zip" | "wordml" | "html" | "text" | "unknown";

/** Word 6.0/95 documents carry this FIB identifier; word-extractor reads only Word 97 and later. */
const WORD_95_IDENTIFIER = 0xa5dc;

export function sniffWordFormat(data: Uint8Array): WordFileFormat {
  if (data[0] === 0xd0 && data[1] === 0xcf && data[2] === 0x11 && data[3] === 0xe0) return "ole";
  if (data[0] === 0x50 && data[1] === 0x4b && (data[2] === 0x03 || data[2] === 0x05 || data[2] === 0x07)) return "zip";
  if (looksLikeRtf(data)) return "rtf";
  if (looksLikeWordml(data)) return "wordml";
  const head = Buffer.from(data.buffer, data.byteOffset, Math.min(data.byteLength, 1024)).toString("latin1").trimStart().toLowerCase();
  if (head.startsWith("<") && /<html|<!doctype html|xmlns:w="urn:schemas-microsoft-com/.test(head)) return "html";
  if (head.startsWith("mime-version:")) return "html";
  // A .dot is as often a Graphviz graph as a Word template.
  if (looksLikeText(data)) return "text";
  return "unknown";
}

export interface DocParserOptions {
  /**
   * The .docx parser, used for a ".doc" that is really a .docx (zip) or an encrypted .docx.
   * Without it such files are reported with a hint to rename them.
   */
  docxParser?: Parser;
}

function paragraphs(text: string): ParsedBlock[] {
  return text
    .split(/\r\n?|\n/)
    .map((line) => line.replace(/[ \t\u00a0]+$/g, "").replace(/^[ \u00a0]+/g, ""))
    .filter((line) => line.trim() !== "")
    .map((line) => ({ kind: "paragraph" as const, text: line }));
}

async function extractWord(data: Uint8Array): Promise<ParsedDocument> {
  let document: WordExtractor.Document;
  try {
    document = await new WordExtractor().extract(Buffer.from(data.buffer, data.byteOffset, data.byteLength));
  } catch (error) {
    throw new ChunkpadError("PARSE_MALFORMED", `not readable as a Word 97-2003 document (${error instanceof Error ? error.message : String(error)}); open it in Word and save it again`, { cause: error });
  }
  const blocks = [
    ...paragraphs(document.getBody()),
    ...paragraphs(document.getTextboxes({ includeBody: true, includeHeadersAndFooters: false })),
    ...paragraphs(document.getFootnotes()),
    ...paragraphs(document.getEndnotes()),
  ];
  if (blocks.length === 0) throw new ChunkpadError("PARSE_EMPTY", "The Word document has no text (it is empty or holds only pictures); there is nothing to index.");
  return { blocks, warnings: [] };
}

async function parseOle(input: ParseInput, options: DocParserOptions): Promise<ParsedDocument> {
  const container = readOle(input.data);
  if (!container) throw new ChunkpadError("PARSE_MALFORMED", "damaged Office file (its compound-file structure cannot be read); re-save it in Word or download it again");
  if (readStream(container, "EncryptionInfo") && readStream(container, "EncryptedPackage")) {
    if (!options.docxParser) {
      throw new ChunkpadError("PARSE_MALFORMED", "the file is really an encrypted .docx; rename it to .docx and give its password");
    }
    const document = await withOfficeDecryption(options.docxParser).parse(input);
    return { ...document, warnings: ["the file is really a .docx; consider renaming it", ...document.warnings] };
  }
  const wordDocument = readStream(container, "WordDocument");
  if (!wordDocument) {
    throw new ChunkpadError("PARSE_MALFORMED", "an Office file, but not a Word document (an Excel or PowerPoint file?); give it its real extension");
  }
  if (!isWordDocumentStream(wordDocument)) {
    const identifier = new DataView(wordDocument.buffer, wordDocument.byteOffset, wordDocument.byteLength).getUint16(0, true);
    if (identifier === WORD_95_IDENTIFIER) {
      throw new ChunkpadError("PARSE_UNSUPPORTED", "saved by Word 95 or older, which Chunkpad cannot read; open it in Word and save it as .docx");
    }
    throw new ChunkpadError("PARSE_MALFORMED", "not a Word 97-2003 document (unknown identifier); open it in Word and save it again");
  }
  const encryption = wordEncryption(wordDocument);
  if (encryption === "none") return extractWord(input.data);
  if (input.password === undefined || input.password === "") {
    throw new ChunkpadError("PARSE_ENCRYPTED", "encrypted: password required", { details: { encryption } });
  }
  return extractWord(decryptWordBinary(container, input.password));
}

/** Builds the Word 97-2003 parser; pass the .docx parser so mislabelled .docx files still read. */
export function createDocParser(options: DocParserOptions = {}): Parser {
  return {
    name: "doc",
    extensions: [".doc", ".dot"],
    async parse(input: ParseInput): Promise<ParsedDocument> {
      const format = sniffWordFormat(input.data);
      switch (format) {
        case "ole":
          return parseOle(input, options);
        case "rtf": {
          const document = await rtfParser.parse(input);
          return { ...document, warnings: ["the file is really an RTF file; consider renaming it to .rtf", ...document.warnings] };
        }
        case "zip": {
          if (!options.docxParser) throw new ChunkpadError("PARSE_MALFORMED", "the file is really a .docx; rename it to .docx");
          const document = await options.docxParser.parse(input);
          return { ...document, warnings: ["the file is really a .docx; consider renaming it to .docx", ...document.warnings] };
        }
        case "wordml":
          return parseWordml(input);
        case "text":
          return textParser.parse(input);
        case "html":
          throw new ChunkpadError("PARSE_MALFORMED", "the file is really a web page saved by Word; rename it to .html");
        case "unknown":
          throw new ChunkpadError("PARSE_MALFORMED", "not a Word document; check that the file is what its extension says");
      }
    },
  };
}
