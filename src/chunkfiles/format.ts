import type { ChunkDraft } from "../core/types.js";
import { encodeText, metaAttributes, metaFromAttributes, parseAttributeComment, renderAttributeComment } from "./meta-comment.js";

/**
 * The chunk file format:
 *
 *   <!-- chunkpad source="report.pdf" -->      optional header line
 *
 *   ## Chunk 1
 *   <!-- page=3 chars=1200-2300 section="Intro" -->   optional metadata line
 *   content...
 *
 *   ## Chunk 2
 *   ...
 *
 * Content rules (what a round trip preserves): line endings are "\n", and content starts and
 * ends with a line that is not blank (normalizeChunkContent). Everything else is kept exactly,
 * including trailing spaces and blank lines inside. A content line that starts with
 * "## Chunk" (after any backslashes) gets one more backslash on write and loses one on read.
 */

export interface ChunkFileHeader {
  /** The source path relative to the folder root, for people reading the file. */
  source: string;
}

export interface ParsedChunkFile {
  /** From the header line, when the file has one. */
  source?: string;
  chunks: ChunkDraft[];
  /** Things a hand edit did that were repaired on read, in words for the user. */
  warnings: string[];
}

/** A line that starts a chunk: "## Chunk", "## Chunk 3", "## chunk 3 (split)". */
const CHUNK_HEADING = /^##[ \t]+chunk(?:[ \t]+(\d+)(?:[ \t].*)?)?[ \t]*$/i;
/** Lines that could be read as a heading once backslashes are removed: escaped on write. */
const NEEDS_ESCAPE = /^\\*##[ \t]+chunk/i;
const ESCAPED = /^\\+##[ \t]+chunk/i;
const HEADER_LINE = /^<!--\s*chunkpad\s/;

/** Content as a chunk file stores it: "\n" line endings, no blank lines at either end. */
export function normalizeChunkContent(content: string): string {
  const lines = content.replace(/\r\n?/g, "\n").split("\n");
  let first = 0;
  let last = lines.length;
  while (first < last && (lines[first] ?? "").trim() === "") first++;
  while (last > first && (lines[last - 1] ?? "").trim() === "") last--;
  return lines.slice(first, last).join("\n");
}

export function renderChunkFile(chunks: readonly ChunkDraft[], header?: ChunkFileHeader): string {
  const out: string[] = [];
  if (header) out.push(`<!-- chunkpad source=${encodeText(header.source)} -->`, "");
  chunks.forEach((chunk, index) => {
    out.push(`## Chunk ${index + 1}`);
    const lines = normalizeChunkContent(chunk.content)
      .split("\n")
      .map((line) => (NEEDS_ESCAPE.test(line) ? `\\${line}` : line));
    const attributes = metaAttributes(chunk.meta);
    // With no metadata, an empty comment still goes first when the content itself starts
    // with a comment, so the content's comment is not taken for metadata.
    if (attributes.length > 0 || lines[0]?.startsWith("<!--")) out.push(renderAttributeComment(attributes));
    out.push(...lines, "");
  });
  return out.join("\n");
}

interface Section {
  number: number | undefined;
  lines: string[];
  meta: ChunkDraft["meta"];
}

/** Reads a chunk file, repairing what hand edits commonly do, and says what it repaired. */
export function readChunkFileText(markdown: string): ParsedChunkFile {
  const lines = markdown.replace(/^\uFEFF/, "").replace(/\r\n?/g, "\n").split("\n");
  const warnings: string[] = [];
  let source: string | undefined;
  let index = 0;
  if (HEADER_LINE.test(lines[0] ?? "")) {
    source = parseAttributeComment(lines[0] ?? "", "chunkpad")?.get("source");
    index = 1;
  }

  const preamble: string[] = [];
  const sections: Section[] = [];
  for (; index < lines.length; index++) {
    const line = lines[index] ?? "";
    const heading = CHUNK_HEADING.exec(line);
    if (heading) {
      const section: Section = { number: heading[1] === undefined ? undefined : Number(heading[1]), lines: [], meta: {} };
      const next = lines[index + 1] ?? "";
      const attributes = parseAttributeComment(next);
      if (attributes) {
        section.meta = metaFromAttributes(attributes);
        index++;
      } else if (next.startsWith("<!--") && (!next.includes("-->") || /\w=/.test(next))) {
        // Chunkpad never writes metadata it cannot read back: a hand edit broke it. (A closed
        // comment without key=value pairs is the user's own note, and simply content.)
        const problem = next.includes("-->") ? "a value is malformed" : "it is not closed with -->";
        warnings.push(`The metadata comment under "${line.trim()}" could not be read (${problem}); it was kept as text of the chunk.`);
      }
      sections.push(section);
      continue;
    }
    const current = sections.at(-1);
    (current ? current.lines : preamble).push(ESCAPED.test(line) ? line.slice(1) : line);
  }

  const chunks: ChunkDraft[] = [];
  const leading = normalizeChunkContent(preamble.join("\n"));
  let dropped = 0;
  sections.forEach((section, position) => {
    let content = normalizeChunkContent(section.lines.join("\n"));
    if (position === 0 && leading.length > 0) content = content.length > 0 ? `${leading}\n\n${content}` : leading;
    if (content.length === 0) dropped++;
    else chunks.push({ content, meta: section.meta });
  });
  if (leading.length > 0) {
    if (sections.length === 0) chunks.push({ content: leading, meta: {} });
    warnings.push(
      sections.length === 0
        ? 'The file has no "## Chunk" headings; its text was read as one chunk.'
        : 'Text before the first "## Chunk" heading was added to the first chunk.',
    );
  }
  if (dropped > 0) warnings.push(`${dropped} empty chunk section${dropped === 1 ? " was" : "s were"} left out.`);
  if (sections.some((section, position) => section.number !== position + 1)) {
    warnings.push("Chunk numbers were missing, repeated or out of order; chunks are numbered by their position in the file.");
  }
  return source === undefined ? { chunks, warnings } : { source, chunks, warnings };
}

/** The chunks of a chunk file, numbered by position. Inverse of renderChunkFile. */
export function parseChunkFile(markdown: string): ChunkDraft[] {
  return readChunkFileText(markdown).chunks;
}
