import path from "node:path";
import type { Parser } from "../core/types.js";
import { looksLikeText } from "./sniff.js";

export { isTextFile } from "./sniff.js";

/**
 * Every format Chunkpad reads: one line each. Parsers load lazily so commands that parse
 * nothing (folders, search) never pay for pdf.js or mammoth.
 */
interface ParserEntry {
  name: string;
  extensions: readonly string[];
  load: () => Promise<Parser>;
}

const TEXT_EXTENSIONS = [".txt", ".text", ".csv", ".tsv", ".log", ".rst", ".org", ".adoc", ".json", ".xml"];

const PARSERS: readonly ParserEntry[] = [
  { name: "pdf", extensions: [".pdf"], load: async () => (await import("./parsers/pdf.js")).pdfParser },
  { name: "docx", extensions: [".docx", ".docm", ".dotx"], load: async () => withDecryption((await import("./parsers/docx.js")).docxParser) },
  // A .doc is often really RTF or a renamed .docx: the DOC parser sniffs and hands those on.
  { name: "doc", extensions: [".doc", ".dot"], load: async () => (await import("./parsers/doc.js")).createDocParser({ docxParser: await withDecryption((await import("./parsers/docx.js")).docxParser) }) },
  { name: "odt", extensions: [".odt", ".ott", ".fodt"], load: async () => (await import("./parsers/odt.js")).odtParser },
  { name: "rtf", extensions: [".rtf"], load: async () => (await import("./parsers/rtf.js")).rtfParser },
  { name: "pptx", extensions: [".pptx", ".pptm", ".ppsx", ".potx"], load: async () => withDecryption((await import("./parsers/pptx.js")).pptxParser) },
  { name: "ppt", extensions: [".ppt", ".pps", ".pot"], load: async () => (await import("./parsers/ppt.js")).pptParser },
  { name: "odp", extensions: [".odp", ".otp", ".fodp"], load: async () => (await import("./parsers/odp.js")).odpParser },
  { name: "xlsx", extensions: [".xlsx", ".xlsm", ".xltx"], load: async () => withDecryption((await import("./parsers/xlsx.js")).xlsxParser) },
  { name: "xls", extensions: [".xls", ".xlt"], load: async () => (await import("./parsers/xls.js")).xlsParser },
  { name: "ods", extensions: [".ods", ".ots", ".fods"], load: async () => (await import("./parsers/ods.js")).odsParser },
  { name: "html", extensions: [".html", ".htm", ".xhtml"], load: async () => (await import("./parsers/html.js")).htmlParser },
  { name: "markdown", extensions: [".md", ".markdown", ".mdown", ".mkd"], load: async () => (await import("./parsers/markdown.js")).markdownParser },
  { name: "text", extensions: TEXT_EXTENSIONS, load: async () => (await import("./parsers/text.js")).textParser },
  { name: "epub", extensions: [".epub"], load: async () => (await import("./parsers/epub.js")).epubParser },
  { name: "image", extensions: [".png", ".jpg", ".jpeg", ".tif", ".tiff", ".bmp"], load: async () => (await import("./parsers/image.js")).imageParser },
  // Mail parsers hand each attachment back to this registry, as a document of its own.
  { name: "eml", extensions: [".eml"], load: async () => (await import("./parsers/eml.js")).createEmlParser(loadParserFor) },
  { name: "msg", extensions: [".msg"], load: async () => (await import("./parsers/msg.js")).createMsgParser(loadParserFor) },
];

/** The text parser's extensions; files with any other unclaimed extension are read as text when their content is text. */
const TEXT_ENTRY_NAME = "text";

async function withDecryption(parser: Parser): Promise<Parser> {
  const { withOfficeDecryption } = await import("./office-crypto.js");
  return withOfficeDecryption(parser);
}

const BY_EXTENSION = new Map<string, ParserEntry>(PARSERS.flatMap((entry) => entry.extensions.map((extension) => [extension, entry] as const)));
const BY_NAME = new Map<string, ParserEntry>(PARSERS.map((entry) => [entry.name, entry]));
const LOADED = new Map<string, Promise<Parser>>();

export function supportedExtensions(): ReadonlySet<string> {
  return new Set(BY_EXTENSION.keys());
}

/**
 * Formats whose files can take seconds each (pages laid out one by one, scans read by OCR): a
 * run starts them first and gives them a second parse worker at once (decision 086). In the
 * shared corpus PDFs are 139 of 605 files and 88 % of the CPU.
 */
const SLOW_FORMATS: ReadonlySet<string> = new Set(["pdf", "image"]);

export function mayTakeSeconds(filePath: string): boolean {
  return SLOW_FORMATS.has(formatFor(filePath));
}

/**
 * The format name for a path ("pdf"). A file with an extension no parser claims is only ever
 * processed when its content sniffed as text (see `isTextFile`), so it is "text".
 */
export function formatFor(filePath: string): string {
  return BY_EXTENSION.get(path.extname(filePath).toLowerCase())?.name ?? TEXT_ENTRY_NAME;
}

/**
 * The parser for a file: by its extension, else, given its bytes, the text parser when they
 * are text. Undefined when nothing reads it.
 */
export function loadParserFor(filePath: string, data?: Uint8Array): Promise<Parser> | undefined {
  const entry = BY_EXTENSION.get(path.extname(filePath).toLowerCase()) ?? (data && looksLikeText(data) ? BY_NAME.get(TEXT_ENTRY_NAME) : undefined);
  if (!entry) return undefined;
  let loaded = LOADED.get(entry.name);
  if (!loaded) {
    loaded = entry.load();
    LOADED.set(entry.name, loaded);
  }
  return loaded;
}
