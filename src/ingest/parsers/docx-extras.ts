import type { ParsedBlock } from "../../core/types.js";
import { attribute, collapseSpace, findAll, findFirst, parseXml, type XmlElement } from "../xml.js";
import type { ZipArchive } from "../zip.js";
import { readRelationships } from "./ooxml.js";

/**
 * The text of a Word document that mammoth leaves out: headers and footers, comments,
 * SmartArt diagrams and charts (read from their own parts), plus two rewrites of
 * document.xml before mammoth sees it: ruby (phonetic guide) text and altChunk placeholders.
 */

/** Marks an altChunk's place in the text mammoth produces (private-use characters). */
const ALT_CHUNK_MARK = "\ue001altchunk:";
const ALT_CHUNK_END = "\ue001";

/** The text of each w:p below root: w:t runs, tabs as spaces; field codes and deleted text left out. */
function paragraphTexts(root: XmlElement): string[] {
  const texts: string[] = [];
  for (const paragraph of findAll(root, "p")) {
    let text = "";
    const visit = (node: XmlElement): void => {
      for (const child of node.children) {
        if (typeof child === "string") continue;
        if (child.local === "t") text += child.children.filter((part) => typeof part === "string").join("");
        else if (child.local === "tab") text += " ";
        else if (child.local !== "instrText" && child.local !== "delText") visit(child);
      }
    };
    visit(paragraph);
    const collapsed = collapseSpace(text);
    if (collapsed) texts.push(collapsed);
  }
  return texts;
}

function partsMatching(zip: ZipArchive, pattern: RegExp): string[] {
  const naturalOrder = (a: string, b: string): number => a.localeCompare(b, "en", { numeric: true });
  return zip.entries.map((entry) => entry.name).filter((name) => pattern.test(name)).sort(naturalOrder);
}

function readPart(zip: ZipArchive, name: string): XmlElement | undefined {
  const bytes = zip.read(name);
  return bytes ? parseXml(bytes, name) : undefined;
}

/** "7", "v", "Page 3 of 9": a page number, not text. */
const PAGE_NUMBER = /^(?:page\s*)?[\divxlcdm]+(?:\s*(?:of|\/)\s*[\divxlcdm]+)?$/i;

/** Distinct header and footer lines, labelled; a bare page number is not text worth keeping. */
function headersAndFooters(zip: ZipArchive): ParsedBlock[] {
  const blocks: ParsedBlock[] = [];
  for (const [label, pattern] of [["Header", /^word\/header\d*\.xml$/i], ["Footer", /^word\/footer\d*\.xml$/i]] as const) {
    const seen = new Set<string>();
    for (const name of partsMatching(zip, pattern)) {
      const root = readPart(zip, name);
      if (!root) continue;
      for (const text of paragraphTexts(root)) {
        if (seen.has(text) || PAGE_NUMBER.test(text) || !/\p{L}/u.test(text)) continue;
        seen.add(text);
        blocks.push({ kind: "paragraph", text: `${label}: ${text}` });
      }
    }
  }
  return blocks;
}

function comments(zip: ZipArchive): ParsedBlock[] {
  const root = readPart(zip, "word/comments.xml");
  if (!root) return [];
  return findAll(root, "comment").flatMap((comment) => {
    const text = paragraphTexts(comment).join(" ");
    if (!text) return [];
    const author = attribute(comment, "author")?.trim();
    return [{ kind: "paragraph" as const, text: `Comment${author ? ` (${author})` : ""}: ${text}` }];
  });
}

/** SmartArt: the text of each diagram's points, as a list. */
function diagrams(zip: ZipArchive): ParsedBlock[] {
  return partsMatching(zip, /^word\/diagrams\/data\d*\.xml$/i).flatMap((name) => {
    const root = readPart(zip, name);
    const lines = root ? paragraphTexts(root) : [];
    return lines.length > 0 ? [{ kind: "list" as const, text: ["Diagram:", ...lines.map((line) => `- ${line}`)].join("\n") }] : [];
  });
}

/** Charts: title, series names and category labels. */
function charts(zip: ZipArchive): ParsedBlock[] {
  return partsMatching(zip, /^word\/charts\/chart\d*\.xml$/i).flatMap((name) => {
    const root = readPart(zip, name);
    if (!root) return [];
    const titleElement = findFirst(root, "title");
    const title = titleElement ? paragraphTexts(titleElement).join(" ") : "";
    const series = findAll(root, "ser");
    const values = (element: XmlElement | undefined): string[] =>
      element ? findAll(element, "v").map((value) => collapseSpace(value.children.filter((part) => typeof part === "string").join(""))).filter(Boolean) : [];
    const names = series.flatMap((one) => {
      const tx = findFirst(one, "tx");
      return tx ? [...values(tx), ...paragraphTexts(tx)].slice(0, 1) : [];
    });
    const categories = [...new Set(series.flatMap((one) => values(findFirst(one, "cat"))))];
    const parts = [title && `Chart: ${title}`, names.length > 0 && `Series: ${names.join(", ")}`, categories.length > 0 && `Categories: ${categories.join(", ")}`].filter(Boolean);
    if (parts.length === 0) return [];
    if (!title) parts.unshift("Chart");
    return [{ kind: "paragraph" as const, text: parts.join(". ") }];
  });
}

