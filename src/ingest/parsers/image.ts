import { ChunkpadError } from "../../core/errors.js";
import type { ParsedDocument, ParseInput, Parser } from "../../core/types.js";
import { createOcrEngine, ocrBlocks, OCR_OFF_HINT } from "../ocr.js";

/**
 * Images (a phone photo of a letter, a scanner's PNG or TIFF) are read with OCR. With OCR off,
 * or when OCR finds nothing legible (a holiday photo), the image is reported, not skipped silently.
 */
export const imageParser: Parser = {
  name: "image",
  extensions: [".png", ".jpg", ".jpeg", ".tif", ".tiff", ".bmp"],
  parse: parseImage,
};

async function parseImage(input: ParseInput): Promise<ParsedDocument> {
  if (input.limits.ocr !== "auto") {
    throw new ChunkpadError("PARSE_NO_TEXT_LAYER", `an image has no text layer; ${OCR_OFF_HINT} to read its text`);
  }
  const engine = await createOcrEngine();
  try {
    const page = await engine.recognize(input.data, input.signal);
    if (page.paragraphs.length === 0) {
      throw new ChunkpadError("PARSE_NO_TEXT_LAYER", "OCR found no legible text in the image (a photo or a drawing?)");
    }
    const extraPages = tiffPageCount(input.data) - 1;
    const warnings = extraPages > 0 ? [`only the first page of this multi-page TIFF was OCRed; ${extraPages} more ${extraPages === 1 ? "page was" : "pages were"} not read`] : [];
    return { blocks: ocrBlocks(page, undefined), warnings, ocrPages: [1] };
  } finally {
    await engine.close();
  }
}

/** Pages in a TIFF, by walking its chain of image directories; 1 for anything else. */
export function tiffPageCount(data: Uint8Array): number {
  const view = new DataView(data.buffer, data.byteOffset, data.byteLength);
  if (data.byteLength < 8) return 1;
  const order = view.getUint16(0);
  if (order !== 0x4949 && order !== 0x4d4d) return 1;
  const little = order === 0x4949;
  if (view.getUint16(2, little) !== 42) return 1;
  let offset = view.getUint32(4, little);
  const seen = new Set<number>();
  while (offset !== 0 && offset + 2 <= data.byteLength && !seen.has(offset)) {
    seen.add(offset);
    const entries = view.getUint16(offset, little);
    const next = offset + 2 + entries * 12;
    if (next + 4 > data.byteLength) break;
    offset = view.getUint32(next, little);
  }
  return Math.max(1, seen.size);
}
