import { deflateSync } from "node:zlib";
import { createCanvas } from "@napi-rs/canvas";

/**
 * Scans made on the spot: text drawn onto a white page as a scanner would see it (about
 * 200 dpi), as a PNG or as image-only pages of a PDF with no text layer.
 */

const PAGE_WIDTH_PIXELS = 1_100;
const PAGE_HEIGHT_PIXELS = 1_400;
const FONT_PIXELS = 36;

interface GrayImage {
  width: number;
  height: number;
  /** One byte per pixel, 0 black … 255 white, rows top to bottom. */
  pixels: Uint8Array;
}

function drawPage(lines: readonly string[], fontPixels = FONT_PIXELS) {
  const canvas = createCanvas(PAGE_WIDTH_PIXELS, PAGE_HEIGHT_PIXELS);
  const context = canvas.getContext("2d");
  context.fillStyle = "#ffffff";
  context.fillRect(0, 0, canvas.width, canvas.height);
  context.fillStyle = "#000000";
  context.font = `${fontPixels}px "DejaVu Sans"`;
  lines.forEach((line, index) => context.fillText(line, 80, 140 + index * fontPixels * 1.6));
  return canvas;
}

/** A PNG of these lines of text. */
export function textImagePng(lines: readonly string[]): Buffer {
  return drawPage(lines).toBuffer("image/png");
}

function textImageGray(lines: readonly string[], fontPixels?: number): GrayImage {
  const canvas = drawPage(lines, fontPixels);
  const rgba = canvas.getContext("2d").getImageData(0, 0, canvas.width, canvas.height).data;
  const pixels = new Uint8Array(canvas.width * canvas.height);
  for (let index = 0; index < pixels.length; index++) pixels[index] = rgba[index * 4] ?? 255;
  return { width: canvas.width, height: canvas.height, pixels };
}

/**
 * A page of a generated PDF: real text (a text layer) or a scan (an image, no text layer). A
 * scan's text is 36 pixels high (20 pt on the page) unless `fontPixels` says otherwise.
 */
export type PdfPageSpec = { text: readonly string[] } | { scan: readonly string[]; fontPixels?: number };

/** A valid PDF, Letter size, whose scan pages hold only a grayscale image of their text. */
export function makeScannedPdf(pages: readonly PdfPageSpec[]): Buffer {
  const chunks: Buffer[] = [];
  const offsets: number[] = [];
  let length = 0;
  const write = (part: string | Buffer) => {
    const buffer = typeof part === "string" ? Buffer.from(part, "latin1") : part;
    chunks.push(buffer);
    length += buffer.length;
  };
  const object = (id: number, ...parts: Array<string | Buffer>) => {
    offsets[id] = length;
    write(`${id} 0 obj\n`);
    for (const part of parts) write(part);
    write("\nendobj\n");
  };

  write("%PDF-1.7\n%\xe2\xe3\xcf\xd3\n");
  // 1: catalog, 2: page tree, 3: font; then per page: page, content stream, image.
  const pageIds = pages.map((_, index) => 4 + index * 3);
  object(1, "<< /Type /Catalog /Pages 2 0 R >>");
  object(2, `<< /Type /Pages /Kids [${pageIds.map((id) => `${id} 0 R`).join(" ")}] /Count ${pages.length} >>`);
  object(3, "<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica /Encoding /WinAnsiEncoding >>");
  pages.forEach((page, index) => {
    const pageId = 4 + index * 3;
    const contentId = pageId + 1;
    const imageId = pageId + 2;
    let content: string;
    if ("text" in page) {
      const escaped = page.text.map((line) => line.replace(/[\\()]/g, (character) => `\\${character}`));
      content = `BT /F1 12 Tf 72 720 Td 16 TL ${escaped.map((line) => `(${line}) Tj T*`).join(" ")} ET`;
      object(imageId, "null");
    } else {
      const image = textImageGray(page.scan, page.fontPixels);
      const compressed = deflateSync(image.pixels);
      object(
        imageId,
        `<< /Type /XObject /Subtype /Image /Width ${image.width} /Height ${image.height} /ColorSpace /DeviceGray /BitsPerComponent 8 /Filter /FlateDecode /Length ${compressed.length} >>\nstream\n`,
        compressed,
        "\nendstream",
      );
      content = "q 612 0 0 792 0 0 cm /Im1 Do Q";
    }
    object(pageId, `<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] /Resources << /Font << /F1 3 0 R >> /XObject << /Im1 ${imageId} 0 R >> >> /Contents ${contentId} 0 R >>`);
    object(contentId, `<< /Length ${Buffer.byteLength(content, "latin1")} >>\nstream\n${content}\nendstream`);
  });
  const objectCount = 4 + pages.length * 3;
  const xrefOffset = length;
  write(`xref\n0 ${objectCount}\n0000000000 65535 f \n`);
  for (let id = 1; id < objectCount; id++) write(`${String(offsets[id] ?? 0).padStart(10, "0")} 00000 n \n`);
  write(`trailer\n<< /Size ${objectCount} /Root 1 0 R >>\nstartxref\n${xrefOffset}\n%%EOF\n`);
  return Buffer.concat(chunks);
}

/** An uncompressed grayscale TIFF with one page per entry, as a document scanner writes. */
export function textImageTiff(pages: ReadonlyArray<readonly string[]>): Buffer {
  const images = pages.map((lines) => textImageGray(lines));
  const ENTRIES = 8;
  const ifdBytes = 2 + ENTRIES * 12 + 4;
  const total = 8 + images.reduce((sum, image) => sum + ifdBytes + image.pixels.length, 0);
  const buffer = Buffer.alloc(total);
  buffer.write("II", 0, "latin1");
  buffer.writeUInt16LE(42, 2);
  let offset = 8;
  buffer.writeUInt32LE(offset, 4);
  images.forEach((image, index) => {
    const pixelsOffset = offset + ifdBytes;
    const entries: Array<[tag: number, type: number, value: number]> = [
      [256, 4, image.width], // ImageWidth
      [257, 4, image.height], // ImageLength
      [258, 3, 8], // BitsPerSample
      [259, 3, 1], // Compression: none
      [262, 3, 1], // PhotometricInterpretation: black is zero
      [273, 4, pixelsOffset], // StripOffsets
      [278, 4, image.height], // RowsPerStrip
      [279, 4, image.pixels.length], // StripByteCounts
    ];
    buffer.writeUInt16LE(ENTRIES, offset);
    entries.forEach(([tag, type, value], entry) => {
      const at = offset + 2 + entry * 12;
      buffer.writeUInt16LE(tag, at);
      buffer.writeUInt16LE(type, at + 2);
      buffer.writeUInt32LE(1, at + 4);
      if (type === 3) buffer.writeUInt16LE(value, at + 8);
      else buffer.writeUInt32LE(value, at + 8);
    });
    const next = index === images.length - 1 ? 0 : pixelsOffset + image.pixels.length;
    buffer.writeUInt32LE(next, offset + 2 + ENTRIES * 12);
    buffer.set(image.pixels, pixelsOffset);
    offset = next;
  });
  return buffer;
}

/** A JPEG of these lines, as a phone camera would save a photographed page. */
export function textImageJpeg(lines: readonly string[]): Buffer {
  return drawPage(lines).toBuffer("image/jpeg", 90);
}
