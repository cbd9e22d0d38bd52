import type { PDFPageProxy } from "pdfjs-dist/legacy/build/pdf.mjs";
import { isChunkpadError } from "../../core/errors.js";
import type { ParsedBlock, ParseInput } from "../../core/types.js";
import { describePageRuns } from "../../core/page-runs.js";
import { createOcrEngine, ocrBlocks, type OcrEngine } from "../ocr.js";

/**
 * OCR for the pages of a PDF that have no text layer: each is rendered with pdf.js onto an
 * @napi-rs/canvas canvas and read by tesseract. OCR costs seconds a page, so pages are read
 * while the per-file time budget lasts; the rest are named in a warning, never dropped silently.
 */
export interface PdfOcrResult {
  blocks: ParsedBlock[];
  /** Pages where OCR found text. */
  ocrPages: number[];
  warnings: string[];
  /** Whether any page was put through OCR at all (a scan with nothing legible still counts). */
  attempted: boolean;
}

/** 200 dpi: tesseract reads body text as well as at 300 dpi here, in half the pixels. */
const RENDER_DPI = 200;
/** Pages drawn larger than this (posters, maps) are scaled down to keep memory bounded. */
const MAX_RENDER_PIXELS = 3_500 * 3_500;
/** Assumed time for the first page, before any page has been timed. */
const FIRST_PAGE_ESTIMATE_MS = 8_000;
/** Kept free at the end of the budget to hand the result back before the hard kill. */
const BUDGET_MARGIN_MS = 1_000;

export interface PdfOcrPages {
  getPage(pageNumber: number): Promise<PDFPageProxy>;
  /** Whether the page paints an image: blank and vector-only pages are not worth OCR. */
  hasImages(pageNumber: number): Promise<boolean>;
}

export async function ocrPdfPages(source: PdfOcrPages, pageNumbers: readonly number[], input: ParseInput): Promise<PdfOcrResult> {
  const result: PdfOcrResult = { blocks: [], ocrPages: [], warnings: [], attempted: false };
  const illegible: number[] = [];
  const notReached: number[] = [];
  let slowestPageMs: number | undefined;
  let engine: OcrEngine | undefined;
  try {
    for (const [index, pageNumber] of pageNumbers.entries()) {
      const remainingMs = input.deadlineMs === undefined ? Number.POSITIVE_INFINITY : input.deadlineMs - Date.now() - BUDGET_MARGIN_MS;
      if (input.signal?.aborted || remainingMs < (slowestPageMs ?? FIRST_PAGE_ESTIMATE_MS)) {
        notReached.push(...pageNumbers.slice(index));
        break;
      }
      if (!(await source.hasImages(pageNumber))) continue;
      const started = Date.now();
      const image = await renderPage(await source.getPage(pageNumber));
      engine ??= await createOcrEngine();
      result.attempted = true;
      let page;
      try {
        page = await engine.recognize(image, input.signal);
      } catch (error) {
        if (!isChunkpadError(error) || error.code !== "PARSE_TIMEOUT") throw error;
        notReached.push(...pageNumbers.slice(index));
        break;
      }
      slowestPageMs = Math.max(slowestPageMs ?? 0, Date.now() - started);
      if (page.paragraphs.length === 0) illegible.push(pageNumber);
      else {
        result.ocrPages.push(pageNumber);
        result.blocks.push(...ocrBlocks(page, pageNumber));
      }
    }
  } finally {
    await engine?.close();
  }
  if (illegible.length > 0) result.warnings.push(`OCR found no legible text on ${describePageRuns(illegible)} (a photo, a drawing or a blank scan)`);
  if (notReached.length > 0) {
    result.warnings.push(
      `OCR stopped at the per-file time limit: ${describePageRuns(notReached)} not read; give it more time with --timeout <seconds> or ingest.perFileTimeoutSeconds to OCR more pages`,
    );
  }
  return result;
}

async function renderPage(page: PDFPageProxy): Promise<Uint8Array> {
  const { createCanvas } = await import("@napi-rs/canvas");
  try {
    const natural = page.getViewport({ scale: RENDER_DPI / 72 });
    const shrink = Math.min(1, Math.sqrt(MAX_RENDER_PIXELS / (natural.width * natural.height)));
    const viewport = shrink < 1 ? page.getViewport({ scale: (RENDER_DPI / 72) * shrink }) : natural;
    const canvas = createCanvas(Math.ceil(viewport.width), Math.ceil(viewport.height));
    const context = canvas.getContext("2d");
    // Scans often rely on a white page under a masked or transparent image.
    context.fillStyle = "#ffffff";
    context.fillRect(0, 0, canvas.width, canvas.height);
    await page.render({ canvas: canvas as unknown as HTMLCanvasElement, canvasContext: context as unknown as CanvasRenderingContext2D, viewport }).promise;
    return toPpm(context.getImageData(0, 0, canvas.width, canvas.height));
  } finally {
    page.cleanup();
  }
}

/**
 * The rendered page as a binary PPM: the same RGB pixels a PNG would carry (tesseract reads the
 * same text from both), without compressing them here and inflating them again in tesseract's
 * wasm (a PNG cost 0.2–0.9 CPU-s a page to encode; decision 086).
 */
export function toPpm(image: { width: number; height: number; data: Uint8ClampedArray }): Uint8Array {
  const header = Buffer.from(`P6\n${image.width} ${image.height}\n255\n`, "ascii");
  const ppm = new Uint8Array(header.length + image.width * image.height * 3);
  ppm.set(header);
  const rgba = image.data;
  for (let from = 0, to = header.length; from < rgba.length; from += 4, to += 3) {
    ppm[to] = rgba[from]!;
    ppm[to + 1] = rgba[from + 1]!;
    ppm[to + 2] = rgba[from + 2]!;
  }
  return ppm;
}
