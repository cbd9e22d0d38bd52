import type { ChunkMeta } from "../core/types.js";

/**
 * The one-line metadata comment under a "## Chunk N" heading:
 *   <!-- pages=3-4 slide=2 sheet="Q1" chars=1200-2300 section="Intro" -->
 * Text values are JSON strings with "<", ">" and the Unicode line separators escaped, so a
 * value can never close the comment or break the line.
 */

const ATTRIBUTE = /([A-Za-z][\w-]*)=("(?:[^"\\]|\\.)*"|[^\s"]+)/g;
const ATTRIBUTES_ONLY = /^\s*(?:[A-Za-z][\w-]*=(?:"(?:[^"\\]|\\.)*"|[^\s"]+)\s*)*$/;
const COMMENT_LINE = /^<!--(.*)-->[ \t]*$/;

export function encodeText(value: string): string {
  return JSON.stringify(value).replace(/[<>\u2028\u2029]/g, (char) => `\\u${char.charCodeAt(0).toString(16).padStart(4, "0")}`);
}

function decodeText(raw: string): string | undefined {
  if (!raw.startsWith('"')) return raw;
  try {
    const value: unknown = JSON.parse(raw);
    return typeof value === "string" ? value : undefined;
  } catch {
    return undefined;
  }
}

/** The attributes of a comment line made only of key=value pairs, or undefined for any other line. */
export function parseAttributeComment(line: string, leadingWord?: string): Map<string, string> | undefined {
  let body = COMMENT_LINE.exec(line)?.[1];
  if (body !== undefined && leadingWord !== undefined) {
    const lead = new RegExp(`^\\s*${leadingWord}(?=\\s)`).exec(body);
    body = lead ? body.slice(lead[0].length) : undefined;
  }
  if (body === undefined || !ATTRIBUTES_ONLY.test(body)) return undefined;
  const attributes = new Map<string, string>();
  for (const match of body.matchAll(ATTRIBUTE)) {
    const value = decodeText(match[2] ?? "");
    if (match[1] !== undefined && value !== undefined) attributes.set(match[1], value);
  }
  return attributes;
}

export function renderAttributeComment(attributes: ReadonlyArray<readonly [string, string]>): string {
  const body = attributes.map(([key, value]) => `${key}=${value}`).join(" ");
  return body.length > 0 ? `<!-- ${body} -->` : "<!-- -->";
}

function integer(value: string | undefined): number | undefined {
  return value !== undefined && /^\d{1,15}$/.test(value) ? Number(value) : undefined;
}

function range(value: string | undefined): [number, number] | undefined {
  const match = value === undefined ? null : /^(\d{1,15})-(\d{1,15})$/.exec(value);
  return match ? [Number(match[1]), Number(match[2])] : undefined;
}

/** Attribute pairs for a chunk's metadata, in a fixed order; empty when it has none. */
export function metaAttributes(meta: ChunkMeta): Array<[string, string]> {
  const attributes: Array<[string, string]> = [];
  if (meta.page !== undefined && meta.pageEnd !== undefined) attributes.push(["pages", `${meta.page}-${meta.pageEnd}`]);
  else if (meta.page !== undefined) attributes.push(["page", String(meta.page)]);
  else if (meta.pageEnd !== undefined) attributes.push(["pageEnd", String(meta.pageEnd)]);
  if (meta.slide !== undefined) attributes.push(["slide", String(meta.slide)]);
  if (meta.sheet !== undefined) attributes.push(["sheet", encodeText(meta.sheet)]);
  if (meta.charStart !== undefined && meta.charEnd !== undefined) attributes.push(["chars", `${meta.charStart}-${meta.charEnd}`]);
  else if (meta.charStart !== undefined) attributes.push(["charStart", String(meta.charStart)]);
  else if (meta.charEnd !== undefined) attributes.push(["charEnd", String(meta.charEnd)]);
  if (meta.section !== undefined) attributes.push(["section", encodeText(meta.section)]);
  return attributes;
}

/** Metadata from a comment's attributes. Unknown keys and malformed values are ignored. */
export function metaFromAttributes(attributes: ReadonlyMap<string, string>): ChunkMeta {
  const meta: ChunkMeta = {};
  const pages = range(attributes.get("pages"));
  const page = pages?.[0] ?? integer(attributes.get("page"));
  const pageEnd = pages?.[1] ?? integer(attributes.get("pageEnd"));
  if (page !== undefined) meta.page = page;
  if (pageEnd !== undefined) meta.pageEnd = pageEnd;
  const slide = integer(attributes.get("slide"));
  if (slide !== undefined) meta.slide = slide;
  const sheet = attributes.get("sheet");
  if (sheet !== undefined) meta.sheet = sheet;
  const chars = range(attributes.get("chars"));
  const charStart = chars?.[0] ?? integer(attributes.get("charStart"));
  const charEnd = chars?.[1] ?? integer(attributes.get("charEnd"));
  if (charStart !== undefined) meta.charStart = charStart;
  if (charEnd !== undefined) meta.charEnd = charEnd;
  const section = attributes.get("section");
  if (section !== undefined) meta.section = section;
  return meta;
}
