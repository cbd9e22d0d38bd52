import path from "node:path";
import { isChunkpadError } from "../../core/errors.js";
import type { ParsedBlock, ParsedDocument, ParseInput, Parser } from "../../core/types.js";
import { throwIfAborted } from "../zip.js";
import { splitParagraphs } from "./text.js";

/**
 * What .eml and .msg share once their own library has read them: the message becomes a
 * heading (the subject), a header paragraph (From, To, Cc, Date) and the body; each attachment
 * is parsed by the parser its name (or, for unnamed types, its content) calls for and follows
 * as a section headed "Attachment: name". See docs/decisions/014-mail-and-legacy-formats.md.
 */
export interface MailMessage {
  subject?: string;
  from?: string;
  to?: string;
  cc?: string;
  date?: string;
  /** The plain-text body; preferred over the HTML one when both exist. */
  text?: string;
  html?: string;
  attachments: MailAttachment[];
}

export interface MailAttachment {
  name: string;
  data: Uint8Array;
}

/** Finds the parser for an attachment by its name, then by its content; undefined when none reads it. */
export type ParserLookup = (name: string, data: Uint8Array) => Promise<Parser> | undefined;

/** Attachments read from one message; more are listed in a warning, not parsed. */
export const MAX_ATTACHMENTS = 50;
/** Mail inside mail inside mail: deeper attachments are skipped with a warning. */
export const MAX_ATTACHMENT_DEPTH = 3;
const ATTACHMENT_MARK = "#attachments/";
const MAX_HEADING_LEVEL = 6;

export async function mailDocument(message: MailMessage, input: ParseInput, parserFor: ParserLookup): Promise<ParsedDocument> {
  const blocks: ParsedBlock[] = [];
  const warnings: string[] = [];
  const subject = message.subject?.trim();
  if (subject) blocks.push({ kind: "heading", text: subject, level: 1 });
  const headerLines = [
    ["From", message.from],
    ["To", message.to],
    ["Cc", message.cc],
    ["Date", message.date],
  ]
    .filter((entry): entry is [string, string] => typeof entry[1] === "string" && entry[1].trim() !== "")
    .map(([label, value]) => `${label}: ${value.trim()}`);
  if (subject) headerLines.unshift(`Subject: ${subject}`);
  if (headerLines.length > 0) blocks.push({ kind: "paragraph", text: headerLines.join("\n") });

  if (message.text?.trim()) blocks.push(...splitParagraphs(message.text));
  else if (message.html?.trim()) {
    const body = await parseAttachment({ name: "body.html", data: new TextEncoder().encode(message.html) }, input, parserFor);
    if ("document" in body) blocks.push(...body.document.blocks);
    else warnings.push(`the message body could not be read: ${body.reason}`);
  }

  const depth = input.path.split(ATTACHMENT_MARK).length - 1;
  let budget = input.limits.maxDecompressedBytes;
  message.attachments.forEach((attachment, index) => {
    if (index === MAX_ATTACHMENTS) warnings.push(`${message.attachments.length - MAX_ATTACHMENTS} more attachments were not read (only the first ${MAX_ATTACHMENTS} are)`);
  });
  for (const attachment of message.attachments.slice(0, MAX_ATTACHMENTS)) {
    throwIfAborted(input.signal);
    if (depth >= MAX_ATTACHMENT_DEPTH) {
      warnings.push(`attachment ${attachment.name} not read: attachments nested more than ${MAX_ATTACHMENT_DEPTH} deep are skipped`);
      continue;
    }
    if (attachment.data.byteLength > budget) {
      warnings.push(`attachment ${attachment.name} not read: the message's attachments pass the size limit`);
      continue;
    }
    budget -= attachment.data.byteLength;
    const result = await parseAttachment(attachment, input, parserFor);
    if (!("document" in result)) {
      warnings.push(`attachment ${attachment.name} not read: ${result.reason}`);
      continue;
    }
    blocks.push({ kind: "heading", text: `Attachment: ${attachment.name}`, level: 1 });
    for (const block of result.document.blocks) {
      blocks.push(block.kind === "heading" ? { ...block, level: Math.min((block.level ?? 1) + 1, MAX_HEADING_LEVEL) } : block);
    }
    warnings.push(...result.document.warnings.map((warning) => `attachment ${attachment.name}: ${warning}`));
  }
  return { ...(subject ? { title: subject } : {}), blocks, warnings };
}

async function parseAttachment(attachment: MailAttachment, input: ParseInput, parserFor: ParserLookup): Promise<{ document: ParsedDocument } | { reason: string }> {
  if (attachment.data.byteLength === 0) return { reason: "it is empty" };
  const parserPromise = parserFor(attachment.name, attachment.data);
  if (!parserPromise) return { reason: `Chunkpad does not read ${path.extname(attachment.name) || "this kind of"} files` };
  try {
    const parser = await parserPromise;
    const document = await parser.parse({ ...input, path: `${input.path}${ATTACHMENT_MARK}${attachment.name}`, data: attachment.data });
    if (document.blocks.every((block) => block.text.trim() === "")) return { reason: "no text found in it" };
    return { document };
  } catch (error) {
    if (input.signal?.aborted) throw error;
    return { reason: isChunkpadError(error) ? error.message : error instanceof Error ? error.message : String(error) };
  }
}

/** A safe display name for an attachment: its base name, or a numbered stand-in. */
export function attachmentName(name: string | null | undefined, index: number): string {
  const base = (name ?? "").split(/[\\/]/).pop()?.trim() ?? "";
  return base === "" ? `attachment-${index + 1}` : base;
}