/** Blocks for the parts mammoth does not read, in the order they are appended after the body. */
export function docxExtraBlocks(zip: ZipArchive): ParsedBlock[] {
  return [...diagrams(zip), ...charts(zip), ...comments(zip), ...headersAndFooters(zip)];
}

/**
 * Rewrites document.xml for mammoth: a ruby becomes its base text followed by the phonetic
 * guide in parentheses; an altChunk becomes a paragraph holding a mark that names its part.
 */
export function rewriteMainPart(xml: string): string {
  return xml
    .replace(/<w:ruby\b[^>]*>([\s\S]*?)<\/w:ruby>/g, (_, inner: string) => {
      const guide = /<w:rt\b[^>]*>([\s\S]*?)<\/w:rt>/.exec(inner)?.[1] ?? "";
      const base = /<w:rubyBase\b[^>]*>([\s\S]*?)<\/w:rubyBase>/.exec(inner)?.[1] ?? "";
      return guide ? `${base}<w:r><w:t>(</w:t></w:r>${guide}<w:r><w:t>)</w:t></w:r>` : base;
    })
    .replace(/<w:altChunk\b[^>]*?\br:id="([^"]+)"[^>]*?(?:\/>|>[\s\S]*?<\/w:altChunk>)/g, (_, id: string) => {
      return `<w:p><w:r><w:t>${ALT_CHUNK_MARK}${id}${ALT_CHUNK_END}</w:t></w:r></w:p>`;
    });
}

/** The relationship id an altChunk mark stands for, when the block is one. */
export function altChunkId(block: ParsedBlock): string | undefined {
  const text = block.text.trim();
  if (!text.startsWith(ALT_CHUNK_MARK) || !text.endsWith(ALT_CHUNK_END)) return undefined;
  return text.slice(ALT_CHUNK_MARK.length, -ALT_CHUNK_END.length);
}

/** The HTML of an altChunk part (HTML itself, or the HTML inside an MHT archive). */
export function altChunkHtml(zip: ZipArchive, mainPart: string, id: string): Uint8Array | undefined {
  const target = readRelationships(zip, mainPart).get(id);
  if (!target || target.external) return undefined;
  const bytes = zip.read(target.target);
  if (!bytes) return undefined;
  const head = Buffer.from(bytes.subarray(0, 2048)).toString("latin1");
  return /^\s*(?:MIME-Version|Content-Type):/i.test(head) ? htmlFromMht(bytes) : bytes;
}

/** The first text/html part of a MIME multipart (MHT) archive, decoded to bytes. */
export function htmlFromMht(bytes: Uint8Array): Uint8Array | undefined {
  const source = Buffer.from(bytes).toString("latin1");
  const boundary = /boundary\s*=\s*"?([^";\r\n]+)"?/i.exec(source)?.[1];
  const parts = boundary ? source.split(`--${boundary}`) : [source];
  for (const part of parts) {
    const split = /\r?\n\r?\n/.exec(part);
    if (!split) continue;
    const headers = part.slice(0, split.index);
    if (!/Content-Type:\s*text\/html/i.test(headers)) continue;
    const body = part.slice(split.index + split[0].length);
    const encoding = /Content-Transfer-Encoding:\s*([\w-]+)/i.exec(headers)?.[1]?.toLowerCase();
    const charset = /charset\s*=\s*"?([\w:.-]+)/i.exec(headers)?.[1];
    let decoded: Buffer;
    if (encoding === "base64") decoded = Buffer.from(body.replace(/\s+/g, ""), "base64");
    else if (encoding === "quoted-printable") {
      decoded = Buffer.from(body.replace(/=\r?\n/g, "").replace(/=([0-9A-Fa-f]{2})/g, (_, hex: string) => String.fromCharCode(Number.parseInt(hex, 16))), "latin1");
    } else decoded = Buffer.from(body, "latin1");
    const declared = charset && !/<meta[^>]+charset/i.test(decoded.subarray(0, 4096).toString("latin1")) ? Buffer.from(`<meta charset="${charset}">`) : Buffer.alloc(0);
    return new Uint8Array(Buffer.concat([declared, decoded]));
  }
  return undefined;
}
