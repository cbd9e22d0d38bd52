import { parseHTML } from "linkedom";
import { ChunkpadError } from "../../core/errors.js";
import type { ParsedBlock, ParsedDocument, ParseInput, Parser } from "../../core/types.js";
import { attribute, childElements, collapseSpace, decodeXml, findAll, findFirst, parseXml, textContent, type XmlElement } from "../xml.js";
import { openZip, throwIfAborted, type ZipArchive } from "../zip.js";
import { htmlToBlocks } from "./html-blocks.js";
import { resolvePartPath } from "./ooxml.js";

/**
 * EPUB 2 and 3: META-INF/container.xml names the package (OPF); its spine gives the reading
 * order of the XHTML chapters, each read like an HTML page (headings, paragraphs, lists,
 * tables). The title is the OPF's dc:title. The EPUB 3 navigation document is skipped: it
 * only repeats the headings.
 */
export const epubParser: Parser = {
  name: "epub",
  extensions: [".epub"],
  async parse(input: ParseInput): Promise<ParsedDocument> {
    const zip = openZip(input.data, { limits: input.limits, signal: input.signal });
    const packagePath = findPackagePath(zip);
    const opf = parseXml(zip.read(packagePath) ?? new Uint8Array(), packagePath);
    const directory = packagePath.includes("/") ? packagePath.slice(0, packagePath.lastIndexOf("/")) : "";
    const chapters = spineChapters(opf, directory);
    refuseDrm(zip, chapters);

    const blocks: ParsedBlock[] = [];
    const warnings: string[] = [];
    for (const chapter of chapters) {
      throwIfAborted(input.signal);
      const bytes = zip.read(chapter);
      if (!bytes) {
        warnings.push(`The chapter ${chapter} listed in the book's spine is missing from the file; it was skipped.`);
        continue;
      }
      blocks.push(...xhtmlBlocks(decodeXml(bytes)));
    }

    if (blocks.length === 0) throw new ChunkpadError("PARSE_EMPTY", "The EPUB has no text in its chapters (it may hold only pictures); there is nothing to index.");
    const titleElement = findFirst(findFirst(opf, "metadata") ?? opf, "title");
    const title = (titleElement && collapseSpace(textContent(titleElement))) || blocks.find((block) => block.kind === "heading")?.text;
    return { ...(title ? { title } : {}), blocks, warnings };
  },
};

const XHTML_TYPES = new Set(["application/xhtml+xml", "text/html", "application/xml", "text/x-oeb1-document"]);
/** Obfuscated fonts are listed in encryption.xml too; only other algorithms mean DRM. */
const FONT_OBFUSCATION = ["http://www.idpf.org/2008/embedding", "http://ns.adobe.com/pdf/enc#RC"];
const VOID_ELEMENTS = new Set(["area", "base", "br", "col", "embed", "hr", "img", "input", "link", "meta", "source", "track", "wbr"]);

function findPackagePath(zip: ZipArchive): string {
  const container = zip.read("META-INF/container.xml");
  if (container) {
    for (const rootfile of findAll(parseXml(container, "META-INF/container.xml"), "rootfile")) {
      const path = attribute(rootfile, "full-path");
      const type = attribute(rootfile, "media-type") ?? "application/oebps-package+xml";
      if (path && type === "application/oebps-package+xml" && zip.has(path)) return resolvePartPath("", path);
    }
  }
  const fallback = zip.entries.find((entry) => entry.name.toLowerCase().endsWith(".opf"));
  if (fallback) return fallback.name;
  throw new ChunkpadError("PARSE_MALFORMED", "The file is a zip archive but not an EPUB book (it has no package document); check the file or rename it to its real type.");
}

/** Chapter paths in reading order. */
function spineChapters(opf: XmlElement, directory: string): string[] {
  const manifest = new Map<string, { path: string; type: string; properties: string }>();
  for (const item of findAll(findFirst(opf, "manifest") ?? opf, "item")) {
    const id = attribute(item, "id");
    const href = attribute(item, "href");
    if (!id || !href) continue;
    manifest.set(id, { path: resolvePartPath(directory, href), type: (attribute(item, "media-type") ?? "").toLowerCase(), properties: attribute(item, "properties") ?? "" });
  }
  const spine = findFirst(opf, "spine");
  const chapters: string[] = [];
  for (const reference of spine ? childElements(spine, "itemref") : []) {
    const item = manifest.get(attribute(reference, "idref") ?? "");
    if (!item || !XHTML_TYPES.has(item.type) || item.properties.split(/\s+/).includes("nav")) continue;
    if (!chapters.includes(item.path)) chapters.push(item.path);
  }
  return chapters;
}


function refuseDrm(zip: ZipArchive, chapters: string[]): void {
  const encryption = zip.read("META-INF/encryption.xml");
  if (!encryption) return;
  const encryptedChapters = findAll(parseXml(encryption, "META-INF/encryption.xml"), "EncryptedData").filter((data) => {
    const algorithm = attribute(findFirst(data, "EncryptionMethod") ?? data, "Algorithm") ?? "";
    const uri = attribute(findFirst(data, "CipherReference") ?? data, "URI") ?? "";
    return !FONT_OBFUSCATION.includes(algorithm) && chapters.includes(resolvePartPath("", uri));
  });
  if (encryptedChapters.length > 0) {
    throw new ChunkpadError("PARSE_ENCRYPTED", "The EPUB is DRM-protected (its chapters are encrypted), so its text cannot be read; use a DRM-free copy of the book.");
  }
}

/** An XHTML chapter's blocks, read by the HTML block walker. */
export function xhtmlBlocks(xhtml: string): ParsedBlock[] {
  const { document } = parseHTML(asHtml(xhtml));
  for (const element of Array.from(document.querySelectorAll("script, style, template, nav[epub\\:type='toc'], nav[role='doc-toc']"))) element.remove();
  return document.body ? htmlToBlocks(document.body) : [];
}

/**
 * XHTML read as HTML: an HTML parser forgives what strict XML would not (named entities such
 * as &nbsp;), but reads `<div/>` or `<title/>` as an open tag that swallows what follows, so
 * self-closed non-void elements are written out in full first.
 */
function asHtml(xhtml: string): string {
  const withoutProlog = xhtml.replace(/^\s*<\?xml[^>]*\?>/, "").replace(/<!DOCTYPE[^>[]*(\[[^\]]*\])?\s*>/i, "");
  const expanded = withoutProlog.replace(
    /<([A-Za-z][\w:.-]*)((?:\s+[^\s=/>]+(?:\s*=\s*(?:"[^"]*"|'[^']*'|[^\s>"']+))?)*)\s*\/>/g,
    (whole, tag: string, attributes: string) => (VOID_ELEMENTS.has(tag.toLowerCase()) ? whole : `<${tag}${attributes}></${tag}>`),
  );
  return /<body[\s>]/i.test(expanded) ? expanded : `<!DOCTYPE html><html><head></head><body>${expanded}</body></html>`;
}
