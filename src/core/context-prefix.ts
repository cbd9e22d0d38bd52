/**
 * The context a chunk carries into the embedding, so "the deadline" in a chunk of "Grant
 * rules" lands near questions about grant deadlines. The format is part of the embedding
 * fingerprint: change it and bump CONTEXT_PREFIX_VERSION, which marks old vectors stale.
 */
export const CONTEXT_PREFIX_VERSION = 1;

export interface ChunkContext {
  /** The document's title. */
  title: string;
  /** The nearest heading above the chunk, when there is one. */
  section?: string | null;
}

/** `Document: {title}\nSection: {section}\n\n{content}`; no Section line without a section. */
export function withContextPrefix(context: ChunkContext, content: string): string {
  const title = oneLine(context.title);
  const section = oneLine(context.section ?? "");
  const sectionLine = section === "" ? "" : `Section: ${section}\n`;
  return `Document: ${title}\n${sectionLine}\n${content}`;
}

/** Titles and headings are labels: a newline inside one would read as another field. */
function oneLine(text: string): string {
  return text.replace(/\s+/g, " ").trim();
}
