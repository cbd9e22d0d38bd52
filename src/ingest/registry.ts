import path from "node:path";
import type { Parser } from "../core/types.js";

/**
 * Every format Chunkpad reads: one line each. Parsers load lazily so commands that parse
 * nothing (folders, search) never pay for pdf.js or mammoth.
 */
interface ParserEntry {
  name: string;
  extensions: readonly string[];
  load: () => Promise<Parser>;
}

const PARSERS: readonly ParserEntry[] = [
  { name: "pdf", extensions: [".pdf"], load: async () => (await import("./parsers/pdf.js")).pdfParser },
  { name: "docx", extensions: [".docx", ".docm", ".dotx"], load: async () => withDecryption((await import("./parsers/docx.js")).docxParser) },
  // A .doc is often really RTF or a renamed .docx: the DOC parser sniffs and hands those on.
  { name: "doc", extensions: [".doc", ".dot"], load: async () => (await import("./parsers/doc.js")).createDocParser({ docxParser: await withDecryption((await import("./parsers/docx.js")).docxParser) }) },
  { name: "odt", extensions: [".odt", ".ott"], load: async () => (await import("./parsers/odt.js")).odtParser },
  { name: "rtf", extensions: [".rtf"], load: async () => (await import("./parsers/rtf.js")).rtfParser },
  { name: "pptx", extensions: [".pptx", ".pptm", ".ppsx", ".potx"], load: async () => withDecryption((await import("./parsers/pptx.js")).pptxParser) },
  { name: "odp", extensions: [".odp", ".otp"], load: async () => (await import("./parsers/odp.js")).odpParser },
  { name: "xlsx", extensions: [".xlsx", ".xlsm", ".xltx"], load: async () => withDecryption((await import("./parsers/xlsx.js")).xlsxParser) },
  { name: "ods", extensions: [".ods", ".ots"], load: async () => (await import("./parsers/ods.js")).odsParser },
  { name: "html", extensions: [".html", ".htm", ".xhtml"], load: async () => (await import("./parsers/html.js")).htmlParser },
  { name: "markdown", extensions: [".md", ".markdown", ".mdown", ".mkd"], load: async () => (await import("./parsers/markdown.js")).markdownParser },
  { name: "text", extensions: [".txt", ".text", ".csv", ".tsv", ".log", ".rst", ".org", ".adoc"], load: async () => (await import("./parsers/text.js")).textParser },
  { name: "epub", extensions: [".epub"], load: async () => (await import("./parsers/epub.js")).epubParser },
  { name: "image", extensions: [".png", ".jpg", ".jpeg", ".tif", ".tiff", ".bmp"], load: async () => (await import("./parsers/image.js")).imageParser },
];

async function withDecryption(parser: Parser): Promise<Parser> {
  const { withOfficeDecryption } = await import("./office-crypto.js");
  return withOfficeDecryption(parser);
}

const BY_EXTENSION = new Map<string, ParserEntry>(PARSERS.flatMap((entry) => entry.extensions.map((extension) => [extension, entry] as const)));
const LOADED = new Map<string, Promise<Parser>>();

export function supportedExtensions(): ReadonlySet<string> {
  return new Set(BY_EXTENSION.keys());
}

/** The format name for a path ("pdf"), or undefined when no parser reads it. */
export function formatFor(filePath: string): string | undefined {
  return BY_EXTENSION.get(path.extname(filePath).toLowerCase())?.name;
}

export function loadParserFor(filePath: string): Promise<Parser> | undefined {
  const entry = BY_EXTENSION.get(path.extname(filePath).toLowerCase());
  if (!entry) return undefined;
  let loaded = LOADED.get(entry.name);
  if (!loaded) {
    loaded = entry.load();
    LOADED.set(entry.name, loaded);
  }
  return loaded;
}
