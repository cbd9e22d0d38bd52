import { ChunkpadError } from "../../core/errors.js";
import type { ParsedDocument, ParseInput, Parser } from "../../core/types.js";
import { createRtfReader, type RtfContent } from "../rtf/interpreter.js";

/** Bytes read between checks of the abort signal (and yields to the event loop). */
const STEP_BYTES = 1024 * 1024;

const BYTE_ORDER_MARK = /^(?:\u00EF\u00BB\u00BF)?\s*/;

function head(data: Uint8Array): string {
  return Buffer.from(data.buffer, data.byteOffset, Math.min(data.byteLength, 64)).toString("latin1").replace(BYTE_ORDER_MARK, "");
}

/** True when the bytes start like an RTF document ("{\rtf", after an optional BOM or blanks). */
export function looksLikeRtf(data: Uint8Array): boolean {
  return head(data).startsWith("{\\rtf");
}

/** An RTF fragment without the "{\rtf1" header, as some converters write: "{\pard ...". */
function looksLikeRtfFragment(data: Uint8Array): boolean {
  return /^\{\\[a-z]/.test(head(data));
}

async function readRtfCancellable(data: Uint8Array, signal: AbortSignal | undefined): Promise<RtfContent> {
  const reader = createRtfReader(data);
  while (!reader.step(STEP_BYTES)) {
    if (signal?.aborted) throw new ChunkpadError("PARSE_TIMEOUT", "parsing this RTF file took longer than the per-file time limit; raise the limit or split the file");
    await new Promise((resolve) => setImmediate(resolve));
  }
  return reader.result();
}

/** Rich Text Format, read by Chunkpad's own interpreter (headings, lists, tables, footnotes). */
export const rtfParser: Parser = {
  name: "rtf",
  extensions: [".rtf"],
  async parse(input: ParseInput): Promise<ParsedDocument> {
    const fragment = !looksLikeRtf(input.data) && looksLikeRtfFragment(input.data);
    if (!looksLikeRtf(input.data) && !fragment) {
      throw new ChunkpadError("PARSE_MALFORMED", `not an RTF document (it does not start with "{\\rtf"); check that the file is what its extension says`);
    }
    const content = await readRtfCancellable(input.data, input.signal);
    if (content.blocks.length === 0) {
      throw new ChunkpadError("PARSE_EMPTY", "The RTF document has no text; there is nothing to index.");
    }
    const firstHeading = content.blocks.find((block) => block.kind === "heading")?.text;
    const warnings = fragment ? ["the file has no {\\rtf1 header; it was read as an RTF fragment", ...content.warnings] : content.warnings;
    return { title: content.title ?? firstHeading, blocks: content.blocks, warnings };
  },
};
